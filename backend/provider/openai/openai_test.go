package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/loopforge/loopforge/backend/provider"
	"github.com/loopforge/loopforge/backend/provider/conformance"
)

// --- test helpers ---------------------------------------------------------

// fakeAPI records every request and lets the test answer each attempt.
type fakeAPI struct{ *conformance.API }

func newFakeAPI(t *testing.T, answer func(w http.ResponseWriter, r *http.Request, attempt int)) *fakeAPI {
	return &fakeAPI{conformance.NewAPI(t, answer)}
}

func (f *fakeAPI) profile() provider.Profile {
	return provider.Profile{
		Name: "openai-test", Kind: "openai", Model: "gpt-test",
		BaseURL: f.URL + "/v1", APIKeyEnv: "OPENAI_API_KEY", APIKey: "sk-test-123",
		Retry: conformance.FastRetry(),
	}
}

// sse writes server-sent events the way the Chat Completions API does:
// "data: <json>" lines separated by blank lines, flushed one by one.
func sse(w http.ResponseWriter, events ...string) {
	w.Header().Set("Content-Type", "text/event-stream")
	for _, e := range events {
		fmt.Fprintf(w, "data: %s\n\n", e)
		w.(http.Flusher).Flush()
	}
}

// chunk is one chat.completion.chunk with a content delta and, if given, a
// finish reason.
func chunk(content, finish string) string {
	fr := "null"
	if finish != "" {
		fr = fmt.Sprintf("%q", finish)
	}
	delta := "{}"
	if content != "" {
		delta = fmt.Sprintf(`{"content":%q}`, content)
	}
	return fmt.Sprintf(`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1731000000,`+
		`"model":"gpt-test-2024-07-18","system_fingerprint":"fp_1","choices":[{"index":0,"delta":%s,`+
		`"logprobs":null,"finish_reason":%s}],"usage":null}`, delta, fr)
}

const (
	roleChunk  = `{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1731000000,"model":"gpt-test-2024-07-18","choices":[{"index":0,"delta":{"role":"assistant","content":"","refusal":null},"logprobs":null,"finish_reason":null}],"usage":null}`
	usageChunk = `{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1731000000,"model":"gpt-test-2024-07-18","choices":[],"usage":{"prompt_tokens":21,"completion_tokens":3,"total_tokens":24,"prompt_tokens_details":{"cached_tokens":0},"completion_tokens_details":{"reasoning_tokens":0}}}`
)

// happy answers with a complete, well-formed stream.
func happy(w http.ResponseWriter, _ *http.Request, _ int) {
	sse(w, roleChunk, chunk("Hel", ""), chunk("lo, ", ""), chunk("world", ""), chunk("", "stop"), usageChunk, "[DONE]")
}

// errorAnswer answers with an OpenAI-shaped error; retry-after-ms keeps the
// backoff at a millisecond.
func errorAnswer(w http.ResponseWriter, status int, body string) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("retry-after-ms", "1")
	w.WriteHeader(status)
	io.WriteString(w, body)
}

// drain runs a call to its end and checks the contract's shape.
func drain(t *testing.T, ctx context.Context, p provider.Provider, req provider.Request) conformance.Result {
	t.Helper()
	return conformance.Drain(t, ctx, p, req)
}

func newClient(t *testing.T, p provider.Profile) provider.Provider {
	t.Helper()
	c, err := New(p)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return c
}

var conversation = provider.Request{
	System: "You write Go.",
	Messages: []provider.Message{
		{Role: provider.RoleUser, Content: "Write hello world."},
		{Role: provider.RoleAssistant, Content: "package main"},
		{Role: provider.RoleUser, Content: "Now with a newline."},
	},
	MaxTokens: 512,
}

// --- tests ----------------------------------------------------------------

