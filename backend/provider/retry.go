package provider

import (
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// ErrStreamCut marks a stream that ended before its final event without an
// error of its own (the connection closed cleanly mid-answer). HTTP
// providers wrap it in the *Error they return, so a call cut before any
// text is retried.
var ErrStreamCut = errors.New("the stream ended before the answer was complete")

// RetryPolicy says how an HTTP provider retries a transient failure (429,
// 408, 5xx, a stream cut before any text). It is the only retry layer: the
// SDKs' own retries are switched off, so that every retry is seen.
type RetryPolicy struct {
	// MaxRetries is the number of retries after the first attempt: a call
	// is sent at most MaxRetries+1 times.
	MaxRetries int
	// BaseDelay is the wait before the first retry when the server did not
	// say how long to wait; it doubles after each retry, up to MaxDelay,
	// and is jittered.
	BaseDelay time.Duration
	MaxDelay  time.Duration
	// MaxServerWait caps what a server may ask with Retry-After: asked to
	// wait longer (a quota that resets in an hour), the call fails at once,
	// saying how long the server asked.
	MaxServerWait time.Duration
}

// DefaultRetry is the policy of a profile that sets none.
func DefaultRetry() RetryPolicy {
	return RetryPolicy{MaxRetries: 3, BaseDelay: time.Second, MaxDelay: 30 * time.Second, MaxServerWait: time.Minute}
}

// backoff is the wait before retry n (1-based) when the server named none:
// BaseDelay·2^(n-1), capped at MaxDelay, drawn from its upper half so that
// clients that failed together do not retry together.
func (p RetryPolicy) backoff(n int) time.Duration {
	d := p.BaseDelay
	for i := 1; i < n && d < p.MaxDelay; i++ {
		d *= 2
	}
	if p.MaxDelay > 0 && d > p.MaxDelay {
		d = p.MaxDelay
	}
	if d <= 1 {
		return d
	}
	return d/2 + rand.N(d/2+1)
}

// transient reports why err is worth another attempt ("rate limited (HTTP
// 429)"), or "" when it is not: anything the user must fix (400, 401, 403,
// 404), a time limit of ours, a cancelled call. broken says the transport
// saw the body break off.
func transient(err error, broken bool) (why, reason string) {
	var pe *Error
	if !errors.As(err, &pe) {
		return "", ""
	}
	status := ""
	if pe.Status != 0 {
		status = fmt.Sprintf(" (HTTP %d)", pe.Status)
	}
	switch {
	case pe.Kind == KindRateLimit:
		return "rate limited" + status, ReasonRateLimit
	case pe.Kind == KindServer:
		return "server error" + status, ReasonServer
	case pe.Kind == KindTimeout && pe.Status == http.StatusRequestTimeout:
		return "request timeout" + status, ReasonRequestTimeout
	case pe.Kind == KindTimeout:
		return "", "" // our own limit, or the caller's deadline
	case pe.Kind != KindUnreachable && pe.Kind != KindProtocol:
		return "", ""
	case broken, errors.Is(err, ErrStreamCut), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, syscall.ECONNRESET),
		errors.Is(err, wsaConnReset):
		// Not a refused connection: the server is there and may answer
		// the next time.
		return "the connection closed before the answer began", ReasonConnectionClosed
	}
	return "", ""
}

// retryAfter reads how long a response asks to wait: retry-after-ms
// (OpenAI, Anthropic), else Retry-After in seconds or as an HTTP date. It
// returns -1 when the response asks nothing.
func retryAfter(h http.Header, now time.Time) time.Duration {
	if v := strings.TrimSpace(h.Get("Retry-After-Ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms >= 0 {
			return time.Duration(ms * float64(time.Millisecond))
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return -1
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if s < 0 {
			return -1
		}
		return time.Duration(s * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0)
	}
	return -1
}

// humanDelay prints a wait the way a user reads it: "4s", "250ms".
func humanDelay(d time.Duration) string {
	if d < time.Second {
		return d.Round(time.Millisecond).String()
	}
	return d.Round(time.Second).String()
}

// wsaConnReset is Winsock's "connection reset by peer" (WSAECONNRESET),
// which Windows reports instead of the ECONNRESET syscall invents for it;
// no Unix errno has its number.
const wsaConnReset = syscall.Errno(10054)
