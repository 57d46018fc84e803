package provider

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"
)

const testKey = "sk-test-0123456789"

var testCtx = func() ErrorContext {
	c := NewErrorContext("p", "P_API_KEY", "http://example.test/v1", testKey)
	c.Model = "m-1"
	return c
}()

func TestFromStatus(t *testing.T) {
	cause := errors.New("cause")
	tests := []struct {
		status  int
		kind    ErrorKind
		want    error
		wantEnv string
	}{
		{401, KindAuth, ErrAuth, "P_API_KEY"},
		{403, KindForbidden, ErrForbidden, ""},
		{429, KindRateLimit, ErrRateLimit, ""},
		{408, KindTimeout, ErrTimeout, ""},
		{500, KindServer, ErrServer, ""},
		{502, KindServer, ErrServer, ""},
		{503, KindServer, ErrServer, ""},
		{529, KindServer, ErrServer, ""},
		{400, KindBadRequest, ErrBadRequest, ""},
		{402, KindBadRequest, ErrBadRequest, ""},
		{404, KindBadRequest, ErrBadRequest, ""},
		{413, KindBadRequest, ErrBadRequest, ""},
		{422, KindBadRequest, ErrBadRequest, ""},
		{0, KindProtocol, ErrProtocol, ""},
		{200, KindProtocol, ErrProtocol, ""},
		{302, KindProtocol, ErrProtocol, ""},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.status), func(t *testing.T) {
			e := testCtx.FromStatus(tt.status, "\n  bad thing with "+testKey+"  \nsecond line", cause)
			if e.Kind != tt.kind || e.Status != tt.status || e.Provider != "p" || e.EnvVar != tt.wantEnv {
				t.Errorf("got %+v, want kind %s, env %q", e, tt.kind, tt.wantEnv)
			}
			if wantModel := map[bool]string{true: "m-1"}[tt.status == 403]; e.Model != wantModel {
				t.Errorf("Model = %q, want %q", e.Model, wantModel)
			}
			if e.Message != "bad thing with [redacted]" {
				t.Errorf("Message = %q", e.Message)
			}
			if !errors.Is(e, tt.want) || !errors.Is(e, cause) {
				t.Errorf("errors.Is(%v, %v / cause) = false", e, tt.want)
			}
		})
	}
}

// closedPort returns a URL nothing listens at.
func closedPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	u := "http://" + l.Addr().String() + "/v1"
	l.Close()
	return u
}

func TestFromTransportClosedPort(t *testing.T) {
	base := closedPort(t)
	resp, err := http.Post(base+"/chat", "application/json", strings.NewReader("{}"))
	if err == nil {
		resp.Body.Close()
		t.Fatal("request to a closed port succeeded")
	}
	e := NewErrorContext("local", "", base, "").FromTransport(err)
	if e.Kind != KindUnreachable || e.URL != base || !errors.Is(e, ErrUnreachable) || !errors.Is(e, err) {
		t.Fatalf("got %#v", e)
	}
	// The telling part only, not the whole "Post <url>: dial tcp ..." chain.
	refused := "connection refused"
	if runtime.GOOS == "windows" {
		refused = "actively refused" // Winsock's words
	}
	if !strings.Contains(e.Message, refused) || strings.Contains(e.Message, "Post") {
		t.Errorf("Message = %q", e.Message)
	}
	if msg := e.Error(); !strings.Contains(msg, "cannot reach "+base) {
		t.Errorf("Error() = %q does not name the URL", msg)
	}
}

func TestFromTransportTimeout(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { <-release }))
	defer srv.Close()
	defer close(release)

	client := &http.Client{Timeout: 50 * time.Millisecond}
	resp, err := client.Get(srv.URL)
	if err == nil {
		resp.Body.Close()
		t.Fatal("request did not time out")
	}
	e := testCtx.FromTransport(err)
	if e.Kind != KindTimeout || !errors.Is(e, ErrTimeout) || e.Message != "" {
		t.Errorf("got %#v", e)
	}
}

type timeoutErr struct{}

func (timeoutErr) Error() string   { return "i/o timeout" }
func (timeoutErr) Timeout() bool   { return true }
func (timeoutErr) Temporary() bool { return true }