func TestStreamDeltasUsageAndRequest(t *testing.T) {
	f := newFakeAPI(t, happy)
	c := newClient(t, f.profile())
	if c.Name() != "openai-test" {
		t.Errorf("Name = %q", c.Name())
	}

	r := drain(t, context.Background(), c, conversation)
	if r.Err != nil {
		t.Fatalf("stream: %v", r.Err)
	}
	if want := []string{"Hel", "lo, ", "world"}; !reflect.DeepEqual(r.Texts, want) {
		t.Errorf("deltas = %q, want %q", r.Texts, want)
	}
	d := r.Done
	if d == nil {
		t.Fatal("no Done")
	}
	if d.Content != strings.Join(r.Texts, "") {
		t.Errorf("Done.Content = %q, want the concatenated deltas", d.Content)
	}
	if d.Usage.InputTokens != 21 || d.Usage.OutputTokens != 3 {
		t.Errorf("usage = %+v, want 21 in / 3 out", d.Usage)
	}
	if d.Model != "gpt-test-2024-07-18" || d.FinishReason != "stop" || d.Duration <= 0 {
		t.Errorf("Done = %+v", d)
	}

	if f.Target(t, 0) != "/v1/chat/completions" {
		t.Errorf("path = %q", f.Target(t, 0))
	}
	if got := f.Header(t, 0).Get("Authorization"); got != "Bearer sk-test-123" {
		t.Errorf("Authorization = %q", got)
	}
	body := f.LastBody(t)
	if body["model"] != "gpt-test" || body["stream"] != true {
		t.Errorf("model/stream = %v/%v", body["model"], body["stream"])
	}
	if so, _ := body["stream_options"].(map[string]any); so["include_usage"] != true {
		t.Errorf("stream_options = %v, want include_usage", body["stream_options"])
	}
	// Not api.openai.com: the widely supported max_tokens.
	if body["max_tokens"] != float64(512) || body["max_completion_tokens"] != nil {
		t.Errorf("max_tokens = %v, max_completion_tokens = %v", body["max_tokens"], body["max_completion_tokens"])
	}
	if _, ok := body["response_format"]; ok {
		t.Error("response_format sent without a schema")
	}
	wantMsgs := []any{
		map[string]any{"role": "system", "content": "You write Go."},
		map[string]any{"role": "user", "content": "Write hello world."},
		map[string]any{"role": "assistant", "content": "package main"},
		map[string]any{"role": "user", "content": "Now with a newline."},
	}
	if !reflect.DeepEqual(body["messages"], wantMsgs) {
		t.Errorf("messages = %v", body["messages"])
	}
}

// A server that keeps the answer open after [DONE] still gives a complete
// answer: the read of what is left (provider.Finish) gives up instead of
// waiting for the idle limit (an hour here), and the connection is closed.
func TestAnswerHeldOpenAfterDone(t *testing.T) {
	gone := make(chan struct{})
	f := newFakeAPI(t, func(w http.ResponseWriter, r *http.Request, n int) {
		happy(w, r, n)
		<-r.Context().Done() // until the client closes
		close(gone)
	})
	p := f.profile()
	p.IdleTimeout = time.Hour
	r := drain(t, context.Background(), newClient(t, p), conversation)
	if r.Err != nil || r.Done == nil || r.Done.Content != "Hello, world" {
		t.Fatalf("err = %v, done = %+v", r.Err, r.Done)
	}
	<-gone
}

func TestStructuredOutput(t *testing.T) {
	schema := &provider.Schema{Name: "code", Description: "the program", JSON: map[string]any{
		"type": "object", "properties": map[string]any{"code": map[string]any{"type": "string"}},
		"required": []any{"code"}, "additionalProperties": false,
	}}
	off := false
	tests := []struct {
		name       string
		structured *bool
		schema     *provider.Schema
		wantCap    bool
		wantFormat bool
	}{
		{"schema sent by default", nil, schema, true, true},
		{"no schema, no format", nil, nil, true, false},
		{"turned off in the profile", &off, schema, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeAPI(t, happy)
			p := f.profile()
			p.Structured = tt.structured
			c := newClient(t, p)
			if got := c.Capabilities().StructuredOutput; got != tt.wantCap {
				t.Errorf("StructuredOutput = %v, want %v", got, tt.wantCap)
			}
			req := conversation
			req.Schema = tt.schema
			if r := drain(t, context.Background(), c, req); r.Err != nil {
				t.Fatal(r.Err)
			}
			rf, ok := f.LastBody(t)["response_format"].(map[string]any)
			if ok != tt.wantFormat {
				t.Fatalf("response_format present = %v, want %v", ok, tt.wantFormat)
			}
			if !ok {
				return
			}
			js, _ := rf["json_schema"].(map[string]any)
			if rf["type"] != "json_schema" || js["name"] != "code" || js["strict"] != true ||
				js["description"] != "the program" || !reflect.DeepEqual(js["schema"], any(schema.JSON)) {
				t.Errorf("response_format = %v", rf)
			}
		})
	}
}

