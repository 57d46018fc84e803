package provider

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"log/slog"
	"net/http"
	"time"
)

// HTTPCall runs the calls of one HTTP profile, the same way for every API
// adapter: the http.Client behind PostJSON enforces the first-byte and
// idle limits; it bounds each call by the overall limit, and retries
// transient failures, telling the user each time with a Notice delta. It is
// the only retry layer. An HTTPCall is safe for concurrent use.
type HTTPCall struct {
	provider string
	limits   Limits
	retry    RetryPolicy
	client   *http.Client
}

// NewHTTPCall returns the HTTPCall of profile p, named name in messages.
func NewHTTPCall(name string, p Profile) *HTTPCall {
	retry := DefaultRetry()
	if p.Retry != nil {
		retry = *p.Retry
	}
	l := LimitsOf(p)
	return &HTTPCall{
		provider: name,
		limits:   l,
		retry:    retry,
		client:   &http.Client{Transport: &watchTransport{next: http.DefaultTransport, provider: name, limits: l}},
	}
}

// Limits are the call's limits, defaults applied.
func (c *HTTPCall) Limits() Limits { return c.limits }

// Attempt sends a call once and streams its answer, following the Provider
// contract. Its HTTP requests must go through PostJSON with ctx.
type Attempt func(ctx context.Context) iter.Seq2[Delta, error]

// Stream runs attempt until it succeeds, fails for good, or yields text.
// A transient failure before any text (see transient) is retried after a
// backoff, or after what the server asked with Retry-After, up to
// RetryPolicy.MaxRetries times; each retry is announced by a Delta whose
// Notice says why and when. Once text has been yielded nothing is retried:
// the user would see it twice. A call that exceeds a limit ends with an
// *Error of KindTimeout wrapping a *TimeoutError; one that failed after
// retries names the number of attempts (Error.Attempts).
func (c *HTTPCall) Stream(ctx context.Context, attempt Attempt) iter.Seq2[Delta, error] {
	return func(yield func(Delta, error) bool) {
		callCtx := ctx
		if c.limits.Overall > 0 {
			var cancel context.CancelFunc
			callCtx, cancel = context.WithTimeoutCause(ctx, c.limits.Overall,
				&TimeoutError{Provider: c.provider, Phase: PhaseOverall, Limit: c.limits.Overall})
			defer cancel()
		}
		// spent counts the tokens the API reported for failed attempts:
		// they were processed, and join the call's usage.
		var spent Usage
		for n := 1; ; n++ {
			info := &attemptInfo{retryAfter: -1}
			texted, stop, err := c.once(context.WithValue(callCtx, attemptKey{}, info), attempt, spent, yield)
			if stop || err == nil {
				return
			}
			partial := PartialOf(err)
			err = c.explain(ctx, callCtx, info, err)
			wait, notice := c.plan(callCtx, n, texted, info, err)
			if notice.Notice == "" {
				var pe *Error
				if n > 1 && errors.As(err, &pe) {
					pe.Attempts = n
				}
				yield(Delta{}, withSpent(err, partial, spent))
				return
			}
			if partial != nil {
				spent = spent.Add(partial.Usage)
			}
			slog.Info("provider retry", "provider", c.provider, "notice", notice.Notice, "cause", err)
			if !yield(notice, nil) {
				return
			}
			if sleep(callCtx, wait) != nil {
				yield(Delta{}, c.interrupted(ctx, callCtx))
				return
			}
		}
	}
}

// once runs one attempt, passing its deltas on, the usage of earlier
// failed attempts (spent) added to its final answer's. It returns whether
// any text was passed on, whether the consumer stopped, and the attempt's
// error.
func (c *HTTPCall) once(ctx context.Context, attempt Attempt, spent Usage, yield func(Delta, error) bool) (texted, stop bool, err error) {
	for d, err := range attempt(ctx) {
		if err != nil {
			return texted, false, err
		}
		texted = texted || d.Text != ""
		if d.Done != nil {
			d.Done.Usage = d.Done.Usage.Add(spent)
		}
		if !yield(d, nil) {
			return texted, true, nil
		}
	}
	return texted, false, nil
}

// withSpent is the call's final error: err (which explain may have
// replaced) carrying what the last attempt delivered, partial, with the
// tokens of the earlier failed attempts added.
func withSpent(err error, partial *Response, spent Usage) error {
	if partial == nil {
		partial = &Response{}
	}
	got := *partial
	got.Usage = got.Usage.Add(spent)
	if p := PartialOf(err); p != nil {
		p.Usage = got.Usage
		return err
	}
	return WithPartial(err, &got)
}

// plan decides whether attempt n, which failed with err, is retried: it
// returns the wait and the notice announcing it, or no notice when the call
// fails now. It records on err what the server asked (Error.RetryAfter).
func (c *HTTPCall) plan(callCtx context.Context, n int, texted bool, info *attemptInfo, err error) (time.Duration, Delta) {
	asked, _, broken := info.snapshot()
	why, reason := transient(err, broken)
	if why == "" || texted || n > c.retry.MaxRetries {
		return 0, Delta{}
	}
	var pe *Error
	errors.As(err, &pe) // transient found one
	if pe.RetryAfter > 0 {
		asked = pe.RetryAfter // from the body (Gemini's RetryInfo)
	}
	wait := c.retry.backoff(n)
	if asked >= 0 {
		wait = asked
		if c.retry.MaxServerWait > 0 && asked > c.retry.MaxServerWait {
			pe.RetryAfter = asked
			return 0, Delta{}
		}
	}
	if deadline, ok := callCtx.Deadline(); ok && time.Until(deadline) < wait {
		return 0, Delta{} // the wait alone would exceed the call's limit
	}
	when := "now"
	if wait > 0 {
		when = "in " + humanDelay(wait)
	}
	return wait, Delta{Notice: fmt.Sprintf("%s: %s, retrying %s (retry %d/%d)", c.provider, why, when, n, c.retry.MaxRetries),
		Retry: &RetryNotice{Provider: c.provider, Reason: reason, Status: pe.Status, Wait: wait, N: n, Max: c.retry.MaxRetries}}
}

// explain replaces err by the limit that caused it, if one did: a
// first-byte or idle limit the transport saw expire, or the overall limit.
func (c *HTTPCall) explain(ctx, callCtx context.Context, info *attemptInfo, err error) error {
	if _, te, _ := info.snapshot(); te != nil {
		return &Error{Provider: c.provider, Kind: KindTimeout, Err: te}
	}
	if te := c.overall(ctx, callCtx); te != nil {
		return te
	}
	return err
}

// overall returns the overall limit's error when that limit ended callCtx
// (and not the caller, whose ctx is then still live).
func (c *HTTPCall) overall(ctx, callCtx context.Context) error {
	var te *TimeoutError
	if callCtx.Err() != nil && ctx.Err() == nil && errors.As(context.Cause(callCtx), &te) {
		return &Error{Provider: c.provider, Kind: KindTimeout, Err: te}
	}
	return nil
}

// interrupted says why a wait between attempts was cut short: the overall
// limit, or the caller's ctx (cancelled, or past its own deadline).
func (c *HTTPCall) interrupted(ctx, callCtx context.Context) error {
	if err := c.overall(ctx, callCtx); err != nil {
		return err
	}
	return (ErrorContext{Provider: c.provider}).FromContext(ctx, ctx.Err())
}

// sleep waits d or until ctx ends, whichever comes first.
func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
