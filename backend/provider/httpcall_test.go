package provider

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name   string
		header map[string]string
		want   time.Duration
	}{
		{"none", nil, -1},
		{"seconds", map[string]string{"Retry-After": "3"}, 3 * time.Second},
		{"zero", map[string]string{"Retry-After": "0"}, 0},
		{"fraction", map[string]string{"Retry-After": "1.5"}, 1500 * time.Millisecond},
		{"HTTP date", map[string]string{"Retry-After": now.Add(90 * time.Second).Format(http.TimeFormat)}, 90 * time.Second},
		{"HTTP date in the past", map[string]string{"Retry-After": now.Add(-time.Hour).Format(http.TimeFormat)}, 0},
		{"garbage", map[string]string{"Retry-After": "soon"}, -1},
		{"negative", map[string]string{"Retry-After": "-4"}, -1},
		{"milliseconds win", map[string]string{"Retry-After": "7", "Retry-After-Ms": "250"}, 250 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := http.Header{}
			for k, v := range tt.header {
				h.Set(k, v)
			}
			if got := retryAfter(h, now); got != tt.want {
				t.Errorf("retryAfter = %s, want %s", got, tt.want)
			}
		})
	}
}

func TestBackoffGrowsWithinBounds(t *testing.T) {
	p := RetryPolicy{MaxRetries: 6, BaseDelay: time.Second, MaxDelay: 8 * time.Second}
	for n := 1; n <= 6; n++ {
		full := min(time.Second<<(n-1), 8*time.Second)
		for range 50 {
			if d := p.backoff(n); d < full/2 || d > full {
				t.Fatalf("backoff(%d) = %s, want within [%s, %s]", n, d, full/2, full)
			}
		}
	}
}

func TestTransient(t *testing.T) {
	tests := []struct {
		name   string
		err    error
		broken bool
		want   string
	}{
		{"429", &Error{Kind: KindRateLimit, Status: 429}, false, "rate limited (HTTP 429)"},
		{"rate limit event", &Error{Kind: KindRateLimit}, false, "rate limited"},
		{"503", &Error{Kind: KindServer, Status: 503}, false, "server error (HTTP 503)"},
		{"408", &Error{Kind: KindTimeout, Status: 408}, false, "request timeout (HTTP 408)"},
		{"cut stream", &Error{Kind: KindProtocol, Err: ErrStreamCut}, false, "the connection closed before the answer began"},
		{"broken body", &Error{Kind: KindUnreachable, Err: errors.New("x")}, true, "the connection closed before the answer began"},
		{"unexpected EOF", &Error{Kind: KindUnreachable, Err: io.ErrUnexpectedEOF}, false, "the connection closed before the answer began"},
		{"reset", &Error{Kind: KindUnreachable, Err: fmt.Errorf("read: %w", syscall.ECONNRESET)}, false, "the connection closed before the answer began"},
		{"reset (Windows)", &Error{Kind: KindUnreachable, Err: fmt.Errorf("wsarecv: %w", wsaConnReset)}, false, "the connection closed before the answer began"},
		{"refused", &Error{Kind: KindUnreachable, Err: syscall.ECONNREFUSED}, false, ""},
		{"401", &Error{Kind: KindAuth, Status: 401}, false, ""},
		{"403", &Error{Kind: KindForbidden, Status: 403}, false, ""},
		{"400", &Error{Kind: KindBadRequest, Status: 400}, false, ""},
		{"404 with a broken body", &Error{Kind: KindBadRequest, Status: 404}, true, ""},
		{"our time limit", &Error{Kind: KindTimeout, Err: &TimeoutError{Phase: PhaseIdle}}, false, ""},
		{"malformed stream", &Error{Kind: KindProtocol, Message: "not JSON"}, false, ""},
		{"cancelled", fmt.Errorf("p: call cancelled: %w", context.Canceled), false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, reason := transient(tt.err, tt.broken)
			if got != tt.want || (reason == "") != (tt.want == "") {
				t.Errorf("transient = %q, %q; want %q", got, reason, tt.want)
			}
		})
	}
}

// scripted is an Attempt whose n-th run (0-based) yields script[n].
func scripted(script ...[]Delta) (Attempt, *int) {
	runs := new(int)
	return func(context.Context) iter.Seq2[Delta, error] {
		return func(yield func(Delta, error) bool) {
			n := *runs
			*runs++
			for _, d := range script[min(n, len(script)-1)] {
				if d.Notice == "fail" {
					yield(Delta{}, &Error{Provider: "p", Kind: KindServer, Status: 503})
					return
				}
				if !yield(d, nil) {
					return
				}
			}
		}
	}, runs
}

var (
	fail = Delta{Notice: "fail"} // in a script: the attempt fails with a 503
	done = Delta{Done: &Response{Content: "ok"}}
)

func collect(seq iter.Seq2[Delta, error]) (texts, notices []string, final *Response, err error) {
	for d, e := range seq {
		switch {
		case e != nil:
			err = e
		case d.Done != nil:
			final = d.Done
		case d.Notice != "":
			notices = append(notices, d.Notice)
		default:
			texts = append(texts, d.Text)
		}
	}
	return
}

func fastCall(p Profile) *HTTPCall {
	p.Retry = &RetryPolicy{MaxRetries: 3, BaseDelay: time.Microsecond, MaxDelay: time.Microsecond, MaxServerWait: time.Minute}
	return NewHTTPCall("p", p)
}