func TestKeylessProfileDefaultsAndCost(t *testing.T) {
	// Ollama: no key variable, no key, no Authorization header. OpenRouter
	// style cost in the usage chunk.
	f := newFakeAPI(t, func(w http.ResponseWriter, _ *http.Request, _ int) {
		sse(w, chunk("ok", "stop"),
			`{"id":"x","object":"chat.completion.chunk","created":1,"model":"m","choices":[],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2,"cost":0.0042}}`,
			"[DONE]")
	})
	c := newClient(t, provider.Profile{Name: "ollama", BaseURL: f.URL + "/v1/"})
	r := drain(t, context.Background(), c, provider.Request{Messages: []provider.Message{{Role: provider.RoleUser, Content: "hi"}}})
	if r.Err != nil {
		t.Fatal(r.Err)
	}
	if got := f.Header(t, 0).Get("Authorization"); got != "" {
		t.Errorf("Authorization = %q, want none", got)
	}
	if m := f.LastBody(t)["model"]; m != DefaultModel {
		t.Errorf("model = %v, want %s", m, DefaultModel)
	}
	if r.Done.Usage.CostUSD != 0.0042 {
		t.Errorf("cost = %v", r.Done.Usage.CostUSD)
	}
	if _, ok := f.LastBody(t)["max_tokens"]; ok {
		t.Error("max_tokens sent to a local server although neither the request nor the profile set a cap")
	}
}

func TestAnswerCapField(t *testing.T) {
	// Which field carries the answer's cap, and its value, by server and
	// profile: OpenAI's own endpoints (and Azure's) want
	// max_completion_tokens and get a cap by default; other servers get
	// max_tokens, and a cap only when the profile or request sets one.
	tests := []struct {
		name      string
		base      string
		maxOutput int
		field     string // the profile's max_tokens_field
		req       int    // Request.MaxTokens
		want      string // the body's cap field: "" none
		wantN     int
	}{
		{"openai default", "", 0, "", 0, "max_completion_tokens", DefaultMaxCompletionTokens},
		{"openai, profile's cap", "https://api.openai.com/v1", 3000, "", 0, "max_completion_tokens", 3000},
		{"openai, request's cap wins", "", 3000, "", 100, "max_completion_tokens", 100},
		{"azure openai", "https://lab.openai.azure.com/openai/v1", 0, "", 0, "max_completion_tokens", DefaultMaxCompletionTokens},
		{"azure ai services", "https://lab.cognitiveservices.azure.com/openai/v1", 0, "", 0, "max_completion_tokens", DefaultMaxCompletionTokens},
		{"ollama: no cap unless asked", "http://localhost:11434/v1", 0, "", 0, "", 0},
		{"ollama with a cap", "http://localhost:11434/v1", 4096, "", 0, "max_tokens", 4096},
		{"openrouter with a cap", "https://openrouter.ai/api/v1", 4096, "", 0, "max_tokens", 4096},
		{"a proxy before a reasoning model", "http://llm-proxy.lan/v1", 4096, "max_completion_tokens", 0, "max_completion_tokens", 4096},
		{"an old azure api version", "https://lab.openai.azure.com/openai/v1", 2000, "max_tokens", 0, "max_tokens", 2000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newClient(t, provider.Profile{Name: "p", BaseURL: tt.base, APIKeyEnv: "OPENAI_API_KEY", APIKey: "k",
				MaxOutputTokens: tt.maxOutput, MaxTokensField: tt.field})
			p, err := c.(*Client).params(provider.Request{MaxTokens: tt.req, Messages: []provider.Message{{Role: provider.RoleUser, Content: "x"}}})
			if err != nil {
				t.Fatal(err)
			}
			b, _ := json.Marshal(p)
			var body map[string]any
			_ = json.Unmarshal(b, &body)
			for _, f := range []string{provider.FieldMaxTokens, provider.FieldMaxCompletionTokens} {
				got, sent := body[f]
				if f == tt.want && got != float64(tt.wantN) {
					t.Errorf("%s = %v, want %d (body %s)", f, got, tt.wantN, b)
				}
				if f != tt.want && sent {
					t.Errorf("%s sent (body %s)", f, b)
				}
			}
		})
	}
}

