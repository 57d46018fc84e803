package gemini

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"

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
		Name: "gemini-test", Kind: "gemini-api", Model: "gemini-test",
		BaseURL: f.URL, APIKeyEnv: "GEMINI_API_KEY", APIKey: "AIza-test-123",
		Retry: conformance.FastRetry(),
	}
}

// sse writes events the way streamGenerateContent?alt=sse does: "data: <json>"
// terminated by CRLF CRLF, flushed one by one.
func sse(w http.ResponseWriter, events ...string) {
	w.Header().Set("Content-Type", "text/event-stream")
	for _, e := range events {
		fmt.Fprintf(w, "data: %s\r\n\r\n", e)
		w.(http.Flusher).Flush()
	}
}

// chunk is one GenerateContentResponse with a text part and, if given, a
// finish reason, and the running usage.
func chunk(text, finish string, out int) string {
	fr := ""
	if finish != "" {
		fr = fmt.Sprintf(`,"finishReason":%q`, finish)
	}
	return fmt.Sprintf(`{"candidates":[{"content":{"parts":[{"text":%q}],"role":"model"}%s,"index":0}],`+
		`"usageMetadata":{"promptTokenCount":9,"candidatesTokenCount":%d,"totalTokenCount":%d,"thoughtsTokenCount":20,`+
		`"promptTokensDetails":[{"modality":"TEXT","tokenCount":9}]},"modelVersion":"gemini-test-001","responseId":"r1"}`,
		text, fr, out, 29+out)
}

// thought is a thinking part, which is not part of the answer.
const thought = `{"candidates":[{"content":{"parts":[{"text":"**Planning** the program","thought":true}],"role":"model"},"index":0}],"modelVersion":"gemini-test-001","responseId":"r1"}`

func happy(w http.ResponseWriter, _ *http.Request, _ int) {
	sse(w, thought, chunk("Hel", "", 1), chunk("lo, ", "", 2), chunk("world", "STOP", 3))
}

func errorAnswer(w http.ResponseWriter, status int, body string) {
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	w.WriteHeader(status)
	io.WriteString(w, body)
}

func apiError(code int, status, msg string) string {
	return fmt.Sprintf(`{"error":{"code":%d,"message":%q,"status":%q}}`, code, msg, status)
}

// badKey is what the Gemini API really answers to a wrong key.
const badKey = `{"error":{"code":400,"message":"API key not valid. Please pass a valid API key.","status":"INVALID_ARGUMENT",` +
	`"details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"API_KEY_INVALID","domain":"googleapis.com"}]}}`

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
	if c.Name() != "gemini-test" {
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
	// Last running total: 3 candidate tokens + 20 thinking tokens.
	if d.Usage.InputTokens != 9 || d.Usage.OutputTokens != 23 {
		t.Errorf("usage = %+v, want 9 in / 23 out", d.Usage)
	}
	if d.Model != "gemini-test-001" || d.FinishReason != "STOP" || d.Duration <= 0 {
		t.Errorf("Done = %+v", d)
	}

	if f.Target(t, 0) != "/v1beta/models/gemini-test:streamGenerateContent?alt=sse" {
		t.Errorf("URL = %q", f.Target(t, 0))
	}
	if got := f.Header(t, 0).Get("X-Goog-Api-Key"); got != "AIza-test-123" {
		t.Errorf("x-goog-api-key = %q", got)
	}
	body := f.LastBody(t)
	si, _ := body["systemInstruction"].(map[string]any)
	if !reflect.DeepEqual(si["parts"], []any{map[string]any{"text": "You write Go."}}) {
		t.Errorf("systemInstruction = %v", body["systemInstruction"])
	}
	part := func(s string) []any { return []any{map[string]any{"text": s}} }
	wantContents := []any{
		map[string]any{"role": "user", "parts": part("Write hello world.")},
		map[string]any{"role": "model", "parts": part("package main")},
		map[string]any{"role": "user", "parts": part("Now with a newline.")},
	}
	if !reflect.DeepEqual(body["contents"], wantContents) {
		t.Errorf("contents = %v", body["contents"])
	}
	gc, _ := body["generationConfig"].(map[string]any)
	if gc["maxOutputTokens"] != float64(512) {
		t.Errorf("generationConfig = %v", gc)
	}
	if _, ok := gc["responseMimeType"]; ok {
		t.Error("responseMimeType sent without a schema")
	}
}

