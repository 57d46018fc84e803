package provider

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// ErrUnknownProvider: a profile or kind name that does not exist. Raised
// before any request or process starts.
var ErrUnknownProvider = errors.New("unknown provider")

// ErrorKind classifies provider failures so callers can branch with
// errors.Is(err, provider.ErrAuth) and the like.
type ErrorKind string

const (
	KindMissingKey  ErrorKind = "missing_key" // no API key in the environment
	KindAuth        ErrorKind = "auth"        // 401: key rejected
	KindForbidden   ErrorKind = "forbidden"   // 403: key accepted, but no access to the model/project/region
	KindRateLimit   ErrorKind = "rate_limit"  // 429 (when retrying did not help), or a rate-limit error mid-stream
	KindServer      ErrorKind = "server"      // 5xx (when retrying did not help), or a server error mid-stream
	KindBadRequest  ErrorKind = "bad_request" // other 4xx (unknown model, bad parameter)
	KindUnreachable ErrorKind = "unreachable" // connection refused, DNS, TLS
	KindProtocol    ErrorKind = "protocol"    // the stream did not follow the wire format
	KindTimeout     ErrorKind = "timeout"     // the call exceeded a time limit (Err is a *TimeoutError when it was one of ours)
	// KindMissingEnv: a coding CLI lacks a variable its own configuration
	// names (codex's env_key); Message says how to pass it.
	KindMissingEnv ErrorKind = "missing_env"
	// KindRefusal: the provider declined to answer (a safety refusal, a
	// blocked prompt or answer); Message is its explanation, Category its
	// reason's name when it gave one. Asking again the same way would get
	// the same answer, so it is never retried.
	KindRefusal ErrorKind = "refusal"
	// KindInterrupted: the answer had begun (HTTP 200) when its stream
	// broke off: the connection was cut or closed before the API's final
	// event. Once text has arrived it is not retried (the user would see
	// it twice), but trying the iteration again may well work.
	KindInterrupted ErrorKind = "interrupted"
	// KindModelNotFound: the API answered that the model asked for does
	// not exist, was retired, or is not offered to this key (OpenAI's 404
	// code model_not_found, Anthropic's 404 not_found_error, Gemini's 404
	// NOT_FOUND). Model names it; Available lists the models the key can
	// use, when listing them worked.
	KindModelNotFound ErrorKind = "model_not_found"
)

// Sentinels matching each kind through Error.Is.
var (
	ErrMissingKey    = errors.New("missing API key")
	ErrAuth          = errors.New("authentication failed")
	ErrForbidden     = errors.New("no access to the model")
	ErrRateLimit     = errors.New("rate limited")
	ErrServer        = errors.New("provider server error")
	ErrBadRequest    = errors.New("request rejected")
	ErrUnreachable   = errors.New("provider unreachable")
	ErrProtocol      = errors.New("provider protocol error")
	ErrTimeout       = errors.New("provider call timed out")
	ErrMissingEnv    = errors.New("environment variable missing")
	ErrRefused       = errors.New("the model refused to answer")
	ErrInterrupted   = errors.New("the answer broke off")
	ErrModelNotFound = errors.New("no such model")
)

var kindSentinel = map[ErrorKind]error{
	KindMissingKey: ErrMissingKey, KindAuth: ErrAuth, KindForbidden: ErrForbidden, KindRateLimit: ErrRateLimit,
	KindServer: ErrServer, KindBadRequest: ErrBadRequest, KindUnreachable: ErrUnreachable,
	KindProtocol: ErrProtocol, KindTimeout: ErrTimeout, KindMissingEnv: ErrMissingEnv,
	KindRefusal: ErrRefused, KindInterrupted: ErrInterrupted, KindModelNotFound: ErrModelNotFound,
}

