package service

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/loopforge/loopforge/backend/config"
	"github.com/loopforge/loopforge/backend/event"
	"github.com/loopforge/loopforge/backend/export"
	"github.com/loopforge/loopforge/backend/loop"
	"github.com/loopforge/loopforge/backend/provider"
	"github.com/loopforge/loopforge/backend/store"
)

// fakeOpenAI speaks the Chat Completions streaming wire format; while
// reject is set it answers 401 the way OpenAI does.
type fakeOpenAI struct {
	reject   atomic.Bool
	requests atomic.Int32
}

func (f *fakeOpenAI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.requests.Add(1)
	if f.reject.Load() {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprint(w, `{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","code":"invalid_api_key"}}`)
		return
	}
	var req struct {
		ResponseFormat json.RawMessage `json:"response_format"`
	}
	body, _ := io.ReadAll(r.Body)
	_ = json.Unmarshal(body, &req)
	answer := "```python\nprint('ok')\n```\n"
	if len(req.ResponseFormat) > 0 {
		b, _ := json.Marshal(map[string]string{"explanation": "prints ok", "code": "print('ok')"})
		answer = string(b)
	}
	w.Header().Set("Content-Type", "text/event-stream")
	content, _ := json.Marshal(answer)
	fmt.Fprintf(w, "data: %s\n\n", `{"id":"c1","object":"chat.completion.chunk","created":1,"model":"gpt-test","choices":[{"index":0,"delta":{"content":`+string(content)+`},"finish_reason":null}]}`)
	fmt.Fprintf(w, "data: %s\n\n", `{"id":"c1","object":"chat.completion.chunk","created":1,"model":"gpt-test","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`)
	fmt.Fprint(w, "data: [DONE]\n\n")
}

// openAIService is a Service whose "openai" profile talks to a local fake.
func openAIService(t *testing.T, fake http.Handler) (*Service, string) {
	t.Helper()
	ts := httptest.NewServer(fake)
	t.Cleanup(ts.Close)
	home := t.TempDir()
	env := map[string]string{"LOOPFORGE_HOME": home, "OPENAI_API_KEY": "sk-test"}
	cfg, err := config.Load(config.Options{LookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok }})
	if err != nil {
		t.Fatal(err)
	}
	p := cfg.Profiles["openai"]
	p.BaseURL = ts.URL + "/v1"
	cfg.Profiles["openai"] = p
	svc, err := New(context.Background(), Options{Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Close() })
	return svc, ts.URL + "/v1"
}

func runToEnd(t *testing.T, svc *Service, req RunRequest) (*store.Run, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	info, err := svc.StartRun(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	return svc.Wait(ctx, info.RunID)
}

func providerNamed(t *testing.T, svc *Service, name string) ProviderStatus {
	t.Helper()
	for _, p := range svc.Providers() {
		if p.Name == name {
			return p
		}
	}
	t.Fatalf("no provider %s", name)
	return ProviderStatus{}
}

func TestProviderKeyRejectedUntilACallSucceeds(t *testing.T) {
	fake := &fakeOpenAI{}
	fake.reject.Store(true)
	svc, _ := openAIService(t, fake)
	if p := providerNamed(t, svc, "openai"); !p.Available || p.KeyRejected != nil {
		t.Fatalf("before any call: %+v", p)
	}

	before := time.Now().UTC()
	run, err := runToEnd(t, svc, RunRequest{Prompt: "x", Provider: "openai", MaxIterations: 1})
	if run == nil || run.Status != event.RunStatusError || !errors.Is(err, provider.ErrAuth) {
		t.Fatalf("run %+v, err %v: want an auth error", run, err)
	}
	p := providerNamed(t, svc, "openai")
	if p.KeyRejected == nil || p.KeyRejected.At.Before(before) || !strings.Contains(p.KeyRejected.Message, "401") ||
		strings.HasPrefix(p.KeyRejected.Message, "openai:") {
		t.Fatalf("after a 401: %+v (rejection %+v)", p, p.KeyRejected)
	}
	if !p.Available {
		t.Fatal("a rejected provider stays selectable, so the user can retry")
	}
	if other := providerNamed(t, svc, "anthropic"); other.KeyRejected != nil {
		t.Fatalf("another profile marked: %+v", other)
	}

	// A call with the endpoint overridden tells nothing about the
	// configured one, and clears nothing either.
	elsewhere := &fakeOpenAI{}
	ts := httptest.NewServer(elsewhere)
	defer ts.Close()
	if run, _ := runToEnd(t, svc, RunRequest{Prompt: "x", Provider: "openai", BaseURL: ts.URL + "/v1", MaxIterations: 1}); run.Status != "success" {
		t.Fatalf("override run: %s", run.Status)
	}
	if providerNamed(t, svc, "openai").KeyRejected == nil {
		t.Fatal("a success at another endpoint cleared the rejection")
	}

	fake.reject.Store(false)
	if run, _ := runToEnd(t, svc, RunRequest{Prompt: "x", Provider: "openai", MaxIterations: 1}); run.Status != "success" {
		t.Fatalf("second run: %s", run.Status)
	}
	if p := providerNamed(t, svc, "openai"); p.KeyRejected != nil {
		t.Fatalf("after a successful call: %+v", p.KeyRejected)
	}
}

func TestRequestBoundsAreRefusedBeforeAnythingIsWritten(t *testing.T) {
	svc := newService(t, &echoModel{answers: []string{"print(1)"}})
	tests := []struct {
		name string
		req  RunRequest
		want string
	}{
		{"iterations over the cap", RunRequest{MaxIterations: config.MaxIterationsLimit + 1}, "at most 50 (got 51)"},
		{"negative iterations", RunRequest{MaxIterations: -3}, "at least 1"},
		{"negative timeout", RunRequest{TimeoutSeconds: -1}, "must be positive"},
		{"timeout over the cap", RunRequest{TimeoutSeconds: 25 * 3600}, "at most 86400 (24h0m0s"},
		{"base_url without scheme", RunRequest{BaseURL: "localhost:8080/v1"}, "http:// or https://"},
		{"base_url without host", RunRequest{BaseURL: "http:///v1"}, "no host"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.req.Prompt, tt.req.Provider = "x", "fake"
			_, err := svc.StartRun(context.Background(), tt.req)
			if err == nil || Classify(err) != ClassInvalid || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v (class %s), want an invalid request containing %q", err, Classify(err), tt.want)
			}
		})
	}
	if list, _ := svc.Sessions(context.Background(), "", 10); len(list) != 0 {
		t.Fatalf("a refused request wrote a session: %+v", list)
	}
	if info, err := svc.StartRun(context.Background(), RunRequest{Prompt: "x", Provider: "fake", MaxIterations: config.MaxIterationsLimit}); err != nil {
		t.Fatalf("the cap itself is allowed: %v", err)
	} else if _, err := svc.Wait(context.Background(), info.RunID); err != nil {
		t.Fatal(err)
	}
}