func TestStructuredOutput(t *testing.T) {
	schema := &provider.Schema{Name: "code", JSON: map[string]any{
		"type": "object", "properties": map[string]any{"code": map[string]any{"type": "string"}},
		"required": []any{"code"},
	}}
	off := false
	tests := []struct {
		name       string
		structured *bool
		schema     *provider.Schema
		wantCap    bool
		wantSchema bool
	}{
		{"schema sent by default", nil, schema, true, true},
		{"no schema", nil, nil, true, false},
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
			gc, _ := f.LastBody(t)["generationConfig"].(map[string]any)
			_, has := gc["responseJsonSchema"]
			if has != tt.wantSchema {
				t.Fatalf("responseJsonSchema present = %v, want %v (%v)", has, tt.wantSchema, gc)
			}
			if has && (gc["responseMimeType"] != "application/json" || !reflect.DeepEqual(gc["responseJsonSchema"], any(schema.JSON))) {
				t.Errorf("generationConfig = %v", gc)
			}
		})
	}
}

func TestBaseURLAndDefaults(t *testing.T) {
	tests := []struct {
		name, suffix, wantURL string
	}{
		{"host only", "", "/v1beta/models/gemini-3.8-flash:streamGenerateContent?alt=sse"},
		{"copied with its version", "/v1beta", "/v1beta/models/gemini-3.8-flash:streamGenerateContent?alt=sse"},
		{"another version behind a proxy path", "/proxy/v1/", "/proxy/v1/models/gemini-3.8-flash:streamGenerateContent?alt=sse"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeAPI(t, happy)
			c := newClient(t, provider.Profile{BaseURL: f.URL + tt.suffix, APIKey: "k"})
			if r := drain(t, context.Background(), c, provider.Request{
				Messages: []provider.Message{{Role: provider.RoleUser, Content: "hi"}}}); r.Err != nil {
				t.Fatal(r.Err)
			}
			if f.Target(t, 0) != tt.wantURL {
				t.Errorf("URL = %q, want %q", f.Target(t, 0), tt.wantURL)
			}
			body := f.LastBody(t)
			if _, ok := body["systemInstruction"]; ok {
				t.Error("empty system prompt sent")
			}
		})
	}
}

func TestHTTPErrorsAndRetries(t *testing.T) {
	conformance.RunErrorCases(t, wire(), errorAnswer, []conformance.ErrorCase{
		conformance.Case("401 names the key variable", []int{401}, apiError(401, "UNAUTHENTICATED", "Request had invalid authentication credentials."), provider.ErrAuth, 1, 401, "GEMINI_API_KEY", "invalid authentication credentials"),
		conformance.Case("400 API_KEY_INVALID is auth", []int{400}, badKey, provider.ErrAuth, 1, 400, "GEMINI_API_KEY", "API key not valid"),
		conformance.Case("403 is no access to the model", []int{403}, apiError(403, "PERMISSION_DENIED", "Method doesn't allow unregistered callers."), provider.ErrForbidden, 1, 403, "unregistered callers", `model "gemini-test"`),
		// A 404 naming an unknown model is a model not found: models_test.go.
		conformance.Case("status name without a code", []int{400}, `{"error":{"message":"Invalid JSON payload received.\nUnknown name \"x\"","status":"INVALID_ARGUMENT"}}`, provider.ErrBadRequest, 1, 400, "Invalid JSON payload received."),
		conformance.Case("plain-text 502 every time", []int{502, 502, 502, 502, 502}, "<html>\n<title>502</title></html>", provider.ErrServer, 4, 502, "<html>"),
		conformance.Case("429 then success", []int{429}, apiError(429, "RESOURCE_EXHAUSTED", "Quota exceeded"), nil, 2, 0),
		conformance.Case("503 twice then success", []int{503, 503}, apiError(503, "UNAVAILABLE", "The model is overloaded. Please try again later."), nil, 3, 0),
		conformance.Case("429 every time", []int{429, 429, 429, 429, 429}, apiError(429, "RESOURCE_EXHAUSTED", "You exceeded your current quota"), provider.ErrRateLimit, 4, 429, "You exceeded your current quota"),
		conformance.Case("500 every time", []int{500, 500, 500, 500, 500}, apiError(500, "INTERNAL", "An internal error has occurred."), provider.ErrServer, 4, 500, "An internal error has occurred."),
	})
}

func TestMissingKeyFailsAtNew(t *testing.T) {
	f := newFakeAPI(t, happy)
	tests := []struct {
		name    string
		p       provider.Profile
		wantEnv string
	}{
		{"named variable empty", provider.Profile{Name: "gemini-api", APIKeyEnv: "GEMINI_API_KEY", BaseURL: f.URL}, "GEMINI_API_KEY"},
		{"no variable named", provider.Profile{Name: "g", APIKeyEnv: ""}, DefaultKeyEnv},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := New(tt.p)
			if c != nil || !errors.Is(err, provider.ErrMissingKey) {
				t.Fatalf("New = %v, %v; want ErrMissingKey", c, err)
			}
			if !strings.Contains(err.Error(), tt.wantEnv) {
				t.Errorf("err = %q, want it to name %s", err, tt.wantEnv)
			}
		})
	}
	if n := f.Attempts.Load(); n != 0 {
		t.Errorf("%d requests made", n)
	}
}