func TestStreamRetriesBeforeTextOnly(t *testing.T) {
	t.Run("a failure before text is retried", func(t *testing.T) {
		attempt, runs := scripted([]Delta{fail}, []Delta{{Text: "ok"}, done})
		texts, notices, final, err := collect(fastCall(Profile{}).Stream(context.Background(), attempt))
		if err != nil || final == nil || *runs != 2 || len(texts) != 1 {
			t.Fatalf("err %v, final %v, %d runs, texts %q", err, final, *runs, texts)
		}
		if len(notices) != 1 || !strings.HasPrefix(notices[0], "p: server error (HTTP 503), retrying in ") ||
			!strings.HasSuffix(notices[0], "(retry 1/3)") {
			t.Errorf("notices = %q", notices)
		}
		// The same notice as data, for the app to word.
		attempt, _ = scripted([]Delta{fail}, []Delta{{Text: "ok"}, done})
		for d := range fastCall(Profile{}).Stream(context.Background(), attempt) {
			if d.Notice != "" {
				if r := d.Retry; r == nil || r.Reason != ReasonServer || r.Status != 503 || r.N != 1 || r.Max != 3 {
					t.Errorf("retry %+v", d.Retry)
				}
				break
			}
		}
	})
	t.Run("a failure after text is final", func(t *testing.T) {
		attempt, runs := scripted([]Delta{{Text: "par"}, fail}, []Delta{{Text: "ok"}, done})
		texts, notices, _, err := collect(fastCall(Profile{}).Stream(context.Background(), attempt))
		var pe *Error
		if !errors.As(err, &pe) || pe.Attempts != 0 || *runs != 1 || len(texts) != 1 || len(notices) != 0 {
			t.Errorf("err %v, %d runs, texts %q, notices %q", err, *runs, texts, notices)
		}
	})
	t.Run("the bound is MaxRetries retries", func(t *testing.T) {
		attempt, runs := scripted([]Delta{fail})
		_, notices, _, err := collect(fastCall(Profile{}).Stream(context.Background(), attempt))
		var pe *Error
		if !errors.As(err, &pe) || pe.Attempts != 4 || *runs != 4 || len(notices) != 3 {
			t.Errorf("err %v, %d runs, notices %q", err, *runs, notices)
		}
	})
	t.Run("stopping at a notice stops the call", func(t *testing.T) {
		attempt, runs := scripted([]Delta{fail})
		for d := range fastCall(Profile{}).Stream(context.Background(), attempt) {
			if d.Notice == "" {
				t.Errorf("got %+v before the notice", d)
			}
			break
		}
		if *runs != 1 {
			t.Errorf("%d runs after the consumer stopped", *runs)
		}
	})
}

func TestStreamOverallLimit(t *testing.T) {
	t.Run("bounds an attempt", func(t *testing.T) {
		hang := func(ctx context.Context) iter.Seq2[Delta, error] {
			return func(yield func(Delta, error) bool) {
				<-ctx.Done()
				yield(Delta{}, (ErrorContext{Provider: "p"}).FromContext(ctx, ctx.Err()))
			}
		}
		_, _, _, err := collect(fastCall(Profile{Timeout: 20 * time.Millisecond}).Stream(context.Background(), hang))
		var te *TimeoutError
		if !errors.Is(err, ErrTimeout) || !errors.As(err, &te) || te.Phase != PhaseOverall || te.Limit != 20*time.Millisecond {
			t.Errorf("err = %v, want the overall limit", err)
		}
	})
	t.Run("no wait that would outlast it", func(t *testing.T) {
		asks := func(context.Context) iter.Seq2[Delta, error] {
			return func(yield func(Delta, error) bool) {
				yield(Delta{}, &Error{Provider: "p", Kind: KindRateLimit, Status: 429, RetryAfter: 30 * time.Second})
			}
		}
		_, notices, _, err := collect(fastCall(Profile{Timeout: time.Second}).Stream(context.Background(), asks))
		if !errors.Is(err, ErrRateLimit) || len(notices) != 0 {
			t.Errorf("err %v, notices %q: want the 429 at once", err, notices)
		}
	})
	t.Run("the caller's deadline is not ours", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		defer cancel()
		hang := func(ctx context.Context) iter.Seq2[Delta, error] {
			return func(yield func(Delta, error) bool) {
				<-ctx.Done()
				yield(Delta{}, (ErrorContext{Provider: "p"}).FromContext(ctx, ctx.Err()))
			}
		}
		_, _, _, err := collect(fastCall(Profile{}).Stream(ctx, hang))
		var te *TimeoutError
		if !errors.Is(err, context.DeadlineExceeded) || errors.As(err, &te) {
			t.Errorf("err = %v, want the caller's deadline", err)
		}
	})
}

func TestLimitsOf(t *testing.T) {
	def := LimitsOf(Profile{})
	if def != (Limits{FirstByte: DefaultFirstByteTimeout, Idle: DefaultIdleTimeout, Overall: DefaultCallTimeout}) {
		t.Errorf("defaults = %+v", def)
	}
	set := LimitsOf(Profile{FirstByteTimeout: time.Second, IdleTimeout: 2 * time.Second, Timeout: 3 * time.Second})
	if set != (Limits{FirstByte: time.Second, Idle: 2 * time.Second, Overall: 3 * time.Second}) {
		t.Errorf("profile limits = %+v", set)
	}
}
