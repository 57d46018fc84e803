// Package conformance is the shared test suite of the HTTP providers
// (openai, anthropic, gemini): time limits, retries and the mapping of HTTP
// errors, checked the same way for each against a local httptest server
// that speaks the provider's own wire format (described by a Wire). Each
// provider's tests call Run. It is imported by tests only.
package conformance

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/loopforge/loopforge/backend/provider"
)

// Wire tells the suite how to build the provider under test and how its API
// streams. Every writer flushes what it wrote.
type Wire struct {
	// New builds the provider.
	New provider.Factory
	// Profile is a usable profile (key set) whose base URL is baseURL.
	Profile func(baseURL string) provider.Profile
	// Begin writes the status, the headers and whatever the stream sends
	// before its first text (no text itself).
	Begin func(w http.ResponseWriter)
	// Text writes one event carrying the text s.
	Text func(w http.ResponseWriter, s string)
	// End writes the events that complete an answer.
	End func(w http.ResponseWriter)
	// Error answers status with the API's error body carrying msg. Headers
	// the suite set before (Retry-After) must be kept.
	Error func(w http.ResponseWriter, status int, msg string)
}

// FastRetry is the retry policy of the suite's profiles: the default number
// of retries, with millisecond backoffs. Each call returns a new one, for a
// profile's Retry to point to.
func FastRetry() *provider.RetryPolicy {
	return &provider.RetryPolicy{
		MaxRetries:    provider.DefaultRetry().MaxRetries,
		BaseDelay:     time.Millisecond,
		MaxDelay:      4 * time.Millisecond,
		MaxServerWait: time.Minute,
	}
}

// handler answers attempt n (1-based) of a call.
type handler func(w http.ResponseWriter, r *http.Request, n int)

// server is a fake API that counts attempts and reports requests whose
// client went away.
type server struct {
	*httptest.Server
	attempts atomic.Int32
	gone     chan struct{} // receives once per request that saw its client leave
}

func newServer(t *testing.T, h handler) *server {
	t.Helper()
	s := &server{gone: make(chan struct{}, 16)}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Reading the whole request lets the server notice when the client
		// goes away (r.Context() ends).
		_, _ = io.Copy(io.Discard, r.Body)
		h(w, r, int(s.attempts.Add(1)))
	}))
	t.Cleanup(s.Close)
	return s
}

// hold keeps a request open until its client goes away (the fake server's
// only way to be slow), then reports it.
func (s *server) hold(r *http.Request) {
	select {
	case <-r.Context().Done():
		s.gone <- struct{}{}
	case <-time.After(time.Minute):
	}
}

// waitGone fails the test unless the server saw a request end.
func (s *server) waitGone(t *testing.T) {
	t.Helper()
	select {
	case <-s.gone:
	case <-time.After(10 * time.Second):
		t.Error("the server never saw the request end: the call was not released")
	}
}

// result is everything one call yielded.
type result struct {
	texts   []string
	notices []string
	done    *provider.Response
	err     error
}

// drain runs the stream to its end, checking the contract's shape: text and
// notices, then one Done or one error, and nothing after either. onNotice,
// if set, runs on each notice. It may run outside the test's goroutine.
func drain(t *testing.T, ctx context.Context, p provider.Provider, onNotice func()) result {
	t.Helper()
	var r result
	req := provider.Request{Messages: []provider.Message{{Role: provider.RoleUser, Content: "Say hello."}}}
	for d, err := range p.Stream(ctx, req) {
		if r.done != nil || r.err != nil {
			t.Errorf("item after the end of the stream: %+v, %v", d, err)
			return r
		}
		switch {
		case err != nil:
			r.err = err
		case d.Done != nil:
			r.done = d.Done
		case d.Notice != "":
			r.notices = append(r.notices, d.Notice)
			if onNotice != nil {
				onNotice()
			}
		default:
			r.texts = append(r.texts, d.Text)
		}
	}
	return r
}

// Run runs the suite against w.
func Run(t *testing.T, w Wire) {
	t.Run("limits", func(t *testing.T) { t.Parallel(); runLimits(t, w) })
	t.Run("retries", func(t *testing.T) { t.Parallel(); runRetries(t, w) })
	t.Run("errors", func(t *testing.T) { t.Parallel(); runErrors(t, w) })
}