func TestBrokenStreams(t *testing.T) {
	// Each chunk carries the running usage (9 in; 20 thinking + n out):
	// what was counted before the break is kept.
	tests := []struct {
		name    string
		events  []string
		cut     bool // the server drops the connection after the events
		want    error
		texts   int
		partial string
		usage   provider.Usage
	}{
		{"error event mid-stream", []string{chunk("par", "", 1), apiError(500, "INTERNAL", "An internal error has occurred.")}, false, provider.ErrServer, 1, "par", provider.Usage{InputTokens: 9, OutputTokens: 21}},
		{"ends without finishReason", []string{chunk("par", "", 1), chunk("tial", "", 2)}, false, provider.ErrInterrupted, 2, "partial", provider.Usage{InputTokens: 9, OutputTokens: 22}},
		{"connection cut mid-answer", []string{chunk("par", "", 1), chunk("tial", "", 2)}, true, provider.ErrInterrupted, 2, "partial", provider.Usage{InputTokens: 9, OutputTokens: 22}},
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
			if len(r.Texts) != tt.texts || f.Attempts.Load() != 1 {
				t.Errorf("texts = %q, attempts = %d", r.Texts, f.Attempts.Load())
			}
			if got := provider.PartialOf(r.Err); got == nil || got.Content != tt.partial || got.Usage != tt.usage || got.Model != "gemini-test-001" {
				t.Errorf("partial answer = %+v, want %q and %+v", got, tt.partial, tt.usage)
			}
		})
	}
}

func TestBlockedIsARefusal(t *testing.T) {
	tests := []struct {
		name            string
		events          []string
		category, words string
		texts           int
	}{
		{"prompt blocked", []string{`{"promptFeedback":{"blockReason":"PROHIBITED_CONTENT"},"usageMetadata":{"promptTokenCount":9,"totalTokenCount":9},"modelVersion":"gemini-test-001"}`},
			"PROHIBITED_CONTENT", "the model refused to answer (PROHIBITED_CONTENT): the prompt was blocked", 0},
		{"prompt blocked, with the API's words", []string{`{"promptFeedback":{"blockReason":"OTHER","blockReasonMessage":"The prompt was blocked for an unspecified reason."},"modelVersion":"gemini-test-001"}`},
			"OTHER", "(OTHER): The prompt was blocked for an unspecified reason.", 0},
		{"answer stopped by a safety filter", []string{chunk("Here is", "", 1),
			`{"candidates":[{"content":{"parts":[{"text":""}],"role":"model"},"finishReason":"SAFETY","index":0,"safetyRatings":[` +
				`{"category":"HARM_CATEGORY_HARASSMENT","probability":"NEGLIGIBLE"},{"category":"HARM_CATEGORY_DANGEROUS_CONTENT","probability":"HIGH","blocked":true}]}],` +
				`"usageMetadata":{"promptTokenCount":9,"candidatesTokenCount":2,"totalTokenCount":11},"modelVersion":"gemini-test-001"}`},
			"SAFETY", "(SAFETY): the answer was blocked for HARM_CATEGORY_DANGEROUS_CONTENT", 1},
		{"recitation", []string{`{"candidates":[{"finishReason":"RECITATION","index":0}],"modelVersion":"gemini-test-001"}`},
			"RECITATION", "(RECITATION): the answer was blocked", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeAPI(t, func(w http.ResponseWriter, _ *http.Request, _ int) { sse(w, tt.events...) })
			r := drain(t, context.Background(), newClient(t, f.profile()), conversation)
			var pe *provider.Error
			if !errors.Is(r.Err, provider.ErrRefused) || !errors.As(r.Err, &pe) || pe.Category != tt.category {
				t.Fatalf("err = %#v, want a refusal (%s)", r.Err, tt.category)
			}
			if !strings.Contains(r.Err.Error(), tt.words) {
				t.Errorf("message %q lacks %q", r.Err, tt.words)
			}
			if len(r.Texts) != tt.texts || f.Attempts.Load() != 1 || len(r.Notices) != 0 {
				t.Errorf("texts %q, %d attempts, notices %q: a refusal is final", r.Texts, f.Attempts.Load(), r.Notices)
			}
		})
	}
}

