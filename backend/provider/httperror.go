package provider

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// ErrorContext builds the *Error values of one profile's HTTP calls: it
// classifies statuses and transport failures the same way for every API
// adapter, and trims what a server says to one line without the key.
type ErrorContext struct {
	Provider string // profile name
	KeyEnv   string // variable holding the key, named in auth errors
	URL      string // endpoint named in unreachable errors; must not hold the key
	Model    string // model named in 403 (no access) errors

	redact func(string) string
}

// NewErrorContext returns the ErrorContext of a profile. key is kept only
// inside a redacting func, so printing an ErrorContext, or a client holding
// one, never shows it.
func NewErrorContext(name, keyEnv, url, key string) ErrorContext {
	return ErrorContext{Provider: name, KeyEnv: keyEnv, URL: url, redact: redactor(key)}
}

// FromStatus classifies an HTTP error status: 401 auth (naming KeyEnv), 403
// no access (naming Model: the key is fine, the model is not open to it),
// 429 rate limit, 408 timeout, 5xx server, other 4xx bad request, anything
// else a protocol error. msg is what the server said; it is cleaned.
func (c ErrorContext) FromStatus(status int, msg string, err error) *Error {
	e := &Error{Provider: c.Provider, Status: status, Message: c.Clean(msg), Err: err}
	switch {
	case status == http.StatusUnauthorized:
		e.Kind, e.EnvVar = KindAuth, c.KeyEnv
	case status == http.StatusForbidden:
		e.Kind, e.Model = KindForbidden, c.Model
	case status == http.StatusTooManyRequests:
		e.Kind = KindRateLimit
	case status == http.StatusRequestTimeout:
		e.Kind = KindTimeout
	case status >= 500:
		e.Kind = KindServer
	case status >= 400:
		e.Kind = KindBadRequest
	default:
		e.Kind = KindProtocol
	}
	return e
}

// FromTransport classifies a failure with no HTTP status: a timeout below
// the caller's context, the network (unreachable, naming URL), or else a
// body that is not the wire format (protocol).
func (c ErrorContext) FromTransport(err error) *Error {
	var te *TimeoutError
	if errors.As(err, &te) {
		return &Error{Provider: c.Provider, Kind: KindTimeout, Err: te}
	}
	var netErr net.Error
	if errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &netErr) && netErr.Timeout()) {
		return &Error{Provider: c.Provider, Kind: KindTimeout, Err: err}
	}
	if msg, ok := networkMessage(err); ok {
		return &Error{Provider: c.Provider, Kind: KindUnreachable, URL: c.URL, Message: c.Clean(msg), Err: err}
	}
	return &Error{Provider: c.Provider, Kind: KindProtocol, Message: c.Clean(err.Error()), Err: err}
}

// Failure maps a failed request or read of an adapter to what the Provider
// contract returns: ctx's end (FromContext), an HTTP error answer (through
// fromStatus; nil: FromStatus with the message in its body), an *Error
// already made, or else a transport failure (FromTransport).
func (c ErrorContext) Failure(ctx context.Context, err error, fromStatus func(*HTTPStatusError) error) error {
	if ctxErr := c.FromContext(ctx, err); ctxErr != nil {
		return ctxErr
	}
	var se *HTTPStatusError
	if errors.As(err, &se) {
		if fromStatus != nil {
			return fromStatus(se)
		}
		return c.FromStatus(se.Status, BodyMessage(se.Body), err)
	}
	var pe *Error
	if errors.As(err, &pe) {
		return pe
	}
	return c.FromTransport(err)
}

