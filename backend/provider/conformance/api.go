package conformance

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/loopforge/loopforge/backend/provider"
)

// API is a fake provider API for a provider's own tests (its wire format,
// request shape, tool calls): it records every request and lets the test
// answer each attempt.
type API struct {
	*httptest.Server
	Attempts atomic.Int32
	requests
}

// requests records what reached a fake API: each request's headers and
// target, and its JSON body (nil where it has none).
type requests struct {
	mu      sync.Mutex
	bodies  []map[string]any
	headers []http.Header
	targets []string // path?query
}

func (q *requests) record(r *http.Request, body map[string]any) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.bodies = append(q.bodies, body)
	q.headers = append(q.headers, r.Header.Clone())
	q.targets = append(q.targets, r.URL.RequestURI())
}

// NewAPI starts an API whose attempt n (1-based) answer serves; it closes
// when the test ends. A request body that is not JSON fails the test.
func NewAPI(t *testing.T, answer func(w http.ResponseWriter, r *http.Request, attempt int)) *API {
	t.Helper()
	f := &API{}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := int(f.Attempts.Add(1))
		raw, _ := io.ReadAll(r.Body)
		var body map[string]any
		if err := json.Unmarshal(raw, &body); err != nil {
			t.Errorf("request body is not JSON: %v: %s", err, raw)
		}
		f.record(r, body)
		answer(w, r, n)
	}))
	t.Cleanup(f.Close)
	return f
}

// Header returns the headers of request i (0-based).
func (q *requests) Header(t *testing.T, i int) http.Header {
	t.Helper()
	q.mu.Lock()
	defer q.mu.Unlock()
	if i >= len(q.headers) {
		t.Fatalf("only %d requests reached the server", len(q.headers))
	}
	return q.headers[i]
}

// Targets returns the path and query of every request, in order.
func (q *requests) Targets() []string {
	q.mu.Lock()
	defer q.mu.Unlock()
	return slices.Clone(q.targets)
}

// Target returns the path and query of request i (0-based).
func (q *requests) Target(t *testing.T, i int) string {
	t.Helper()
	q.mu.Lock()
	defer q.mu.Unlock()
	if i >= len(q.targets) {
		t.Fatalf("only %d requests reached the server", len(q.targets))
	}
	return q.targets[i]
}

// LastBody returns the JSON body of the latest request.
func (q *requests) LastBody(t *testing.T) map[string]any {
	t.Helper()
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.bodies) == 0 {
		t.Fatal("no request reached the server")
	}
	return q.bodies[len(q.bodies)-1]
}

// Result is everything one call yielded.
type Result struct {
	Texts   []string
	Notices []string
	Done    *provider.Response
	Err     error
}

// Drain runs a call to its end, checking the contract's shape: text and
// notices, then one Done or one error, and nothing after either.
func Drain(t *testing.T, ctx context.Context, p provider.Provider, req provider.Request) Result {
	t.Helper()
	return drainWith(t, ctx, p, req, nil)
}

// drainWith is Drain running onNotice, if set, on each notice (possibly
// outside the test's goroutine).
func drainWith(t *testing.T, ctx context.Context, p provider.Provider, req provider.Request, onNotice func()) Result {
	t.Helper()
	var r Result
	for d, err := range p.Stream(ctx, req) {
		if r.Done != nil || r.Err != nil {
			t.Errorf("item after the end of the stream: %+v, %v", d, err)
			return r
		}
		switch {
		case err != nil:
			r.Err = err
		case d.Done != nil:
			r.Done = d.Done
		case d.Notice != "":
			r.Notices = append(r.Notices, d.Notice)
			if onNotice != nil {
				onNotice()
			}
		default:
			r.Texts = append(r.Texts, d.Text)
		}
	}
	return r
}

// ErrorCase is one failure told in a provider's own words (its API's error
// body) and what the provider must make of it: the error it wraps, the
// attempts it makes, the status and the words its message keeps.
type ErrorCase struct {
	name     string
	statuses []int // per attempt; past the end, the call succeeds
	body     string
	want     error // nil: the call succeeds after the retries
	attempts int32
	status   int
	words    []string
}

// Case builds an ErrorCase (a constructor, so a provider's table stays one
// line a case).
func Case(name string, statuses []int, body string, want error, attempts int32, status int, words ...string) ErrorCase {
	return ErrorCase{name, statuses, body, want, attempts, status, words}
}

// RunErrorCases checks each case against a server that answers its
// statuses with fail(w, status, body) and then streams "Hello, world": the
// error is classified, carries the status and the provider's name, keeps the
// API's words on one line and never shows the key.
func RunErrorCases(t *testing.T, w Wire, fail func(rw http.ResponseWriter, status int, body string), cases []ErrorCase) {
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := NewAPI(t, func(rw http.ResponseWriter, _ *http.Request, n int) {
				if n <= len(tt.statuses) {
					fail(rw, tt.statuses[n-1], tt.body)
					return
				}
				w.answer(rw, "Hello, ", "world")
			})
			p := w.Profile(f.URL)
			p.Retry = FastRetry()
			prov, err := w.New(p)
			if err != nil {
				t.Fatalf("New: %v", err)
			}
			tt.check(t, Drain(t, context.Background(), prov, hello), f.Attempts.Load(), p)
		})
	}
}

func (tt ErrorCase) check(t *testing.T, r Result, attempts int32, p provider.Profile) {
	t.Helper()
	if attempts != tt.attempts {
		t.Errorf("attempts = %d, want %d", attempts, tt.attempts)
	}
	if tt.want == nil {
		if r.Err != nil || r.Done == nil || r.Done.Content != "Hello, world" {
			t.Fatalf("want success after retry, got %v / %+v", r.Err, r.Done)
		}
		return
	}
	var pe *provider.Error
	if !errors.Is(r.Err, tt.want) || !errors.As(r.Err, &pe) || pe.Status != tt.status || pe.Provider != p.Name {
		t.Fatalf("err = %#v, want %v with status %d from %s", r.Err, tt.want, tt.status, p.Name)
	}
	msg := r.Err.Error()
	for _, w := range tt.words {
		if !strings.Contains(msg, w) {
			t.Errorf("message %q lacks %q", msg, w)
		}
	}
	if strings.Contains(msg, "\n") || strings.Contains(msg, p.APIKey) {
		t.Errorf("message %q spans lines or shows the key", msg)
	}
}
