package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/loopforge/loopforge/backend/config"
	"github.com/loopforge/loopforge/backend/service"
)

// modelsServer speaks the three APIs' models lists: OpenAI's /v1/models,
// Anthropic's /v1/models (told apart by its anthropic-version header) and
// Gemini's /v1beta/models, each in two pages.
func modelsServer(t *testing.T) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/models", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.Header.Get("anthropic-version") != "" {
			if r.URL.Query().Get("after_id") == "" {
				io.WriteString(w, `{"data":[{"type":"model","id":"claude-sonnet-5","display_name":"Claude Sonnet 5"}],"has_more":true,"first_id":"claude-sonnet-5","last_id":"claude-sonnet-5"}`)
				return
			}
			io.WriteString(w, `{"data":[{"type":"model","id":"claude-haiku-4-5-20251001","display_name":"Claude Haiku 4.5"}],"has_more":false}`)
			return
		}
		io.WriteString(w, `{"object":"list","data":[{"id":"gpt-4o-mini","object":"model","owned_by":"system"},{"id":"gpt-6-luna","object":"model","owned_by":"system"}]}`)
	})
	mux.HandleFunc("GET /v1beta/models", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Query().Get("pageToken") == "" {
			io.WriteString(w, `{"models":[{"name":"models/gemini-3.8-flash","displayName":"Gemini 3.8 Flash","supportedGenerationMethods":["generateContent","countTokens"]},`+
				`{"name":"models/text-embedding-004","supportedGenerationMethods":["embedContent"]}],"nextPageToken":"p2"}`)
			return
		}
		io.WriteString(w, `{"models":[{"name":"models/gemini-3.7-flash","displayName":"Gemini 3.7 Flash","supportedGenerationMethods":["generateContent"]}]}`)
	})
	// Chat completions: OpenAI's answer to a model that does not exist.
	mux.HandleFunc("POST /v1/chat/completions", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, `{"error":{"message":"The model `+"`gpt-gone`"+` does not exist or you do not have access to it.","type":"invalid_request_error","param":null,"code":"model_not_found"}}`)
	})
	// silent never answers: a listing that must give up on its own.
	mux.HandleFunc("GET /silent/v1/models", func(_ http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
	s := httptest.NewServer(mux)
	t.Cleanup(s.Close)
	return s
}

// cliModels runs the CLI with keys for OpenAI, Anthropic and Gemini (none
// for OpenRouter) and those profiles pointed at srv; ollama points at a
// server that never answers, with a first-byte limit of 50ms.
func cliModels(t *testing.T, srv *httptest.Server, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	vars := map[string]string{"LOOPFORGE_HOME": t.TempDir(), "OPENAI_API_KEY": "sk-test-openai",
		"ANTHROPIC_API_KEY": "sk-ant-test", "GEMINI_API_KEY": "AIza-test"}
	var (
		out  bytes.Buffer
		errb lockedBuffer
	)
	e := &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb}
	e.newService = func(ctx context.Context, workdir string) (*service.Service, error) {
		cfg, err := config.Load(config.Options{Workdir: workdir, LookupEnv: func(k string) (string, bool) { v, ok := vars[k]; return v, ok }})
		if err != nil {
			return nil, err
		}
		for name, base := range map[string]string{"openai": srv.URL + "/v1", "anthropic": srv.URL, "gemini-api": srv.URL, "ollama": srv.URL + "/silent/v1"} {
			p := cfg.Profiles[name]
			p.BaseURL = base
			if name == "ollama" {
				p.FirstByteTimeout = 50 * time.Millisecond
			}
			cfg.Profiles[name] = p
		}
		return service.New(ctx, service.Options{Config: cfg})
	}
	code = e.main(context.Background(), args)
	return code, out.String(), errb.String()
}

func TestProvidersModelsListsEachProfile(t *testing.T) {
	srv := modelsServer(t)
	code, out, stderr := cliModels(t, srv, "providers", "--models")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{
		"openai (model: gpt-4o-mini): 2 models this key can use\n  * gpt-4o-mini\n    gpt-6-luna",
		"anthropic (model: claude-sonnet-5): 2 models this key can use\n    claude-haiku-4-5-20251001  Claude Haiku 4.5\n  * claude-sonnet-5",
		"gemini-api (model: gemini-3.8-flash): 2 models this key can use\n    gemini-3.7-flash  Gemini 3.7 Flash\n  * gemini-3.8-flash",
		"openrouter (model: openai/gpt-4o-mini): cannot list its models: openrouter: no API key: set OPENROUTER_API_KEY",
		"ollama (model: qwen2.5-coder:7b): cannot list its models: ollama: no answer",
		"codex: a coding CLI; it chooses among its own models (no list to ask)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "text-embedding-004") {
		t.Errorf("a model that does not generate content is listed:\n%s", out)
	}
}

func TestProvidersModelsJSONAndOneProfile(t *testing.T) {
	srv := modelsServer(t)
	code, out, stderr := cliModels(t, srv, "providers", "--models", "--json", "-p", "gemini-api", "-p", "codex")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var list []profileModels
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	if len(list) != 2 || list[0].Provider != "gemini-api" || len(list[0].Models) != 2 || list[0].Models[1].ID != "gemini-3.8-flash" {
		t.Fatalf("list %+v", list)
	}
	if list[1].ErrorCode != string(service.CodeNoModelList) || list[1].Models == nil {
		t.Errorf("codex: %+v", list[1])
	}
}

// A profile asked for by name whose listing fails exits 3, its reason on
// stdout; an unknown name is a usage error.
func TestProvidersModelsFailures(t *testing.T) {
	srv := modelsServer(t)
	code, out, _ := cliModels(t, srv, "providers", "--models", "-p", "openrouter")
	if code != ExitProvider || !strings.Contains(out, "no API key: set OPENROUTER_API_KEY") {
		t.Errorf("exit %d:\n%s", code, out)
	}
	code, out, _ = cliModels(t, srv, "providers", "--models", "-p", "ollama", "--json")
	var list []profileModels
	if err := json.Unmarshal([]byte(out), &list); err != nil || code != ExitProvider || list[0].ErrorCode != string(service.CodeProviderTimeout) {
		t.Errorf("exit %d, %v: %s", code, err, out)
	}
	code, _, stderr := cliModels(t, srv, "providers", "--models", "-p", "nope")
	if code != ExitUsage || !strings.Contains(stderr, `unknown provider "nope"`) {
		t.Errorf("exit %d: %s", code, stderr)
	}
}

// A run whose model does not exist ends with exit 3 and a last line that
// names the model and the models the key can use.
func TestRunWithAMissingModelNamesTheModels(t *testing.T) {
	needSandbox(t) // a run starts its sandbox before it asks the model
	srv := modelsServer(t)
	code, _, stderr := cliModels(t, srv, "run", "-p", "openai", "-m", "gpt-gone", "-n", "2", "print 42")
	if code != ExitProvider {
		t.Fatalf("exit %d, want %d:\n%s", code, ExitProvider, stderr)
	}
	for _, want := range []string{`the model "gpt-gone" does not exist or is no longer offered to this key (HTTP 404)`,
		"models this key can use: gpt-4o-mini, gpt-6-luna"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if strings.Contains(stderr, "to try this iteration again") {
		t.Errorf("a missing model is offered a retry:\n%s", stderr)
	}
}