// Interrupted is the error of a stream that broke off after its answer had
// begun (HTTP 200): err is the failed read, or nil when the body ended
// without the API's final event. A read that failed because ctx ended or a
// time limit expired is reported as that (Failure); anything else is
// KindInterrupted, naming URL, wrapping err (or ErrStreamCut), so that a
// call cut before any text is still retried (see transient).
func (c ErrorContext) Interrupted(ctx context.Context, err error) error {
	if err == nil {
		if ctxErr := c.FromContext(ctx, ErrStreamCut); ctxErr != nil {
			return ctxErr
		}
		// No Message: the provider said nothing, and Message is quoted as
		// its words (the faces word the break itself, by code).
		return &Error{Provider: c.Provider, Kind: KindInterrupted, URL: c.URL, Err: ErrStreamCut}
	}
	f := c.Failure(ctx, err, nil)
	if pe, ok := errors.AsType[*Error](f); ok && pe.Kind == KindUnreachable {
		// The network failed under a live answer: it was reached, and cut.
		return &Error{Provider: c.Provider, Kind: KindInterrupted, URL: c.URL, Message: pe.Message, Err: err}
	}
	return f
}

// FromContext reports how a call ended when its ctx did: cancelled, an
// error wrapping context.Canceled (not an *Error: nothing failed); past its
// deadline, KindTimeout wrapping err. It returns nil while ctx is live.
func (c ErrorContext) FromContext(ctx context.Context, err error) error {
	switch ctxErr := ctx.Err(); {
	case errors.Is(ctxErr, context.Canceled):
		return fmt.Errorf("%s: call cancelled: %w", c.Provider, ctxErr)
	case errors.Is(ctxErr, context.DeadlineExceeded):
		return &Error{Provider: c.Provider, Kind: KindTimeout, Err: err}
	}
	return nil
}

// maxMessage bounds a provider message; a one-line summary is the goal.
const maxMessage = 300

// Clean trims a provider message to its first non-empty line, bounded to
// maxMessage runes, with the key redacted.
func (c ErrorContext) Clean(msg string) string {
	if c.redact != nil {
		msg = c.redact(msg)
	}
	for line := range strings.SplitSeq(msg, "\n") {
		if line = strings.TrimSpace(line); line != "" {
			msg = line
			break
		}
	}
	msg = strings.TrimSpace(msg)
	if r := []rune(msg); len(r) > maxMessage {
		msg = string(r[:maxMessage]) + "…"
	}
	return msg
}

// redactor returns a func that hides key in a message a server might echo
// it in. (Real keys are long; a short test key would only garble words.)
func redactor(key string) func(string) string {
	if len(key) < 8 {
		return func(s string) string { return s }
	}
	return func(s string) string { return strings.ReplaceAll(s, key, "[redacted]") }
}

// networkMessage reports whether err is a network failure and, if so, its
// most telling part ("connect: connection refused", "lookup x: no such host")
// rather than the whole "Post <url>: dial tcp ..." chain.
func networkMessage(err error) (string, bool) {
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) {
		return dnsErr.Error(), true
	}
	var opErr *net.OpError
	if errors.As(err, &opErr) {
		if opErr.Err != nil {
			return opErr.Err.Error(), true
		}
		return opErr.Error(), true
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		// Nobody said anything: the connection closed. The message stays
		// empty rather than loopforge's English posing as the provider's.
		return "", true
	}
	// Anything else the HTTP client reports (TLS, proxy, redirect) is a
	// failure to reach the endpoint too.
	var urlErr *url.Error
	if errors.As(err, &urlErr) {
		return urlErr.Err.Error(), true
	}
	return "", false
}

// BodyMessage finds the human message in an error body, in the shapes APIs
// and compatible servers send: {"error":{"message":...}} (OpenAI, Anthropic,
// Ollama), {"error":"..."}, {"message":...}, {"detail":...} (FastAPI; a
// non-string detail is returned as JSON). Anything else, a plain-text or
// HTML body included, is returned as is; Clean trims it.
func BodyMessage(b []byte) string {
	var v struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Detail  any             `json:"detail"`
	}
	if json.Unmarshal(b, &v) != nil {
		return string(b)
	}
	var inner struct {
		Message string `json:"message"`
	}
	var s string
	switch {
	case json.Unmarshal(v.Error, &inner) == nil && inner.Message != "":
		return inner.Message
	case json.Unmarshal(v.Error, &s) == nil && s != "":
		return s
	case v.Message != "":
		return v.Message
	case v.Detail != nil:
		if d, ok := v.Detail.(string); ok {
			return d
		}
		d, _ := json.Marshal(v.Detail)
		return string(d)
	}
	return string(b)
}
