package server

import (
	"context"
	"encoding/json"
	"io"
	"iter"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/loopforge/loopforge/backend/config"
	"github.com/loopforge/loopforge/backend/provider"
	"github.com/loopforge/loopforge/backend/service"
)

// rejectedModel fails every call as a provider does on HTTP 401.
type rejectedModel struct{}

func (rejectedModel) Name() string                        { return "fake" }
func (rejectedModel) Capabilities() provider.Capabilities { return provider.Capabilities{} }
func (rejectedModel) Stream(context.Context, provider.Request) iter.Seq2[provider.Delta, error] {
	return func(yield func(provider.Delta, error) bool) {
		yield(provider.Delta{}, &provider.Error{Provider: "fake", Kind: provider.KindAuth, Status: 401, EnvVar: "FAKE_KEY", Message: "Incorrect API key provided"})
	}
}

func backendWith(t *testing.T, m provider.Provider) *service.Service {
	t.Helper()
	home := t.TempDir()
	vars := map[string]string{"LOOPFORGE_HOME": home, "OPENAI_API_KEY": "sk-test"}
	cfg, err := config.Load(config.Options{LookupEnv: func(k string) (string, bool) { v, ok := vars[k]; return v, ok }})
	if err != nil {
		t.Fatal(err)
	}
	cfg.Profiles["fake"] = provider.Profile{Name: "fake", Kind: "fake"}
	cfg.Order = append([]string{"fake"}, cfg.Order...)
	reg := service.DefaultRegistry()
	reg["fake"] = func(provider.Profile) (provider.Provider, error) { return m, nil }
	svc, err := service.New(context.Background(), service.Options{Config: cfg, Registry: reg})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Close() })
	return svc
}