// Error is a provider failure with enough context for a one-line message a
// user can act on.
type Error struct {
	Provider string    // profile name
	Kind     ErrorKind // what went wrong
	Status   int       // HTTP status, when there was one (0: none, e.g. an error event mid-stream)
	EnvVar   string    // KindMissingKey/KindAuth/KindMissingEnv: the variable that holds (or should hold) the key
	Model    string    // KindForbidden, KindModelNotFound: the model asked for ("" when unknown)
	URL      string    // endpoint, for KindUnreachable and KindInterrupted
	Category string    // KindRefusal: the reason the provider named ("cyber", "SAFETY"), if any
	Message  string    // what the provider said, trimmed
	// Attempts is how many times the call was sent when retrying did not
	// help (0 or 1: it was sent once).
	Attempts int
	// RetryAfter is how long the server asked to wait before trying again
	// (Retry-After), when it asked.
	RetryAfter time.Duration
	// Available, for KindModelNotFound, are the models the key can use
	// (sorted), when they could be listed; ListErr is why they could not.
	Available []string
	ListErr   error
	Err       error // underlying cause
}

func (e *Error) Error() string {
	// A status of 0 means none was received: the call failed before an
	// answer, or the server reported the error mid-stream.
	var status, retried string
	if e.Status != 0 {
		status = fmt.Sprintf(" (HTTP %d)", e.Status)
	}
	if e.Attempts > 1 {
		retried = fmt.Sprintf(" after %d attempts", e.Attempts)
	}
	var s string
	switch e.Kind {
	case KindMissingKey:
		s = fmt.Sprintf("%s: no API key: set %s in the environment or in a .env file", e.Provider, e.EnvVar)
	case KindAuth:
		s = fmt.Sprintf("%s: the API key was rejected%s", e.Provider, status)
		if e.EnvVar != "" {
			s += "; check " + e.EnvVar
		}
	case KindForbidden:
		model := "this model"
		if e.Model != "" {
			model = fmt.Sprintf("model %q", e.Model)
		}
		s = fmt.Sprintf("%s: no access to %s%s", e.Provider, model, status)
		if e.Message != "" {
			s += ": " + e.Message
		}
		// What 403 means, unlike 401: the key itself is fine. (A coding CLI
		// may be logged in rather than using a key.)
		return s + "; the API key or login was accepted, but its account or project may not use this model " +
			"(or not from this region): enable the model for it, or pick another model"
	case KindRateLimit:
		s = fmt.Sprintf("%s: rate limited%s%s", e.Provider, status, retried)
		if e.RetryAfter > 0 {
			s += fmt.Sprintf(" (the server asks to wait %s)", e.RetryAfter)
		}
	case KindServer:
		s = fmt.Sprintf("%s: server error%s%s", e.Provider, status, retried)
	case KindBadRequest:
		s = fmt.Sprintf("%s: request rejected%s", e.Provider, status)
		if fe, ok := errors.AsType[*FieldError](e.Err); ok {
			// What the server said, then which setting fixes it.
			if e.Message != "" {
				s += ": " + e.Message
			}
			return s + "; " + fe.Error()
		}
	case KindUnreachable:
		s = fmt.Sprintf("%s: cannot reach %s%s", e.Provider, e.URL, retried)
	case KindTimeout:
		var te *TimeoutError
		if errors.As(e.Err, &te) {
			return te.Error() // it says everything, and names the limit to raise
		}
		s = fmt.Sprintf("%s: call timed out%s", e.Provider, retried)
	case KindProtocol:
		s = fmt.Sprintf("%s: %s%s", e.Provider, e.Kind, retried)
	case KindMissingEnv:
		s = fmt.Sprintf("%s: the CLI needs the environment variable %s", e.Provider, e.EnvVar)
	case KindRefusal:
		s = fmt.Sprintf("%s: the model refused to answer", e.Provider)
		if e.Category != "" {
			s += fmt.Sprintf(" (%s)", e.Category)
		}
	case KindModelNotFound:
		return e.modelNotFound(status)
	case KindInterrupted:
		to := ""
		if e.URL != "" {
			to = " to " + e.URL
		}
		s = fmt.Sprintf("%s: the connection%s broke off before the answer was complete", e.Provider, to)
	default:
		s = fmt.Sprintf("%s: %s", e.Provider, e.Kind)
	}
	if e.Message != "" {
		s += ": " + e.Message
	} else if e.Err != nil && e.Kind != KindMissingKey {
		s += ": " + e.Err.Error()
	}
	return s
}