func TestRefusedCapFieldSaysWhichToUse(t *testing.T) {
	// A reasoning model behind a compatible endpoint refuses max_tokens
	// the way OpenAI does; the error names the setting that fixes it.
	var f *fakeAPI
	f = newFakeAPI(t, func(w http.ResponseWriter, r *http.Request, n int) {
		if _, ok := f.LastBody(t)["max_tokens"]; ok {
			errorAnswer(w, 400, `{"error":{"message":"Unsupported parameter: 'max_tokens' is not supported with this model. `+
				`Use 'max_completion_tokens' instead.","type":"invalid_request_error","param":"max_tokens","code":"unsupported_parameter"}}`)
			return
		}
		happy(w, r, n)
	})
	p := f.profile()
	p.MaxOutputTokens = 4000
	r := drain(t, context.Background(), newClient(t, p), conversation)
	var fe *provider.FieldError
	if !errors.Is(r.Err, provider.ErrBadRequest) || !errors.As(r.Err, &fe) || !fe.Unsupported ||
		fe.Field != provider.FieldMaxTokens || fe.Other != provider.FieldMaxCompletionTokens {
		t.Fatalf("err = %#v, want a refused max_tokens naming max_completion_tokens", r.Err)
	}
	msg := r.Err.Error()
	for _, w := range []string{"HTTP 400", "Unsupported parameter", "max_tokens_field: max_completion_tokens", `"openai-test" profile of loopforge.yml`} {
		if !strings.Contains(msg, w) {
			t.Errorf("message %q lacks %q", msg, w)
		}
	}
	if f.Attempts.Load() != 1 {
		t.Errorf("%d attempts: a 400 is not retried", f.Attempts.Load())
	}

	// As the message says: the other field works.
	p.MaxTokensField = provider.FieldMaxCompletionTokens
	if r := drain(t, context.Background(), newClient(t, p), conversation); r.Err != nil ||
		f.LastBody(t)["max_completion_tokens"] != float64(512) {
		t.Errorf("err %v, body %v", r.Err, f.LastBody(t))
	}

	// Any other 400 says nothing of the cap.
	f = newFakeAPI(t, func(w http.ResponseWriter, _ *http.Request, _ int) {
		errorAnswer(w, 400, `{"error":{"message":"The model 'gpt-nope' does not exist","type":"invalid_request_error","param":"model","code":"model_not_found"}}`)
	})
	p = f.profile()
	r = drain(t, context.Background(), newClient(t, p), conversation)
	if !errors.Is(r.Err, provider.ErrBadRequest) || errors.As(r.Err, &fe) || strings.Contains(r.Err.Error(), "max_tokens") {
		t.Errorf("err = %v: not about the cap", r.Err)
	}
}

func TestRefusal(t *testing.T) {
	// A refusal streams in delta.refusal instead of delta.content.
	refusalChunk := func(s string) string {
		return fmt.Sprintf(`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1731000000,"model":"gpt-test-2024-07-18",`+
			`"choices":[{"index":0,"delta":{"refusal":%q},"logprobs":null,"finish_reason":null}],"usage":null}`, s)
	}
	tests := []struct {
		name     string
		answer   func(w http.ResponseWriter)
		category string
		words    string
	}{
		{"the model's refusal", func(w http.ResponseWriter) {
			sse(w, roleChunk, refusalChunk("I'm sorry, "), refusalChunk("I can't help with that."), chunk("", "stop"), usageChunk, "[DONE]")
		}, "", "the model refused to answer: I'm sorry, I can't help with that."},
		{"a content filter", func(w http.ResponseWriter) {
			sse(w, roleChunk, chunk("", "content_filter"), usageChunk, "[DONE]")
		}, "content_filter", "the model refused to answer (content_filter): the provider's content filter stopped the answer"},
		{"azure's filtered prompt", func(w http.ResponseWriter) {
			errorAnswer(w, 400, `{"error":{"message":"The response was filtered due to the prompt triggering Azure OpenAI's content management policy.",`+
				`"type":null,"param":"prompt","code":"content_filter","status":400}}`)
		}, "content_filter", "Azure OpenAI's content management policy"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeAPI(t, func(w http.ResponseWriter, _ *http.Request, _ int) { tt.answer(w) })
			r := drain(t, context.Background(), newClient(t, f.profile()), conversation)
			var pe *provider.Error
			if !errors.Is(r.Err, provider.ErrRefused) || !errors.As(r.Err, &pe) || pe.Category != tt.category {
				t.Fatalf("err = %#v, want a refusal (%s)", r.Err, tt.category)
			}
			if !strings.Contains(r.Err.Error(), tt.words) {
				t.Errorf("message %q lacks %q", r.Err, tt.words)
			}
			// Not an answer: nothing streams as text, nothing is retried.
			if len(r.Texts) != 0 || f.Attempts.Load() != 1 || len(r.Notices) != 0 {
				t.Errorf("texts %q, %d attempts, notices %q", r.Texts, f.Attempts.Load(), r.Notices)
			}
		})
	}
	// The tokens of the refusal are counted.
	f := newFakeAPI(t, func(w http.ResponseWriter, _ *http.Request, _ int) {
		sse(w, roleChunk, refusalChunk("No."), chunk("", "stop"), usageChunk, "[DONE]")
	})
	r := drain(t, context.Background(), newClient(t, f.profile()), conversation)
	if got := provider.PartialOf(r.Err); got == nil || got.Usage != (provider.Usage{InputTokens: 21, OutputTokens: 3}) {
		t.Errorf("partial = %+v, want the usage chunk's count", got)
	}
}

