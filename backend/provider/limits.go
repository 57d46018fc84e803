package provider

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"
)

// Default time limits of an HTTP provider call. Reasoning models may think
// in silence before their first token, hence a first-byte limit above the
// idle one; a stream that has started sends its chunks (or keep-alive
// comments) far more often than once a minute.
const (
	DefaultFirstByteTimeout = 2 * time.Minute
	DefaultIdleTimeout      = time.Minute
)

// Limits bound one call of an HTTP provider. A zero field means no limit.
type Limits struct {
	// FirstByte bounds the wait from sending a request until the first
	// byte of its answer's body (profile key first_byte_timeout).
	FirstByte time.Duration
	// Idle bounds the silence between two reads of the answer once it has
	// started; every chunk resets it, so a slow but live stream never
	// trips it (profile key idle_timeout).
	Idle time.Duration
	// Overall bounds the whole call, retries and their waits included
	// (profile key timeout).
	Overall time.Duration
}

// LimitsOf returns the limits of an HTTP profile: its own, else the
// defaults.
func LimitsOf(p Profile) Limits {
	l := Limits{FirstByte: p.FirstByteTimeout, Idle: p.IdleTimeout, Overall: p.Timeout}
	if l.FirstByte <= 0 {
		l.FirstByte = DefaultFirstByteTimeout
	}
	if l.Idle <= 0 {
		l.Idle = DefaultIdleTimeout
	}
	if l.Overall <= 0 {
		l.Overall = DefaultCallTimeout
	}
	return l
}

// TimeoutPhase names the limit a call exceeded.
type TimeoutPhase string

const (
	PhaseFirstByte TimeoutPhase = "first byte"
	PhaseIdle      TimeoutPhase = "idle"
	PhaseOverall   TimeoutPhase = "overall"
)

// TimeoutError: an HTTP provider call exceeded one of its Limits. It
// reaches callers inside an *Error of KindTimeout, so errors.Is(err,
// ErrTimeout) and errors.As(err, &te) both hold.
type TimeoutError struct {
	Provider string
	Phase    TimeoutPhase
	Limit    time.Duration
}

// Key is the profile key that sets the limit.
func (e *TimeoutError) Key() string {
	switch e.Phase {
	case PhaseFirstByte:
		return "first_byte_timeout"
	case PhaseIdle:
		return "idle_timeout"
	}
	return "timeout"
}

func (e *TimeoutError) Error() string {
	var what string
	switch e.Phase {
	case PhaseFirstByte:
		what = fmt.Sprintf("no answer within %s", e.Limit)
	case PhaseIdle:
		what = fmt.Sprintf("the answer stalled: nothing arrived for %s", e.Limit)
	default:
		what = fmt.Sprintf("the call took longer than %s", e.Limit)
	}
	return fmt.Sprintf("%s: %s (%s); to wait longer, raise %s in the %q profile of loopforge.yml",
		e.Provider, what, e.Key(), e.Key(), e.Provider)
}

// Is lets errors.Is(err, ErrTimeout) match.
func (e *TimeoutError) Is(target error) bool { return target == ErrTimeout }

// Timeout marks it as a timeout for code that asks net.Error-style.
func (e *TimeoutError) Timeout() bool { return true }

// watchTransport enforces the first-byte and idle limits on every request
// it carries: a timer armed when the request is sent, reset by every read of
// the body, cancels the request when it expires. The overall limit is the
// call's context (HTTPCall.Stream), since it spans retries.
type watchTransport struct {
	next     http.RoundTripper
	provider string
	limits   Limits
}

func (t *watchTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx, cancel := context.WithCancelCause(req.Context())
	info := attemptOf(req.Context())
	w := newWatch(t.provider, t.limits, func(te *TimeoutError) {
		info.timedOut(te)
		cancel(te)
	})
	resp, err := t.next.RoundTrip(req.WithContext(ctx))
	if err != nil {
		w.stop()
		cancel(nil)
		if te := w.fired(); te != nil {
			return nil, te
		}
		return nil, err
	}
	info.response(resp)
	resp.Body = &watchedBody{rc: resp.Body, w: w, info: info, ctx: ctx, cancel: cancel}
	return resp, nil
}