func (e *Error) Unwrap() error { return e.Err }

// maxListed bounds the models named in a model-not-found message; the
// whole list is in Available (and `loopforge providers --models`).
const maxListed = 40

// ModelsCommand is the command that lists the models of every profile,
// named where a list could not be given.
const ModelsCommand = "loopforge providers --models"

func (e *Error) modelNotFound(status string) string {
	model := "the model"
	if e.Model != "" {
		model = fmt.Sprintf("the model %q", e.Model)
	}
	s := fmt.Sprintf("%s: %s does not exist or is no longer offered to this key%s", e.Provider, model, status)
	if e.Message != "" {
		// Its closing full stop would stand before the "; " that follows.
		s += ": " + strings.TrimSuffix(e.Message, ".")
	}
	switch {
	case len(e.Available) > maxListed:
		return s + fmt.Sprintf("; models this key can use: %s … and %d more (%s lists them all)",
			strings.Join(e.Available[:maxListed], ", "), len(e.Available)-maxListed, ModelsCommand)
	case len(e.Available) > 0:
		return s + "; models this key can use: " + strings.Join(e.Available, ", ")
	}
	return s + "; to see the models this key can use: " + ModelsCommand
}

// Is lets errors.Is(err, ErrAuth) match an *Error of kind auth.
func (e *Error) Is(target error) bool {
	return kindSentinel[e.Kind] == target && target != nil
}

// Errors of the coding CLI providers. Each is a distinct type (or sentinel)
// so callers can branch with errors.As / errors.Is.

// ErrCLINotFound is matched by a *NotFoundError.
var ErrCLINotFound = errors.New("coding CLI not found")

// ErrIncomplete is matched by an *ExecutionError for a CLI that ended (or
// was stopped) without its final event, whatever its exit code.
var ErrIncomplete = errors.New("the CLI ended without its final event")

// NotFoundError: the CLI's executable is nowhere it was looked for. No
// process was started.
type NotFoundError struct {
	Provider string   // profile name
	Binary   string   // what was looked for: a name or the profile's path
	Looked   []string // every place looked, in order, each with what was found there
	Hint     string   // how to install it, e.g. "npm install -g @openai/codex"
}

func (e *NotFoundError) Error() string {
	s := fmt.Sprintf("%s: CLI %q not found (looked in: %s)", e.Provider, e.Binary, strings.Join(e.Looked, "; "))
	if e.Hint != "" {
		s += "; " + e.Hint
	}
	return s
}

// Is lets errors.Is(err, ErrCLINotFound) match.
func (e *NotFoundError) Is(target error) bool { return target == ErrCLINotFound }

// ExecutionError: the CLI ran and failed — it reported an error in its final
// event (Message), exited non-zero without one, or ended without it (Err is
// ErrIncomplete).
type ExecutionError struct {
	Provider string
	Cmd      []string // argv, as in Response.Command
	ExitCode int      // 128+n when killed by signal n; -1 when it never started
	Message  string   // the failure the CLI reported in its final event, if any
	Stderr   string   // the tail of its stderr, trimmed (secrets redacted)
	Err      error    // ErrIncomplete, or why it could not start
}

func (e *ExecutionError) Error() string {
	var s string
	switch {
	case e.ExitCode == -1:
		s = fmt.Sprintf("%s: cannot start the CLI", e.Provider)
	case e.Message != "":
		s = fmt.Sprintf("%s: the CLI reported an error", e.Provider)
	case errors.Is(e.Err, ErrIncomplete):
		s = fmt.Sprintf("%s: the CLI stopped before its final result (exit code %d)", e.Provider, e.ExitCode)
	default:
		s = fmt.Sprintf("%s: the CLI failed with exit code %d", e.Provider, e.ExitCode)
	}
	switch {
	case e.Message != "":
		s += ": " + e.Message
	case e.ExitCode == -1 && e.Err != nil:
		s += ": " + e.Err.Error()
	default:
		if line := stderrSummary(e.Stderr); line != "" {
			s += ": " + line
		}
	}
	return s
}

func (e *ExecutionError) Unwrap() error { return e.Err }