func TestHTTPErrorsAndRetries(t *testing.T) {
	const authBody = `{"error":{"message":"Incorrect API key provided: sk-test-123.\nYou can find your API key at https://platform.openai.com.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`
	conformance.RunErrorCases(t, wire(), errorAnswer, []conformance.ErrorCase{
		conformance.Case("401 names the key variable", []int{401}, authBody, provider.ErrAuth, 1, 401, "OPENAI_API_KEY", "Incorrect API key provided: [redacted]."),
		conformance.Case("403 is no access to the model", []int{403}, `{"error":{"message":"Project does not have access","type":"invalid_request_error"}}`, provider.ErrForbidden, 1, 403, "Project does not have access", `model "gpt-test"`),
		conformance.Case("400 unknown model", []int{400}, `{"error":{"message":"The model 'gpt-nope' does not exist","type":"invalid_request_error","code":"model_not_found"}}`, provider.ErrBadRequest, 1, 400, "gpt-nope"),
		conformance.Case("404 with a plain-text body", []int{404}, "404 page not found\n", provider.ErrBadRequest, 1, 404, "404 page not found"),
		conformance.Case("404 ollama model missing", []int{404}, `{"error":{"message":"model \"qwen\" not found, try pulling it first","type":"api_error"}}`, provider.ErrBadRequest, 1, 404, "try pulling it first"),
		conformance.Case("error as a bare string", []int{404}, `{"error":"model 'x' not found"}`, provider.ErrBadRequest, 1, 404, "model 'x' not found"),
		conformance.Case("fastapi detail", []int{422}, `{"detail":[{"loc":["body","model"],"msg":"field required"}]}`, provider.ErrBadRequest, 1, 422, "field required"),
		conformance.Case("429 then success", []int{429}, `{"error":{"message":"Rate limit reached","type":"requests"}}`, nil, 2, 0),
		conformance.Case("503 twice then success", []int{503, 503}, `{"error":{"message":"overloaded"}}`, nil, 3, 0),
		conformance.Case("429 every time", []int{429, 429, 429, 429, 429}, `{"error":{"message":"Rate limit reached for gpt-test","type":"requests"}}`, provider.ErrRateLimit, 4, 429, "Rate limit reached for gpt-test"),
		conformance.Case("500 every time", []int{500, 500, 500, 500, 500}, `{"error":{"message":"The server had an error","type":"server_error"}}`, provider.ErrServer, 4, 500, "The server had an error"),
		conformance.Case("502 html every time", []int{502, 502, 502, 502, 502}, "<html>\n<h1>502 Bad Gateway</h1>\n</html>", provider.ErrServer, 4, 502, "<html>"),
	})
}

func TestMissingKeyFailsAtNew(t *testing.T) {
	f := newFakeAPI(t, happy)
	p := f.profile()
	p.Name, p.APIKeyEnv, p.APIKey = "openrouter", "OPENROUTER_API_KEY", ""
	c, err := New(p)
	if c != nil || !errors.Is(err, provider.ErrMissingKey) {
		t.Fatalf("New = %v, %v; want ErrMissingKey", c, err)
	}
	if !strings.Contains(err.Error(), "OPENROUTER_API_KEY") || !strings.Contains(err.Error(), "openrouter") {
		t.Errorf("message %q should name the profile and the variable", err)
	}
	if n := f.Attempts.Load(); n != 0 {
		t.Errorf("%d requests made", n)
	}
}