func (w Wire) provider(t *testing.T, s *server, edit func(*provider.Profile)) provider.Provider {
	t.Helper()
	p := w.Profile(s.URL)
	p.Retry = FastRetry()
	if edit != nil {
		edit(&p)
	}
	prov, err := w.New(p)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return prov
}

func (w Wire) answer(rw http.ResponseWriter, texts ...string) {
	w.Begin(rw)
	for _, s := range texts {
		w.Text(rw, s)
	}
	w.End(rw)
}

// timeoutOf returns the *TimeoutError err carries, failing the test unless
// err is a provider *Error of KindTimeout that says which key to raise.
func timeoutOf(t *testing.T, err error) *provider.TimeoutError {
	t.Helper()
	var te *provider.TimeoutError
	var pe *provider.Error
	if !errors.Is(err, provider.ErrTimeout) || !errors.As(err, &te) || !errors.As(err, &pe) {
		t.Fatalf("err = %v, want a *provider.Error wrapping a *provider.TimeoutError", err)
	}
	if msg := err.Error(); !strings.Contains(msg, te.Key()) || !strings.Contains(msg, te.Limit.String()) {
		t.Errorf("message %q does not name the limit (%s) and its key %s", msg, te.Limit, te.Key())
	}
	return te
}

func runLimits(t *testing.T, w Wire) {
	const short = 150 * time.Millisecond
	tests := []struct {
		name   string
		serve  func(s *server, rw http.ResponseWriter, r *http.Request)
		limits func(p *provider.Profile)
		phase  provider.TimeoutPhase
		limit  time.Duration
		texts  int
	}{
		{"never answers",
			func(s *server, _ http.ResponseWriter, r *http.Request) { s.hold(r) },
			func(p *provider.Profile) { p.FirstByteTimeout = short },
			provider.PhaseFirstByte, short, 0},
		{"headers then silence",
			func(s *server, rw http.ResponseWriter, r *http.Request) {
				rw.Header().Set("Content-Type", "text/event-stream")
				rw.WriteHeader(http.StatusOK)
				rw.(http.Flusher).Flush()
				s.hold(r)
			},
			func(p *provider.Profile) { p.FirstByteTimeout = short },
			provider.PhaseFirstByte, short, 0},
		{"silence after the first text",
			func(s *server, rw http.ResponseWriter, r *http.Request) {
				w.Begin(rw)
				w.Text(rw, "par")
				s.hold(r)
			},
			func(p *provider.Profile) { p.IdleTimeout = short },
			provider.PhaseIdle, short, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var s *server
			s = newServer(t, func(rw http.ResponseWriter, r *http.Request, _ int) { tt.serve(s, rw, r) })
			r := drain(t, context.Background(), w.provider(t, s, tt.limits), nil)
			te := timeoutOf(t, r.err)
			if te.Phase != tt.phase || te.Limit != tt.limit {
				t.Errorf("timeout = %+v, want phase %q, limit %s", te, tt.phase, tt.limit)
			}
			if len(r.texts) != tt.texts || len(r.notices) != 0 || s.attempts.Load() != 1 {
				t.Errorf("texts %q, notices %q, %d attempts: a time limit is not retried", r.texts, r.notices, s.attempts.Load())
			}
			s.waitGone(t)
		})
	}

	t.Run("a slow live stream never trips the idle limit", func(t *testing.T) {
		t.Parallel()
		// Chunks every idle/20 for longer than the idle limit: only the
		// overall ceiling may end the call.
		const idle, overall = time.Second, 2500 * time.Millisecond
		var s *server
		s = newServer(t, func(rw http.ResponseWriter, r *http.Request, _ int) {
			w.Begin(rw)
			for {
				w.Text(rw, "tick ")
				select {
				case <-r.Context().Done():
					s.gone <- struct{}{}
					return
				case <-time.After(idle / 20):
				}
			}
		})
		p := w.provider(t, s, func(p *provider.Profile) { p.IdleTimeout, p.Timeout = idle, overall })
		r := drain(t, context.Background(), p, nil)
		te := timeoutOf(t, r.err)
		if te.Phase != provider.PhaseOverall || te.Limit != overall {
			t.Errorf("timeout = %+v, want the overall limit %s", te, overall)
		}
		if len(r.texts) == 0 || len(r.notices) != 0 || s.attempts.Load() != 1 {
			t.Errorf("%d texts, notices %q, %d attempts", len(r.texts), r.notices, s.attempts.Load())
		}
		s.waitGone(t)
	})

	t.Run("defaults apply when the profile sets none", func(t *testing.T) {
		t.Parallel()
		s := newServer(t, func(rw http.ResponseWriter, _ *http.Request, _ int) { w.answer(rw, "hi") })
		prov := w.provider(t, s, nil)
		l, ok := prov.(interface{ Limits() provider.Limits })
		if !ok {
			t.Fatalf("%T has no Limits method", prov)
		}
		want := provider.Limits{FirstByte: provider.DefaultFirstByteTimeout, Idle: provider.DefaultIdleTimeout, Overall: provider.DefaultCallTimeout}
		if got := l.Limits(); got != want {
			t.Errorf("Limits() = %+v, want %+v", got, want)
		}
	})
}