func TestFromTransport(t *testing.T) {
	var syntaxErr error = &json.SyntaxError{}
	if err := json.Unmarshal([]byte("{oops"), new(any)); err != nil {
		syntaxErr = err
	}
	tests := []struct {
		name    string
		err     error
		kind    ErrorKind
		wantMsg string
	}{
		{"deadline", fmt.Errorf("read: %w", context.DeadlineExceeded), KindTimeout, ""},
		{"net timeout", &url.Error{Op: "Post", URL: "u", Err: timeoutErr{}}, KindTimeout, ""},
		{"dns", &url.Error{Op: "Post", URL: "u", Err: &net.OpError{Op: "dial", Net: "tcp",
			Err: &net.DNSError{Err: "no such host", Name: "nowhere.test"}}}, KindUnreachable, "lookup nowhere.test: no such host"},
		{"op error", &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connect: connection refused")},
			KindUnreachable, "connect: connection refused"},
		{"cut off", fmt.Errorf("reading body: %w", io.ErrUnexpectedEOF), KindUnreachable, ""},
		{"tls", &url.Error{Op: "Post", URL: "u", Err: errors.New("tls: failed to verify certificate")},
			KindUnreachable, "tls: failed to verify certificate"},
		{"not the wire format", fmt.Errorf("decoding event: %w\nmore", syntaxErr), KindProtocol,
			"decoding event: invalid character 'o' looking for beginning of object key string"},
		{"key echoed", errors.New("bad event " + testKey), KindProtocol, "bad event [redacted]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := testCtx.FromTransport(tt.err)
			if e.Kind != tt.kind || e.Message != tt.wantMsg || e.Provider != "p" || !errors.Is(e, tt.err) {
				t.Errorf("got kind %s, message %q; want %s, %q", e.Kind, e.Message, tt.kind, tt.wantMsg)
			}
			if wantURL := tt.kind == KindUnreachable; (e.URL != "") != wantURL {
				t.Errorf("URL = %q", e.URL)
			}
		})
	}
}

func TestFromContext(t *testing.T) {
	cause := errors.New("stream read failed")
	if err := testCtx.FromContext(context.Background(), cause); err != nil {
		t.Errorf("live ctx: %v, want nil", err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := testCtx.FromContext(ctx, cause)
	var pe *Error
	if !errors.Is(err, context.Canceled) || errors.As(err, &pe) || err.Error() != "p: call cancelled: context canceled" {
		t.Errorf("cancelled: %#v", err)
	}

	ctx, cancel = context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel()
	err = testCtx.FromContext(ctx, cause)
	if !errors.Is(err, ErrTimeout) || !errors.Is(err, cause) {
		t.Errorf("deadline: %#v", err)
	}
}

func TestInterrupted(t *testing.T) {
	live := context.Background()
	tests := []struct {
		name string
		ctx  context.Context
		err  error
		want error
		msg  string
	}{
		// loopforge's own words are never passed off as the provider's
		// (Message is quoted as "It said: …" in every language).
		{"the body ended early", live, nil, ErrStreamCut, ""},
		{"the connection dropped", live, fmt.Errorf("reading: %w", io.ErrUnexpectedEOF), io.ErrUnexpectedEOF, ""},
		{"reset by the peer", live, &net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}, syscall.ECONNRESET, "connection reset by peer"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := testCtx.Interrupted(tt.ctx, tt.err)
			var pe *Error
			if !errors.As(err, &pe) || pe.Kind != KindInterrupted || !errors.Is(err, tt.want) || pe.URL != testCtx.URL || pe.Message != tt.msg {
				t.Errorf("err = %#v", err)
			}
		})
	}
	// The read failed because the call ended: that is what is reported.
	ctx, cancel := context.WithCancel(live)
	cancel()
	if err := testCtx.Interrupted(ctx, errors.New("read on closed body")); !errors.Is(err, context.Canceled) || errors.Is(err, ErrInterrupted) {
		t.Errorf("cancelled: %v", err)
	}
	te := &TimeoutError{Provider: "p", Phase: PhaseIdle, Limit: time.Second}
	if err := testCtx.Interrupted(live, te); !errors.Is(err, ErrTimeout) || errors.Is(err, ErrInterrupted) {
		t.Errorf("idle limit: %v", err)
	}
	// A body that is not the wire format is no interruption.
	if err := testCtx.Interrupted(live, &Error{Provider: "p", Kind: KindProtocol}); !errors.Is(err, ErrProtocol) {
		t.Errorf("protocol: %v", err)
	}
}