func TestBrokenStreams(t *testing.T) {
	// A server that reports usage as it goes (vLLM's continuous usage
	// stats): what it counted before the break is kept.
	running := `{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1731000000,"model":"gpt-test-2024-07-18",` +
		`"choices":[{"index":0,"delta":{"content":"tial"},"finish_reason":null}],"usage":{"prompt_tokens":21,"completion_tokens":2}}`
	tests := []struct {
		name     string
		events   []string
		cut      bool // the server drops the connection after the events
		want     error
		texts    int
		attempts int32
		partial  string
		usage    provider.Usage
	}{
		{"error event mid-stream", []string{chunk("par", ""), `{"error":{"message":"The server had an error while processing your request.","type":"server_error","param":null,"code":null}}`}, false, provider.ErrServer, 1, 1, "par", provider.Usage{}},
		// Before any text, a rate-limit event is retried like a 429.
		{"openrouter error with a numeric code", []string{`{"error":{"code":429,"message":"Provider returned error"}}`}, false, provider.ErrRateLimit, 0, 4, "", provider.Usage{}},
		{"connection ends without finish_reason", []string{chunk("par", ""), chunk("tial", "")}, false, provider.ErrInterrupted, 2, 1, "partial", provider.Usage{}},
		{"connection cut mid-answer", []string{chunk("par", ""), running}, true, provider.ErrInterrupted, 2, 1, "partial", provider.Usage{InputTokens: 21, OutputTokens: 2}},
		{"not JSON", []string{"{oops"}, false, provider.ErrProtocol, 0, 1, "", provider.Usage{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeAPI(t, func(w http.ResponseWriter, _ *http.Request, _ int) {
				sse(w, tt.events...)
				if tt.cut {
					panic(http.ErrAbortHandler) // the server goes away mid-answer
				}
			})
			r := drain(t, context.Background(), newClient(t, f.profile()), conversation)
			if !errors.Is(r.Err, tt.want) {
				t.Fatalf("err = %v, want %v", r.Err, tt.want)
			}
			if len(r.Texts) != tt.texts || f.Attempts.Load() != tt.attempts {
				t.Errorf("texts = %q, attempts = %d", r.Texts, f.Attempts.Load())
			}
			got := provider.PartialOf(r.Err)
			if tt.partial == "" {
				if got != nil {
					t.Errorf("partial answer %+v, want none", got)
				}
				return
			}
			if got == nil || got.Content != tt.partial || got.Usage != tt.usage || got.Model != "gpt-test-2024-07-18" {
				t.Errorf("partial answer = %+v, want %q and %+v", got, tt.partial, tt.usage)
			}
		})
	}
}

func TestBadProfileAndRequest(t *testing.T) {
	if _, err := New(provider.Profile{Name: "x", BaseURL: "localhost:11434"}); err == nil {
		t.Error("a base URL without a scheme was accepted")
	}
	f := newFakeAPI(t, happy)
	r := drain(t, context.Background(), newClient(t, f.profile()),
		provider.Request{Messages: []provider.Message{{Role: "narrator", Content: "x"}}})
	if !errors.Is(r.Err, provider.ErrBadRequest) || f.Attempts.Load() != 0 {
		t.Errorf("err = %v after %d requests", r.Err, f.Attempts.Load())
	}
	r = drain(t, context.Background(), newClient(t, f.profile()),
		provider.Request{Messages: []provider.Message{{Role: provider.RoleTool, Content: "x"}}})
	if !errors.Is(r.Err, provider.ErrBadRequest) || f.Attempts.Load() != 0 {
		t.Errorf("tool message without an id: err = %v after %d requests", r.Err, f.Attempts.Load())
	}
}

// --- tools ----------------------------------------------------------------

// toolChunk is a chat.completion.chunk whose delta carries tool_calls
// fragments (JSON), as the Chat Completions API streams them.
func toolChunk(toolCalls string) string {
	return `{"id":"chatcmpl-2","object":"chat.completion.chunk","created":1731000000,"model":"gpt-test-2024-07-18",` +
		`"system_fingerprint":"fp_1","choices":[{"index":0,"delta":{"tool_calls":` + toolCalls + `},` +
		`"logprobs":null,"finish_reason":null}],"usage":null}`
}

var readFileTool = provider.ToolSpec{
	Name: "read_file", Description: "Read a file of the workspace.",
	Parameters: map[string]any{
		"type":       "object",
		"properties": map[string]any{"path": map[string]any{"type": "string"}},
		"required":   []any{"path"},
	},
}