// watchedBody resets the watch on every read that brings bytes, and
// reports a timeout as such rather than as the cancelled read it causes.
type watchedBody struct {
	rc     io.ReadCloser
	w      *watch
	info   *attemptInfo
	ctx    context.Context
	cancel context.CancelCauseFunc
}

func (b *watchedBody) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	if n > 0 {
		b.w.touch()
	}
	if err != nil && err != io.EOF {
		if te := b.w.fired(); te != nil {
			return n, te
		}
		if b.ctx.Err() == nil {
			// The connection broke under a live request: a cut stream.
			b.info.cut()
		}
	}
	return n, err
}

func (b *watchedBody) Close() error {
	b.w.stop()
	err := b.rc.Close()
	b.cancel(nil)
	return err
}

// watch is the timer of one request: in the first-byte phase until the body
// brings its first bytes, then in the idle phase, re-armed by each read.
type watch struct {
	mu       sync.Mutex
	provider string
	limits   Limits
	phase    TimeoutPhase
	deadline time.Time // of the current phase; zero: no limit
	timer    *time.Timer
	expired  *TimeoutError
	stopped  bool
	onExpire func(*TimeoutError)
}

func newWatch(provider string, l Limits, onExpire func(*TimeoutError)) *watch {
	w := &watch{provider: provider, limits: l, phase: PhaseFirstByte, onExpire: onExpire}
	w.arm(l.FirstByte)
	return w
}

// arm sets the deadline d from now (none when d is 0). Called with mu held
// or before w is shared.
func (w *watch) arm(d time.Duration) {
	if d <= 0 {
		w.deadline = time.Time{}
		if w.timer != nil {
			w.timer.Stop()
		}
		return
	}
	w.deadline = time.Now().Add(d)
	if w.timer == nil {
		w.timer = time.AfterFunc(d, w.expire)
	} else {
		w.timer.Reset(d)
	}
}

func (w *watch) touch() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.stopped || w.expired != nil {
		return
	}
	w.phase = PhaseIdle
	w.arm(w.limits.Idle)
}

func (w *watch) expire() {
	w.mu.Lock()
	// A read may have re-armed the timer just as it fired: then the new
	// deadline, not this firing, decides.
	if w.stopped || w.expired != nil || w.deadline.IsZero() || time.Now().Before(w.deadline) {
		w.mu.Unlock()
		return
	}
	limit := w.limits.FirstByte
	if w.phase == PhaseIdle {
		limit = w.limits.Idle
	}
	w.expired = &TimeoutError{Provider: w.provider, Phase: w.phase, Limit: limit}
	te := w.expired
	w.mu.Unlock()
	w.onExpire(te)
}

func (w *watch) fired() *TimeoutError {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.expired
}

func (w *watch) stop() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.stopped = true
	if w.timer != nil {
		w.timer.Stop()
	}
}

// attemptInfo is what the transport learnt about one attempt of a call,
// for HTTPCall.Stream to decide on a retry whatever the adapter made of it.
type attemptInfo struct {
	mu         sync.Mutex
	retryAfter time.Duration // what the last response asked, -1: nothing
	timeout    *TimeoutError // a limit that expired
	broken     bool          // the body broke off under a live request
}

type attemptKey struct{}

// attemptOf returns the attemptInfo ctx carries, or a throwaway one for a
// request made outside HTTPCall.Stream.
func attemptOf(ctx context.Context) *attemptInfo {
	if a, ok := ctx.Value(attemptKey{}).(*attemptInfo); ok {
		return a
	}
	return &attemptInfo{}
}

func (a *attemptInfo) response(resp *http.Response) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.retryAfter = retryAfter(resp.Header, time.Now())
}

func (a *attemptInfo) timedOut(te *TimeoutError) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.timeout = te
}

func (a *attemptInfo) cut() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.broken = true
}

func (a *attemptInfo) snapshot() (wait time.Duration, te *TimeoutError, broken bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.retryAfter, a.timeout, a.broken
}