func TestClean(t *testing.T) {
	long := strings.Repeat("é", maxMessage+50)
	tests := []struct {
		name, in, want string
	}{
		{"empty", "", ""},
		{"blank", " \n\t\n ", ""},
		{"one line", "  model not found  ", "model not found"},
		{"first non-empty line", "\n\n  <html>\n<h1>502</h1>\n", "<html>"},
		{"crlf", "first\r\nsecond", "first"},
		{"bounded in runes", long, strings.Repeat("é", maxMessage) + "…"},
		{"exactly the bound", long[:2*maxMessage], long[:2*maxMessage]},
		{"key redacted", "Incorrect API key provided: " + testKey + ".", "Incorrect API key provided: [redacted]."},
		{"key redacted before the cut", strings.Repeat("x", maxMessage-5) + testKey, strings.Repeat("x", maxMessage-5) + "[reda…"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := testCtx.Clean(tt.in)
			if got != tt.want {
				t.Errorf("Clean(%q) = %q, want %q", tt.in, got, tt.want)
			}
			if n := utf8.RuneCountInString(got); n > maxMessage+1 {
				t.Errorf("%d runes", n)
			}
		})
	}
	// The zero value cleans without redacting.
	if got := (ErrorContext{}).Clean(" a " + testKey + "\nb"); got != "a "+testKey {
		t.Errorf("zero ErrorContext: %q", got)
	}
}

func TestRedaction(t *testing.T) {
	tests := []struct {
		key, in, want string
	}{
		{testKey, "key " + testKey + " and again " + testKey, "key [redacted] and again [redacted]"},
		{testKey, "no key here", "no key here"},
		{"", "nothing to hide", "nothing to hide"},
		// A short key (a test placeholder) would only garble words.
		{"abc", "abcdef", "abcdef"},
		{"12345678", "id 12345678", "id [redacted]"},
	}
	for _, tt := range tests {
		if got := redactor(tt.key)(tt.in); got != tt.want {
			t.Errorf("redactor(%q)(%q) = %q, want %q", tt.key, tt.in, got, tt.want)
		}
		if got := NewErrorContext("p", "", "", tt.key).Clean(tt.in); got != tt.want {
			t.Errorf("Clean with key %q: %q, want %q", tt.key, got, tt.want)
		}
	}
	// A client that holds an ErrorContext can be printed safely.
	holder := struct{ errs ErrorContext }{testCtx}
	for _, verb := range []string{"%v", "%+v", "%#v"} {
		if s := fmt.Sprintf(verb, holder); strings.Contains(s, testKey) {
			t.Errorf("%s shows the key: %s", verb, s)
		}
	}
}

func TestBodyMessage(t *testing.T) {
	tests := []struct {
		name, body, want string
	}{
		{"openai", `{"error":{"message":"The model 'x' does not exist","type":"invalid_request_error","code":"model_not_found"}}`, "The model 'x' does not exist"},
		{"anthropic", `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`, "Overloaded"},
		{"error string", `{"error":"model 'x' not found"}`, "model 'x' not found"},
		{"top-level message", `{"message":"Not Found","documentation_url":"u"}`, "Not Found"},
		{"error object wins over message", `{"error":{"message":"inner"},"message":"outer"}`, "inner"},
		{"empty inner falls back to message", `{"error":{"message":""},"message":"outer"}`, "outer"},
		{"detail string", `{"detail":"Not authenticated"}`, "Not authenticated"},
		{"detail list", `{"detail":[{"loc":["body","model"],"msg":"field required"}]}`, `[{"loc":["body","model"],"msg":"field required"}]`},
		{"no known field", `{"status":"bad"}`, `{"status":"bad"}`},
		{"error of another type", `{"error":5}`, `{"error":5}`},
		{"plain text", "404 page not found\n", "404 page not found\n"},
		{"html", "<html><h1>502 Bad Gateway</h1></html>", "<html><h1>502 Bad Gateway</h1></html>"},
		{"json array", `["x"]`, `["x"]`},
		{"empty", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := BodyMessage([]byte(tt.body)); got != tt.want {
				t.Errorf("BodyMessage(%s) = %q, want %q", tt.body, got, tt.want)
			}
		})
	}
}