func TestToolCallRoundTrip(t *testing.T) {
	f := newFakeAPI(t, func(w http.ResponseWriter, r *http.Request, n int) {
		if n > 1 {
			sse(w, roleChunk, chunk("Done: ", ""), chunk("fixed.", ""), chunk("", "stop"), usageChunk, "[DONE]")
			return
		}
		// Two parallel calls: id, type and name in the first fragment of
		// each, the arguments piece by piece.
		sse(w,
			`{"id":"chatcmpl-2","object":"chat.completion.chunk","created":1731000000,"model":"gpt-test-2024-07-18","system_fingerprint":"fp_1","choices":[{"index":0,"delta":{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"call_abc","type":"function","function":{"name":"read_file","arguments":""}}],"refusal":null},"logprobs":null,"finish_reason":null}],"usage":null}`,
			toolChunk(`[{"index":0,"function":{"arguments":"{\"pa"}}]`),
			toolChunk(`[{"index":0,"function":{"arguments":"th\": \"main"}}]`),
			toolChunk(`[{"index":0,"function":{"arguments":".go\"}"}}]`),
			toolChunk(`[{"index":1,"id":"call_def","type":"function","function":{"name":"list_files","arguments":""}}]`),
			toolChunk(`[{"index":1,"function":{"arguments":"{}"}}]`),
			chunk("", "tool_calls"), usageChunk, "[DONE]")
	})
	c := newClient(t, f.profile())
	if !c.Capabilities().Tools {
		t.Error("Capabilities().Tools = false")
	}
	req := provider.Request{
		System:   "You edit files.",
		Messages: []provider.Message{{Role: provider.RoleUser, Content: "Fix main.go."}},
		Tools:    []provider.ToolSpec{readFileTool, {Name: "list_files", Description: "List files."}},
	}
	r := drain(t, context.Background(), c, req)
	if r.Err != nil {
		t.Fatal(r.Err)
	}
	if len(r.Texts) != 0 || r.Done.Content != "" {
		t.Errorf("texts = %q, content = %q", r.Texts, r.Done.Content)
	}
	want := []provider.ToolCall{
		{ID: "call_abc", Name: "read_file", Input: json.RawMessage(`{"path": "main.go"}`), Status: provider.ToolPending},
		{ID: "call_def", Name: "list_files", Input: json.RawMessage(`{}`), Status: provider.ToolPending},
	}
	if !reflect.DeepEqual(r.Done.ToolCalls, want) {
		t.Errorf("ToolCalls = %+v, want %+v", r.Done.ToolCalls, want)
	}
	if r.Done.FinishReason != "tool_calls" || r.Done.Usage.InputTokens != 21 {
		t.Errorf("Done = %+v", r.Done)
	}

	wantTools := []any{
		map[string]any{"type": "function", "function": map[string]any{
			"name": "read_file", "description": "Read a file of the workspace.",
			"parameters": map[string]any{
				"type":       "object",
				"properties": map[string]any{"path": map[string]any{"type": "string"}},
				"required":   []any{"path"},
			},
		}},
		map[string]any{"type": "function", "function": map[string]any{"name": "list_files", "description": "List files."}},
	}
	if got := f.LastBody(t)["tools"]; !reflect.DeepEqual(got, wantTools) {
		t.Errorf("tools = %v", got)
	}

	// What the loop does next: the assistant turn with its calls, one tool
	// message per result, and the same tools again.
	req.Messages = append(req.Messages,
		provider.Message{Role: provider.RoleAssistant, Content: r.Done.Content, ToolCalls: r.Done.ToolCalls},
		provider.Message{Role: provider.RoleTool, ToolCallID: "call_abc", Content: "package main\n"},
		provider.Message{Role: provider.RoleTool, ToolCallID: "call_def", Content: "main.go"})
	r = drain(t, context.Background(), c, req)
	if r.Err != nil {
		t.Fatal(r.Err)
	}
	if r.Done.Content != "Done: fixed." || r.Done.FinishReason != "stop" || r.Done.ToolCalls != nil {
		t.Errorf("Done = %+v", r.Done)
	}
	body := f.LastBody(t)
	wantMsgs := []any{
		map[string]any{"role": "system", "content": "You edit files."},
		map[string]any{"role": "user", "content": "Fix main.go."},
		map[string]any{"role": "assistant", "tool_calls": []any{
			map[string]any{"id": "call_abc", "type": "function",
				"function": map[string]any{"name": "read_file", "arguments": `{"path": "main.go"}`}},
			map[string]any{"id": "call_def", "type": "function",
				"function": map[string]any{"name": "list_files", "arguments": `{}`}},
		}},
		map[string]any{"role": "tool", "tool_call_id": "call_abc", "content": "package main\n"},
		map[string]any{"role": "tool", "tool_call_id": "call_def", "content": "main.go"},
	}
	if !reflect.DeepEqual(body["messages"], wantMsgs) {
		got, _ := json.MarshalIndent(body["messages"], "", "  ")
		t.Errorf("messages = %s", got)
	}
	if !reflect.DeepEqual(body["tools"], wantTools) {
		t.Errorf("second request tools = %v", body["tools"])
	}
}