// stderrSummary picks the most telling line of a stderr tail: the first one
// that reads like a complaint, else the last non-empty one. Stack frames are
// skipped.
func stderrSummary(tail string) string {
	var pick string
	for line := range strings.SplitSeq(tail, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "at ") {
			continue
		}
		l := strings.ToLower(line)
		if strings.Contains(l, "error") || strings.Contains(l, "unknown") || strings.Contains(l, "invalid") ||
			strings.Contains(l, "cannot") || strings.Contains(l, "not found") || strings.Contains(l, "denied") {
			pick = line
			break
		}
		pick = line
	}
	if r := []rune(pick); len(r) > maxMessage {
		pick = string(r[:maxMessage]) + "…"
	}
	return pick
}

// ParseError: a line of the CLI's output was not a JSON event. Events before
// it were delivered; the call ends with status error (or partial, when the
// output was also cut before the final event).
type ParseError struct {
	Provider string
	Line     int    // 1-based line number in the CLI's stdout
	Raw      string // the start of the line
	Err      error  // the decoder's complaint
}

func (e *ParseError) Error() string {
	s := fmt.Sprintf("%s: malformed JSON on output line %d", e.Provider, e.Line)
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s + fmt.Sprintf(" (line: %q)", e.Raw)
}

func (e *ParseError) Unwrap() error { return e.Err }

// PartialError ends a call that did not succeed once it had begun: a coding
// CLI's once its process had started, an HTTP provider's once its answer
// had begun to arrive (see WithPartial). Err says why (any of the errors
// above, an *Error, or a context.Canceled wrapper); Partial holds everything
// that arrived, with Status StatusError or StatusPartial: the text streamed
// so far, the model, and the tokens counted (an HTTP API reports some
// before its end, e.g. Anthropic's input tokens in message_start).
type PartialError struct {
	Partial *Response
	Err     error
}

func (e *PartialError) Error() string { return e.Err.Error() }
func (e *PartialError) Unwrap() error { return e.Err }

// PartialOf returns what arrived before err ended a call, or nil.
func PartialOf(err error) *Response {
	var pe *PartialError
	if errors.As(err, &pe) {
		return pe.Partial
	}
	return nil
}

// WithPartial returns err wrapped in a *PartialError carrying got (its
// Status set to StatusPartial), so that a caller can keep what an HTTP call
// delivered before it failed; err alone when got holds no text and no
// token count, or when err is nil or already carries a partial answer.
func WithPartial(err error, got *Response) error {
	if err == nil || got == nil || PartialOf(err) != nil {
		return err
	}
	if got.Content == "" && got.Usage == (Usage{}) {
		return err
	}
	p := *got
	p.Status = StatusPartial
	return &PartialError{Partial: &p, Err: err}
}

// FieldError is why a server refused a request for one of its fields: the
// field that carries the answer's token cap (max_tokens, or OpenAI's
// max_completion_tokens). It is the Err of an *Error of KindBadRequest,
// whose message then says which setting of the profile to change.
type FieldError struct {
	Profile string // the profile to change
	Field   string // the field the request carried
	// Other is the field to use instead, when the API has one ("" for an
	// API that knows only Field).
	Other string
	// Unsupported: the server said it does not know Field at all (OpenAI's
	// "unsupported_parameter"), rather than that its value is wrong.
	Unsupported bool
	Value       int // the cap that was sent
}

func (e *FieldError) Error() string {
	const key = "max_tokens_field"
	where := fmt.Sprintf("in the %q profile of loopforge.yml", e.Profile)
	switch {
	case e.Unsupported && e.Other != "":
		return fmt.Sprintf("the server does not accept the field %s for the answer's token cap: set %s: %s %s",
			e.Field, key, e.Other, where)
	case e.Other != "":
		return fmt.Sprintf("the server refused the answer's token cap (%s: %d): lower max_output_tokens, "+
			"or, if it wants the other field, set %s: %s, %s", e.Field, e.Value, key, e.Other, where)
	}
	return fmt.Sprintf("the server refused the answer's token cap (%s: %d): lower max_output_tokens %s",
		e.Field, e.Value, where)
}