func TestExportErrorsAreClassified(t *testing.T) {
	fake := &fakeOpenAI{}
	fake.reject.Store(true)
	svc, _ := openAIService(t, fake)
	ctx := context.Background()
	info, err := svc.StartRun(ctx, RunRequest{Prompt: "x", Provider: "openai", MaxIterations: 1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Wait(ctx, info.RunID); !errors.Is(err, provider.ErrAuth) {
		t.Fatalf("want an auth failure, got %v", err)
	}

	for _, f := range []string{"py", "ipynb"} {
		_, _, err := svc.Export(ctx, info.SessionID, f, info.RunID, "", "")
		if Classify(err) != ClassUnavailable || !strings.Contains(err.Error(), "this run produced no code to export") {
			t.Errorf("%s of a code-less run: %v (class %s), want unavailable", f, err, Classify(err))
		}
	}
	for _, f := range []string{"md", "html", "json", "zip"} {
		if _, _, err := svc.Export(ctx, info.SessionID, f, "", "", ""); err != nil {
			t.Errorf("%s of a code-less session: %v", f, err)
		}
	}
	if _, _, err := svc.Export(ctx, info.SessionID, "py", "no-such-run", "", ""); Classify(err) != ClassNotFound {
		t.Errorf("unknown run: %v (class %s), want not found", err, Classify(err))
	}
	if _, _, err := svc.Export(ctx, "no-such-session", "md", "", "", ""); Classify(err) != ClassNotFound {
		t.Errorf("unknown session: %v (class %s), want not found", err, Classify(err))
	}
}

func TestClassify(t *testing.T) {
	tests := []struct {
		err  error
		want Class
	}{
		{errors.New("disk full"), ClassInternal},
		{fmt.Errorf("x: %w", &config.Error{Msg: "bad"}), ClassInvalid},
		{fmt.Errorf("%w: empty prompt", ErrInvalidRequest), ClassInvalid},
		{&config.Error{Msg: "unknown provider", Err: provider.ErrUnknownProvider}, ClassInvalid},
		{fmt.Errorf("%w: x", loop.ErrInvalidSettings), ClassInvalid},
		{fmt.Errorf("get: %w", store.ErrNotFound), ClassNotFound},
		{fmt.Errorf("cancel: %w", ErrRunNotFound), ClassNotFound},
		{fmt.Errorf("export: %w", export.ErrRunNotFound), ClassNotFound},
		{fmt.Errorf("export: %w", export.ErrNoCode), ClassUnavailable},
		{fmt.Errorf("export: %w", export.ErrNotRunnable), ClassUnavailable},
		{&provider.Error{Kind: provider.KindMissingKey, Provider: "p", EnvVar: "K"}, ClassProviderSetup},
		{&provider.NotFoundError{Provider: "codex", Binary: "codex"}, ClassProviderSetup},
		{&provider.Error{Kind: provider.KindMissingEnv, Provider: "codex", EnvVar: "AZURE_KEY"}, ClassProviderSetup},
		{&provider.Error{Kind: provider.KindAuth, Provider: "p", Status: 401}, ClassProvider},
		{&provider.PartialError{Err: &provider.ExecutionError{Provider: "codex", ExitCode: 1}}, ClassProvider},
		{&provider.ParseError{Provider: "codex", Line: 3}, ClassProvider},
	}
	for _, tt := range tests {
		if got := Classify(tt.err); got != tt.want {
			t.Errorf("Classify(%v) = %s, want %s", tt.err, got, tt.want)
		}
	}
}