// call makes one authorised API request and returns the status and body.
func call(t *testing.T, ts *httptest.Server, tok, method, path, body string) (int, []byte) {
	t.Helper()
	req, _ := http.NewRequest(method, ts.URL+path, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+tok)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

func errorOf(t *testing.T, body []byte) string {
	t.Helper()
	var e struct {
		Error string `json:"error"`
	}
	if err := json.Unmarshal(body, &e); err != nil {
		t.Fatalf("not a JSON error: %s", body)
	}
	return e.Error
}

func TestBadRunRequestsAre400(t *testing.T) {
	svc := backendWith(t, wordModel{})
	ts, tok := apiServer(t, svc)
	tests := []struct {
		name, path, body, want string
	}{
		{"negative timeout", "/api/runs", `{"prompt":"p","provider":"fake","timeout_seconds":-1}`, "timeout_seconds must be positive (got -1)"},
		{"huge timeout", "/api/runs", `{"prompt":"p","provider":"fake","timeout_seconds":1e300}`, "timeout_seconds must be at most 86400"},
		{"timeout in a comparison", "/api/compare", `{"prompt":"p","providers":["fake","openai"],"timeout_seconds":-5}`, "timeout_seconds must be positive"},
		{"iterations over the cap", "/api/runs", `{"prompt":"p","provider":"fake","max_iterations":51}`, "at most 50 (got 51)"},
		{"base_url without scheme", "/api/runs", `{"prompt":"p","provider":"openai","base_url":"localhost:8080/v1"}`, "http:// or https://"},
		{"base_url of a profile", "/api/runs", `{"prompt":"p","provider":"openai","base_url":"https:///v1"}`, "no host"},
		{"unknown provider", "/api/runs", `{"prompt":"p","provider":"skynet"}`, `unknown provider "skynet"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, body := call(t, ts, tok, "POST", tt.path, tt.body)
			if status != http.StatusBadRequest || !strings.Contains(errorOf(t, body), tt.want) {
				t.Fatalf("%d %s; want 400 containing %q", status, body, tt.want)
			}
		})
	}
	if list, _ := svc.Sessions(context.Background(), "", 10); len(list) != 0 {
		t.Fatalf("a refused request wrote a session: %+v", list)
	}
}

func TestExportOfACodelessRunAndProviderMarkedAfter401(t *testing.T) {
	svc := backendWith(t, rejectedModel{})
	ts, tok := apiServer(t, svc)
	status, body := call(t, ts, tok, "POST", "/api/runs", `{"prompt":"p","provider":"fake","max_iterations":1}`)
	if status != http.StatusCreated {
		t.Fatalf("start: %d %s", status, body)
	}
	var info service.RunInfo
	_ = json.Unmarshal(body, &info)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if run, _ := svc.Wait(ctx, info.RunID); run == nil || run.Status != "error" {
		t.Fatalf("run: %+v", run)
	}

	export := "/api/sessions/" + info.SessionID + "/export?format="
	for _, f := range []string{"py", "ipynb"} {
		status, body := call(t, ts, tok, "GET", export+f+"&run="+info.RunID, "")
		if status != http.StatusConflict || !strings.Contains(errorOf(t, body), "this run produced no code to export") {
			t.Errorf("%s: %d %s; want 409 saying there is no code", f, status, body)
		}
	}
	if status, body := call(t, ts, tok, "GET", export+"md&run="+info.RunID, ""); status != http.StatusOK {
		t.Errorf("md of the same run: %d %s", status, body)
	}
	// The UI passes its language: the handout's own words follow it.
	if status, body := call(t, ts, tok, "GET", export+"md&lang=pt", ""); status != http.StatusOK ||
		!strings.Contains(string(body), "## Comparação") || !strings.Contains(string(body), "Esta execução não produziu código") {
		t.Errorf("md in Portuguese: %d %s", status, body)
	}
	if status, body := call(t, ts, tok, "GET", export+"md&lang=klingon", ""); status != http.StatusBadRequest || !strings.Contains(string(body), `"export.lang"`) {
		t.Errorf("unknown language: %d %s; want 400 export.lang", status, body)
	}
	if status, body := call(t, ts, tok, "GET", export+"py&run=no-such-run", ""); status != http.StatusNotFound {
		t.Errorf("unknown run: %d %s; want 404", status, body)
	}
	if status, body := call(t, ts, tok, "GET", "/api/sessions/no-such-session/export?format=md", ""); status != http.StatusNotFound {
		t.Errorf("unknown session: %d %s; want 404", status, body)
	}

	status, body = call(t, ts, tok, "GET", "/api/providers", "")
	var list []service.ProviderStatus
	if err := json.Unmarshal(body, &list); status != http.StatusOK || err != nil {
		t.Fatalf("providers: %d %v", status, err)
	}
	var raw []map[string]any
	_ = json.Unmarshal(body, &raw)
	for i, p := range list {
		if p.Name != "fake" {
			if p.KeyRejected != nil {
				t.Errorf("%s marked too", p.Name)
			}
			continue
		}
		kr, _ := raw[i]["key_rejected"].(map[string]any)
		if p.KeyRejected == nil || p.KeyRejected.At.IsZero() || !strings.Contains(p.KeyRejected.Message, "HTTP 401") || kr["at"] == nil {
			t.Fatalf("fake after a 401: %s", body)
		}
	}
}

// TestErrorBodiesCarryCodeAndParams: every failed request answers
// {error, code, params}, the code and parameters the frontend words the
// error by.
func TestErrorBodiesCarryCodeAndParams(t *testing.T) {
	svc := backendWith(t, wordModel{})
	ts, tok := apiServer(t, svc)
	tests := []struct {
		name, method, path, body string
		status                   int
		code                     string
		params                   map[string]string
	}{
		{"empty prompt", "POST", "/api/runs", `{"prompt":" ","provider":"fake"}`, 400, "request.prompt_empty", map[string]string{}},
		{"unknown provider", "POST", "/api/runs", `{"prompt":"p","provider":"skynet"}`, 400, "provider.unknown", map[string]string{"provider": "skynet"}},
		{"bad JSON", "POST", "/api/runs", `{"prompt":`, 400, "request.bad_input", nil},
		{"no endpoint", "GET", "/api/nothing", "", 404, "request.no_endpoint", map[string]string{"method": "GET", "path": "/api/nothing"}},
		{"no session", "GET", "/api/sessions/nope", "", 404, "not_found", map[string]string{}},
		{"export format", "GET", "/api/sessions/nope/export?format=docx", "", 400, "export.format", map[string]string{"format": "docx"}},
		// A prompt over the limit is refused with its size and the limit
		// (issue 24: it was "http: request body too large")...
		{"prompt too long", "POST", "/api/runs", runBody(t, strings.Repeat("é", config.MaxPromptBytes/2+1)), 400, "request.prompt_too_long",
			map[string]string{"bytes": strconv.Itoa(config.MaxPromptBytes + 2), "chars": strconv.Itoa(config.MaxPromptBytes/2 + 1),
				"max": strconv.Itoa(config.MaxPromptBytes)}},
		// ... even when JSON escapes every byte of it to six (\u0001): the
		// body limit leaves room for any prompt the service would take.
		{"escaped prompt too long", "POST", "/api/runs", runBody(t, strings.Repeat("\x01", config.MaxPromptBytes+1)), 400, "request.prompt_too_long",
			map[string]string{"max": strconv.Itoa(config.MaxPromptBytes)}},
		// A body past any prompt's room says the server's limit.
		{"body too large", "POST", "/api/runs", runBody(t, strings.Repeat("a", maxBody)), 413, "request.too_large",
			map[string]string{"max": strconv.Itoa(maxBody)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, body := call(t, ts, tok, tt.method, tt.path, tt.body)
			var e struct {
				Error  string            `json:"error"`
				Code   string            `json:"code"`
				Params map[string]string `json:"params"`
			}
			if err := json.Unmarshal(body, &e); err != nil || status != tt.status || e.Error == "" || e.Code != tt.code || e.Params == nil {
				t.Fatalf("%d %s; want %d with code %s", status, body, tt.status, tt.code)
			}
			for k, v := range tt.params {
				if e.Params[k] != v {
					t.Errorf("params[%q] = %q, want %q", k, e.Params[k], v)
				}
			}
		})
	}
}

// runBody is the JSON body of a run of the fake provider with prompt.
func runBody(t *testing.T, prompt string) string {
	t.Helper()
	b, err := json.Marshal(map[string]string{"prompt": prompt, "provider": "fake"})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