func TestBadProfileAndRole(t *testing.T) {
	if _, err := New(provider.Profile{APIKey: "k", BaseURL: "generativelanguage.googleapis.com"}); err == nil {
		t.Error("a base URL without a scheme was accepted")
	}
	f := newFakeAPI(t, happy)
	r := drain(t, context.Background(), newClient(t, f.profile()),
		provider.Request{Messages: []provider.Message{{Role: "narrator", Content: "x"}}})
	if !errors.Is(r.Err, provider.ErrBadRequest) || f.Attempts.Load() != 0 {
		t.Errorf("err = %v after %d requests", r.Err, f.Attempts.Load())
	}
	for _, m := range []provider.Message{
		{Role: provider.RoleTool, Content: "x"},                       // no id
		{Role: provider.RoleTool, ToolCallID: "call_9", Content: "x"}, // no call with that id
	} {
		r = drain(t, context.Background(), newClient(t, f.profile()), provider.Request{Messages: []provider.Message{m}})
		if !errors.Is(r.Err, provider.ErrBadRequest) || f.Attempts.Load() != 0 {
			t.Errorf("%+v: err = %v after %d requests", m, r.Err, f.Attempts.Load())
		}
	}
}

// --- tools ----------------------------------------------------------------

var readFileTool = provider.ToolSpec{
	Name: "read_file", Description: "Read a file of the workspace.",
	Parameters: map[string]any{
		"type":       "object",
		"properties": map[string]any{"path": map[string]any{"type": "string"}},
		"required":   []any{"path"},
	},
}