func runRetries(t *testing.T, w Wire) {
	// fail answers the first n attempts with status (Retry-After: after,
	// when set), then a complete answer.
	fail := func(n, status int, after string) handler {
		return func(rw http.ResponseWriter, _ *http.Request, i int) {
			if i > n {
				w.answer(rw, "Hel", "lo")
				return
			}
			if after != "" {
				rw.Header().Set("Retry-After", after)
			}
			w.Error(rw, status, "try again later")
		}
	}
	tests := []struct {
		name     string
		h        handler
		attempts int32
		notices  []string // each must appear in its notice, in order
	}{
		{"429 with Retry-After 0", fail(1, 429, "0"), 2,
			[]string{"rate limited (HTTP 429), retrying now (retry 1/3)"}},
		{"429 with Retry-After 1", fail(1, 429, "1"), 2,
			[]string{"rate limited (HTTP 429), retrying in 1s (retry 1/3)"}},
		{"503 twice", fail(2, 503, ""), 3,
			[]string{"server error (HTTP 503), retrying in ", "(retry 2/3)"}},
		{"stream ends before any text", func(rw http.ResponseWriter, _ *http.Request, i int) {
			if i == 1 {
				w.Begin(rw)
				return
			}
			w.answer(rw, "Hel", "lo")
		}, 2, []string{"the connection closed before the answer began, retrying in "}},
		{"connection broken before any text", func(rw http.ResponseWriter, _ *http.Request, i int) {
			if i == 1 {
				w.Begin(rw)
				panic(http.ErrAbortHandler) // the server drops the connection
			}
			w.answer(rw, "Hel", "lo")
		}, 2, []string{"the connection closed before the answer began, retrying in "}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newServer(t, tt.h)
			prov := w.provider(t, s, nil)
			r := drain(t, context.Background(), prov, nil)
			if r.err != nil || r.done == nil || r.done.Content != "Hello" {
				t.Fatalf("want success after a retry, got %v / %+v", r.err, r.done)
			}
			if got := s.attempts.Load(); got != tt.attempts {
				t.Errorf("%d attempts, want %d", got, tt.attempts)
			}
			if len(r.notices) != int(tt.attempts-1) {
				t.Fatalf("notices %q, want one per retry", r.notices)
			}
			joined := strings.Join(r.notices, "\n")
			for _, want := range tt.notices {
				if !strings.Contains(joined, want) {
					t.Errorf("notices %q lack %q", r.notices, want)
				}
			}
			if !strings.HasPrefix(r.notices[0], prov.Name()+": ") {
				t.Errorf("notice %q does not name the profile", r.notices[0])
			}
		})
	}

	t.Run("500 every time fails after the bound", func(t *testing.T) {
		t.Parallel()
		s := newServer(t, fail(100, 500, ""))
		r := drain(t, context.Background(), w.provider(t, s, nil), nil)
		want := int32(FastRetry().MaxRetries + 1)
		var pe *provider.Error
		if !errors.Is(r.err, provider.ErrServer) || !errors.As(r.err, &pe) || pe.Status != 500 || pe.Attempts != int(want) {
			t.Fatalf("err = %#v, want ErrServer (HTTP 500) after %d attempts", r.err, want)
		}
		// Exactly one retry layer: the SDK's own retries would multiply
		// the attempts.
		if got := s.attempts.Load(); got != want || len(r.notices) != int(want-1) {
			t.Errorf("%d attempts, notices %q; want %d attempts", got, r.notices, want)
		}
		if msg := r.err.Error(); !strings.Contains(msg, "after 4 attempts") || !strings.Contains(msg, "try again later") {
			t.Errorf("message %q should name the attempts and what the server said", msg)
		}
	})

	t.Run("text already streamed is never retried", func(t *testing.T) {
		t.Parallel()
		s := newServer(t, func(rw http.ResponseWriter, _ *http.Request, _ int) {
			w.Begin(rw)
			w.Text(rw, "par")
		})
		r := drain(t, context.Background(), w.provider(t, s, nil), nil)
		if r.err == nil || len(r.texts) != 1 || len(r.notices) != 0 || s.attempts.Load() != 1 {
			t.Errorf("err %v, texts %q, notices %q, %d attempts; want one failed attempt",
				r.err, r.texts, r.notices, s.attempts.Load())
		}
	})

	t.Run("a Retry-After beyond the cap fails at once", func(t *testing.T) {
		t.Parallel()
		s := newServer(t, fail(100, 429, "3600"))
		r := drain(t, context.Background(), w.provider(t, s, nil), nil)
		var pe *provider.Error
		if !errors.Is(r.err, provider.ErrRateLimit) || !errors.As(r.err, &pe) || pe.RetryAfter != time.Hour {
			t.Fatalf("err = %#v, want ErrRateLimit asking for an hour", r.err)
		}
		if s.attempts.Load() != 1 || len(r.notices) != 0 || !strings.Contains(r.err.Error(), "asks to wait 1h0m0s") {
			t.Errorf("%d attempts, notices %q, message %q", s.attempts.Load(), r.notices, r.err)
		}
	})

	t.Run("cancelling during the wait ends the call", func(t *testing.T) {
		t.Parallel()
		s := newServer(t, fail(100, 429, "30"))
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		prov := w.provider(t, s, nil)
		got := make(chan result, 1)
		go func() { got <- drain(t, ctx, prov, cancel) }()
		select {
		case r := <-got:
			if !errors.Is(r.err, context.Canceled) || len(r.notices) != 1 || s.attempts.Load() != 1 {
				t.Errorf("err %v, notices %q, %d attempts; want cancelled during the first wait",
					r.err, r.notices, s.attempts.Load())
			}
		case <-time.After(15 * time.Second):
			t.Fatal("the wait before a retry ignored the cancellation")
		}
	})
}