func TestToolCallsFromCompatibleServers(t *testing.T) {
	// Whole calls in one chunk each, all at index 0 (older Ollama), one
	// without an id, arguments that are not JSON, text before the calls,
	// and "stop" as the finish reason.
	f := newFakeAPI(t, func(w http.ResponseWriter, _ *http.Request, _ int) {
		sse(w, chunk("Let me look.", ""),
			toolChunk(`[{"index":0,"id":"call_1","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"a.go\"}"}}]`),
			toolChunk(`[{"index":0,"id":"call_2","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"b.go\"}"}}]`),
			toolChunk(`[{"index":1,"type":"function","function":{"name":"run_command","arguments":"go test"}}]`),
			chunk("", "stop"), "[DONE]")
	})
	c := newClient(t, f.profile())
	r := drain(t, context.Background(), c, provider.Request{
		Messages: []provider.Message{{Role: provider.RoleUser, Content: "go"}},
		Tools:    []provider.ToolSpec{readFileTool},
	})
	if r.Err != nil {
		t.Fatal(r.Err)
	}
	want := []provider.ToolCall{
		{ID: "call_1", Name: "read_file", Input: json.RawMessage(`{"path":"a.go"}`), Status: provider.ToolPending},
		{ID: "call_2", Name: "read_file", Input: json.RawMessage(`{"path":"b.go"}`), Status: provider.ToolPending},
		// no id from the server: one of its own
		{ID: "loopforge_call_2", Name: "run_command", Input: json.RawMessage(`"go test"`), Status: provider.ToolPending},
	}
	if !reflect.DeepEqual(r.Done.ToolCalls, want) {
		t.Errorf("ToolCalls = %+v", r.Done.ToolCalls)
	}
	if r.Done.Content != "Let me look." || r.Done.FinishReason != "tool_calls" {
		t.Errorf("Done = %+v", r.Done)
	}
	if _, err := json.Marshal(r.Done); err != nil {
		t.Errorf("the response does not marshal: %v", err)
	}

	// Sent back, the arguments are what the model wrote, and the text of
	// the assistant turn goes along with its calls.
	p, err := c.(*Client).params(provider.Request{Messages: []provider.Message{
		{Role: provider.RoleAssistant, Content: r.Done.Content, ToolCalls: r.Done.ToolCalls[2:]},
	}})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(p.Messages)
	if want := `[{"content":"Let me look.","tool_calls":[{"id":"` + want[2].ID +
		`","function":{"arguments":"go test","name":"run_command"},"type":"function"}],"role":"assistant"}]`; string(b) != want {
		t.Errorf("messages = %s\nwant       %s", b, want)
	}
}

func TestCheckProbesOnlyLocalEndpoints(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	up := srv.URL
	c, err := New(provider.Profile{Name: "local", Kind: "openai", BaseURL: up + "/v1"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.(*Client).Check(context.Background()); err != nil {
		t.Fatalf("a server answering 404 is there: %v", err)
	}
	srv.Close()
	_, err = c.(*Client).Check(context.Background())
	if !errors.Is(err, provider.ErrUnreachable) || !strings.Contains(err.Error(), "ollama serve") {
		t.Fatalf("closed server: %v", err)
	}
	keyed, err := New(provider.Profile{Name: "remote", Kind: "openai", BaseURL: up + "/v1", APIKeyEnv: "K", APIKey: "sk-x"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := keyed.(*Client).Check(context.Background()); err != nil {
		t.Fatalf("a keyed profile must not be contacted: %v", err)
	}
}

func TestConformance(t *testing.T) { conformance.Run(t, wire()) }

// wire is how this API streams and fails, for the shared suite.
func wire() conformance.Wire {
	return conformance.Wire{
		New: New,
		Profile: func(base string) provider.Profile {
			return provider.Profile{Name: "openai-test", Kind: "openai", Model: "gpt-test",
				BaseURL: base + "/v1", APIKeyEnv: "OPENAI_API_KEY", APIKey: "sk-test-123"}
		},
		Begin: func(w http.ResponseWriter) { sse(w, roleChunk) },
		Text:  func(w http.ResponseWriter, s string) { sse(w, chunk(s, "")) },
		End:   func(w http.ResponseWriter) { sse(w, chunk("", "stop"), usageChunk, "[DONE]") },
		Error: func(w http.ResponseWriter, status int, msg string) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			fmt.Fprintf(w, `{"error":{"message":%q,"type":"invalid_request_error","param":null,"code":null}}`, msg)
		},
	}
}
