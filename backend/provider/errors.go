package provider

import (
	"errors"
	"fmt"
)

// ErrUnknownProvider: a profile or kind name that does not exist. Raised
// before any request or process starts.
var ErrUnknownProvider = errors.New("unknown provider")

// ErrorKind classifies provider failures so callers can branch with
// errors.Is(err, provider.ErrAuth) and the like.
type ErrorKind string

const (
	KindMissingKey  ErrorKind = "missing_key" // no API key in the environment
	KindAuth        ErrorKind = "auth"        // 401/403: key rejected
	KindRateLimit   ErrorKind = "rate_limit"  // 429 after retries, or a rate-limit error mid-stream
	KindServer      ErrorKind = "server"      // 5xx after retries, or a server error mid-stream
	KindBadRequest  ErrorKind = "bad_request" // other 4xx (unknown model, bad parameter)
	KindUnreachable ErrorKind = "unreachable" // connection refused, DNS, TLS
	KindProtocol    ErrorKind = "protocol"    // the stream did not follow the wire format
	KindTimeout     ErrorKind = "timeout"     // the call exceeded its time limit
)

// Sentinels matching each kind through Error.Is.
var (
	ErrMissingKey  = errors.New("missing API key")
	ErrAuth        = errors.New("authentication failed")
	ErrRateLimit   = errors.New("rate limited")
	ErrServer      = errors.New("provider server error")
	ErrBadRequest  = errors.New("request rejected")
	ErrUnreachable = errors.New("provider unreachable")
	ErrProtocol    = errors.New("provider protocol error")
	ErrTimeout     = errors.New("provider call timed out")
)

var kindSentinel = map[ErrorKind]error{
	KindMissingKey: ErrMissingKey, KindAuth: ErrAuth, KindRateLimit: ErrRateLimit,
	KindServer: ErrServer, KindBadRequest: ErrBadRequest, KindUnreachable: ErrUnreachable,
	KindProtocol: ErrProtocol, KindTimeout: ErrTimeout,
}

// Error is a provider failure with enough context for a one-line message a
// user can act on.
type Error struct {
	Provider string    // profile name
	Kind     ErrorKind // what went wrong
	Status   int       // HTTP status, when there was one (0: none, e.g. an error event mid-stream)
	EnvVar   string    // KindMissingKey/KindAuth: the variable that holds (or should hold) the key
	URL      string    // endpoint, for KindUnreachable
	Message  string    // what the provider said, trimmed
	Err      error     // underlying cause
}

func (e *Error) Error() string {
	// A status of 0 means none was received: the call failed before an
	// answer, or the server reported the error mid-stream, where nothing is
	// retried.
	var status, retried string
	if e.Status != 0 {
		status = fmt.Sprintf(" (HTTP %d)", e.Status)
		retried = " after retries"
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
	case KindRateLimit:
		s = fmt.Sprintf("%s: rate limited%s%s", e.Provider, status, retried)
	case KindServer:
		s = fmt.Sprintf("%s: server error%s%s", e.Provider, status, retried)
	case KindBadRequest:
		s = fmt.Sprintf("%s: request rejected%s", e.Provider, status)
	case KindUnreachable:
		s = fmt.Sprintf("%s: cannot reach %s", e.Provider, e.URL)
	case KindTimeout:
		s = fmt.Sprintf("%s: call timed out", e.Provider)
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

// Is lets errors.Is(err, ErrAuth) match an *Error of kind auth.
func (e *Error) Is(target error) bool {
	return kindSentinel[e.Kind] == target && target != nil
}