func TestFunctionCallRoundTrip(t *testing.T) {
	f := newFakeAPI(t, func(w http.ResponseWriter, r *http.Request, n int) {
		if n > 1 {
			happy(w, r, n)
			return
		}
		// Text, then two parallel calls in one chunk: the first without an
		// id and with the thought signature, the second with an id.
		sse(w, thought,
			chunk("Let me look.", "", 2),
			`{"candidates":[{"content":{"parts":[`+
				`{"functionCall":{"name":"read_file","args":{"path":"main.go"}},"thoughtSignature":"c2lnLTE="},`+
				`{"functionCall":{"id":"call_b","name":"list_files","args":{}}}],"role":"model"},`+
				`"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":40,"candidatesTokenCount":12,`+
				`"totalTokenCount":52},"modelVersion":"gemini-test-001","responseId":"r2"}`)
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
	if r.Done.Content != "Let me look." || !reflect.DeepEqual(r.Texts, []string{"Let me look."}) {
		t.Errorf("texts = %q, content = %q", r.Texts, r.Done.Content)
	}
	calls := r.Done.ToolCalls
	if len(calls) != 2 {
		t.Fatalf("ToolCalls = %+v", calls)
	}
	if !strings.HasPrefix(calls[0].ID, "loopforge_") || len(calls[0].ID) <= len("loopforge_") {
		t.Errorf("generated id = %q", calls[0].ID)
	}
	want := []provider.ToolCall{
		{ID: calls[0].ID, Name: "read_file", Input: json.RawMessage(`{"path":"main.go"}`), Status: provider.ToolPending},
		{ID: "call_b", Name: "list_files", Input: json.RawMessage(`{}`), Status: provider.ToolPending},
	}
	if !reflect.DeepEqual(calls, want) {
		t.Errorf("ToolCalls = %+v, want %+v", calls, want)
	}
	if r.Done.FinishReason != "tool_calls" || r.Done.Usage.InputTokens != 40 {
		t.Errorf("Done = %+v", r.Done)
	}
	wantTools := []any{map[string]any{"functionDeclarations": []any{
		map[string]any{"name": "read_file", "description": "Read a file of the workspace.",
			"parametersJsonSchema": map[string]any{
				"type":       "object",
				"properties": map[string]any{"path": map[string]any{"type": "string"}},
				"required":   []any{"path"},
			}},
		map[string]any{"name": "list_files", "description": "List files."},
	}}}
	if got := f.LastBody(t)["tools"]; !reflect.DeepEqual(got, wantTools) {
		b, _ := json.Marshal(f.LastBody(t))
		t.Errorf("tools = %v in %s", got, b)
	}

	// What the loop sends next: the model turn with its calls, then one
	// tool message per result.
	req.Messages = append(req.Messages,
		provider.Message{Role: provider.RoleAssistant, Content: r.Done.Content, ToolCalls: calls},
		provider.Message{Role: provider.RoleTool, ToolCallID: calls[0].ID, Content: "package main\n"},
		provider.Message{Role: provider.RoleTool, ToolCallID: "call_b", Content: "main.go"})
	r = drain(t, context.Background(), c, req)
	if r.Err != nil {
		t.Fatal(r.Err)
	}
	if r.Done.Content != "Hello, world" || r.Done.FinishReason != "STOP" || r.Done.ToolCalls != nil {
		t.Errorf("Done = %+v", r.Done)
	}
	body := f.LastBody(t)
	// The generated id stays here; the signature goes back with its call.
	wantContents := []any{
		map[string]any{"role": "user", "parts": []any{map[string]any{"text": "Fix main.go."}}},
		map[string]any{"role": "model", "parts": []any{
			map[string]any{"text": "Let me look."},
			map[string]any{"functionCall": map[string]any{"name": "read_file", "args": map[string]any{"path": "main.go"}},
				"thoughtSignature": "c2lnLTE="},
			map[string]any{"functionCall": map[string]any{"id": "call_b", "name": "list_files"}},
		}},
		map[string]any{"role": "user", "parts": []any{
			map[string]any{"functionResponse": map[string]any{"name": "read_file",
				"response": map[string]any{"output": "package main\n"}}},
			map[string]any{"functionResponse": map[string]any{"id": "call_b", "name": "list_files",
				"response": map[string]any{"output": "main.go"}}},
		}},
	}
	if !reflect.DeepEqual(body["contents"], wantContents) {
		b, _ := json.MarshalIndent(body["contents"], "", "  ")
		t.Errorf("contents = %s", b)
	}
	if !reflect.DeepEqual(body["tools"], wantTools) {
		t.Errorf("second request tools = %v", body["tools"])
	}
}

func TestReplayedCallWithoutSignature(t *testing.T) {
	// Calls this Client never returned (another run, a stored history) get
	// the documented sentinel on the first call of the turn.
	c := newClient(t, provider.Profile{Name: "g", APIKey: "k"}).(*Client)
	body, err := c.request(provider.Request{Messages: []provider.Message{
		{Role: provider.RoleUser, Content: "go"},
		{Role: provider.RoleAssistant, ToolCalls: []provider.ToolCall{
			{ID: "c1", Name: "run", Input: json.RawMessage(`"not an object"`)},
			{ID: "c2", Name: "run", Input: json.RawMessage(`{"cmd":"ls"}`)},
		}},
		{Role: provider.RoleTool, ToolCallID: "c1", Content: "error"},
		{Role: provider.RoleTool, ToolCallID: "c2", Content: "ok"},
		{Role: provider.RoleUser, Content: "now stop"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(body.Contents)
	want := `[{"parts":[{"text":"go"}],"role":"user"},` +
		`{"parts":[{"functionCall":{"id":"c1","name":"run"},"thoughtSignature":"c2tpcF90aG91Z2h0X3NpZ25hdHVyZV92YWxpZGF0b3I="},` +
		`{"functionCall":{"id":"c2","args":{"cmd":"ls"},"name":"run"}}],"role":"model"},` +
		`{"parts":[{"functionResponse":{"id":"c1","name":"run","response":{"output":"error"}}},` +
		`{"functionResponse":{"id":"c2","name":"run","response":{"output":"ok"}}},{"text":"now stop"}],"role":"user"}]`
	if string(b) != want {
		t.Errorf("contents = %s\nwant        %s", b, want)
	}
}

func TestConformance(t *testing.T) { conformance.Run(t, wire()) }

// wire is how this API streams and fails, for the shared suite.
func wire() conformance.Wire {
	return conformance.Wire{
		New: New,
		Profile: func(base string) provider.Profile {
			return provider.Profile{Name: "gemini-test", Kind: "gemini-api", Model: "gemini-test",
				BaseURL: base, APIKeyEnv: "GEMINI_API_KEY", APIKey: "AIza-test-123"}
		},
		// The API sends nothing before its first chunk.
		Begin: func(w http.ResponseWriter) {
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(http.StatusOK)
			w.(http.Flusher).Flush()
		},
		Text: func(w http.ResponseWriter, s string) { sse(w, chunk(s, "", 1)) },
		End:  func(w http.ResponseWriter) { sse(w, chunk("", "STOP", 2)) },
		Error: func(w http.ResponseWriter, status int, msg string) {
			name := map[int]string{400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 403: "PERMISSION_DENIED",
				404: "NOT_FOUND", 429: "RESOURCE_EXHAUSTED", 503: "UNAVAILABLE"}[status]
			if name == "" {
				name = "INTERNAL"
			}
			errorAnswer(w, status, apiError(status, name, msg))
		},
		MissingModel404: true,
	}
}