func runErrors(t *testing.T, w Wire) {
	tests := []struct {
		status  int
		want    error
		notWant error
		words   []string
	}{
		{401, provider.ErrAuth, provider.ErrForbidden, []string{"API key was rejected", "HTTP 401"}},
		{403, provider.ErrForbidden, provider.ErrAuth, []string{"no access to model", "HTTP 403", "was accepted"}},
		{400, provider.ErrBadRequest, nil, []string{"request rejected", "HTTP 400"}},
		{404, provider.ErrBadRequest, nil, []string{"request rejected", "HTTP 404"}},
	}
	for _, tt := range tests {
		t.Run(http.StatusText(tt.status), func(t *testing.T) {
			t.Parallel()
			s := newServer(t, func(rw http.ResponseWriter, _ *http.Request, _ int) {
				w.Error(rw, tt.status, "the server's own words")
			})
			prov := w.provider(t, s, nil)
			r := drain(t, context.Background(), prov, nil)
			if !errors.Is(r.err, tt.want) || (tt.notWant != nil && errors.Is(r.err, tt.notWant)) {
				t.Fatalf("err = %v, want %v only", r.err, tt.want)
			}
			var pe *provider.Error
			if !errors.As(r.err, &pe) || pe.Status != tt.status || pe.Provider != prov.Name() {
				t.Fatalf("err = %#v", r.err)
			}
			if s.attempts.Load() != 1 || len(r.notices) != 0 {
				t.Errorf("%d attempts, notices %q: HTTP %d must not be retried", s.attempts.Load(), r.notices, tt.status)
			}
			msg := r.err.Error()
			words := append(tt.words, "the server's own words")
			if tt.status == 403 {
				words = append(words, w.Profile(s.URL).Model)
			}
			for _, word := range words {
				if !strings.Contains(msg, word) {
					t.Errorf("message %q lacks %q", msg, word)
				}
			}
		})
	}
}
