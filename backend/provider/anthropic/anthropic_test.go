package anthropic

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
		Name: "anthropic-test", Kind: "anthropic", Model: "claude-test",
		BaseURL: f.URL, APIKeyEnv: "ANTHROPIC_API_KEY", APIKey: "sk-ant-test-123",
		Retry: conformance.FastRetry(),
	}
}

// events writes a Messages event stream: "event: <type>" and "data: <json>"
// lines, each event flushed on its own.
func events(w http.ResponseWriter, evs ...string) {
	w.Header().Set("Content-Type", "text/event-stream")
	for _, e := range evs {
		var head struct{ Type string }
		_ = json.Unmarshal([]byte(e), &head)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", head.Type, e)
		w.(http.Flusher).Flush()
	}
}

func textDelta(s string) string {
	return fmt.Sprintf(`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":%q}}`, s)
}

const (
	messageStart = `{"type":"message_start","message":{"id":"msg_01","type":"message","role":"assistant","model":"claude-test-20250929","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":25,"cache_creation_input_tokens":0,"cache_read_input_tokens":4,"output_tokens":1}}}`
	blockStart   = `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`
	ping         = `{"type":"ping"}`
	blockStop    = `{"type":"content_block_stop","index":0}`
	messageDelta = `{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":15}}`
	messageStop  = `{"type":"message_stop"}`
	// A thinking block before the text: none of it belongs to the answer.
	thinkingStart = `{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":""}}`
	thinkingDelta = `{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"Let me think."}}`
	signature     = `{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"EqQB"}}`
)

func happy(w http.ResponseWriter, _ *http.Request, _ int) {
	events(w, messageStart, thinkingStart, thinkingDelta, signature, blockStop,
		blockStart, ping, textDelta("Hel"), textDelta("lo, "), textDelta("world"), blockStop, messageDelta, messageStop)
}

// errorAnswer answers with an Anthropic error body; retry-after-ms keeps the
// backoff at a millisecond.
func errorAnswer(w http.ResponseWriter, status int, body string) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("retry-after-ms", "1")
	w.Header().Set("request-id", "req_test")
	w.WriteHeader(status)
	io.WriteString(w, body)
}

func apiError(typ, msg string) string {
	return fmt.Sprintf(`{"type":"error","error":{"type":%q,"message":%q},"request_id":"req_test"}`, typ, msg)
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
	Schema: &provider.Schema{Name: "code", JSON: map[string]any{"type": "object"}},
}

// --- tests ----------------------------------------------------------------

func TestStreamDeltasUsageAndRequest(t *testing.T) {
	f := newFakeAPI(t, happy)
	c := newClient(t, f.profile())
	if c.Name() != "anthropic-test" || c.Capabilities().StructuredOutput {
		t.Errorf("Name/Capabilities = %q/%+v", c.Name(), c.Capabilities())
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
	// 25 input + 4 read from the cache; output as last reported by message_delta.
	if d.Usage.InputTokens != 29 || d.Usage.OutputTokens != 15 {
		t.Errorf("usage = %+v, want 29 in / 15 out", d.Usage)
	}
	if d.Model != "claude-test-20250929" || d.FinishReason != "end_turn" || d.Duration <= 0 {
		t.Errorf("Done = %+v", d)
	}

	if f.Target(t, 0) != "/v1/messages" {
		t.Errorf("path = %q", f.Target(t, 0))
	}
	h := f.Header(t, 0)
	if h.Get("X-Api-Key") != "sk-ant-test-123" || h.Get("Anthropic-Version") == "" || h.Get("Authorization") != "" {
		t.Errorf("auth headers: x-api-key=%q anthropic-version=%q authorization=%q",
			h.Get("X-Api-Key"), h.Get("Anthropic-Version"), h.Get("Authorization"))
	}
	body := f.LastBody(t)
	if body["model"] != "claude-test" || body["stream"] != true || body["max_tokens"] != float64(DefaultMaxTokens) {
		t.Errorf("model/stream/max_tokens = %v/%v/%v", body["model"], body["stream"], body["max_tokens"])
	}
	wantSystem := []any{map[string]any{"type": "text", "text": "You write Go."}}
	if !reflect.DeepEqual(body["system"], wantSystem) {
		t.Errorf("system = %v", body["system"])
	}
	text := func(s string) []any { return []any{map[string]any{"type": "text", "text": s}} }
	wantMsgs := []any{
		map[string]any{"role": "user", "content": text("Write hello world.")},
		map[string]any{"role": "assistant", "content": text("package main")},
		map[string]any{"role": "user", "content": text("Now with a newline.")},
	}
	if !reflect.DeepEqual(body["messages"], wantMsgs) {
		t.Errorf("messages = %v", body["messages"])
	}
	for _, k := range []string{"output_config", "output_format", "response_format"} {
		if _, ok := body[k]; ok {
			t.Errorf("%s sent although structured output is off", k)
		}
	}
}

func TestProfileDefaults(t *testing.T) {
	f := newFakeAPI(t, happy)
	// A proxy that needs no key, its URL copied with /v1; default model;
	// the request's own max_tokens; no system prompt.
	c := newClient(t, provider.Profile{Name: "proxy", BaseURL: f.URL + "/v1/"})
	r := drain(t, context.Background(), c, provider.Request{
		Messages: []provider.Message{{Role: provider.RoleUser, Content: "hi"}}, MaxTokens: 100})
	if r.Err != nil {
		t.Fatal(r.Err)
	}
	body := f.LastBody(t)
	if body["model"] != DefaultModel || body["max_tokens"] != float64(100) {
		t.Errorf("model/max_tokens = %v/%v", body["model"], body["max_tokens"])
	}
	if _, ok := body["system"]; ok {
		t.Error("empty system prompt sent")
	}
	if f.Target(t, 0) != "/v1/messages" || f.Header(t, 0).Get("X-Api-Key") != "" {
		t.Errorf("path %q, x-api-key %q", f.Target(t, 0), f.Header(t, 0).Get("X-Api-Key"))
	}
}

func TestHTTPErrorsAndRetries(t *testing.T) {
	conformance.RunErrorCases(t, wire(), errorAnswer, []conformance.ErrorCase{
		conformance.Case("401 names the key variable", []int{401}, apiError("authentication_error", "invalid x-api-key"), provider.ErrAuth, 1, 401, "ANTHROPIC_API_KEY", "invalid x-api-key"),
		conformance.Case("403 is no access to the model", []int{403}, apiError("permission_error", "Your API key does not have permission\nto use the specified resource."), provider.ErrForbidden, 1, 403, "Your API key does not have permission", `model "claude-test"`),
		// A 404 naming an unknown model is a model not found: models_test.go.
		conformance.Case("400 with an HTML body", []int{400}, "<html>\n<body>Bad Request</body>\n</html>", provider.ErrBadRequest, 1, 400, "<html>"),
		conformance.Case("429 then success", []int{429}, apiError("rate_limit_error", "Number of request tokens has exceeded your rate limit"), nil, 2, 0),
		conformance.Case("529 overloaded then success", []int{529}, apiError("overloaded_error", "Overloaded"), nil, 2, 0),
		conformance.Case("429 every time", []int{429, 429, 429, 429, 429}, apiError("rate_limit_error", "rate limit exceeded"), provider.ErrRateLimit, 4, 429, "rate limit exceeded"),
		conformance.Case("500 every time", []int{500, 500, 500, 500, 500}, apiError("api_error", "Internal server error"), provider.ErrServer, 4, 500, "Internal server error"),
	})
}

func TestMissingKeyFailsAtNew(t *testing.T) {
	f := newFakeAPI(t, happy)
	tests := []struct {
		name    string
		p       provider.Profile
		wantEnv string
	}{
		{"named variable empty", provider.Profile{Name: "claude-api", APIKeyEnv: "MY_CLAUDE_KEY", BaseURL: f.URL}, "MY_CLAUDE_KEY"},
		{"no variable, default endpoint", provider.Profile{Name: "anthropic"}, DefaultKeyEnv},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := New(tt.p)
			if c != nil || !errors.Is(err, provider.ErrMissingKey) {
				t.Fatalf("New = %v, %v; want ErrMissingKey", c, err)
			}
			var pe *provider.Error
			if errors.As(err, &pe); pe.EnvVar != tt.wantEnv || !strings.Contains(err.Error(), tt.wantEnv) {
				t.Errorf("err = %q, want it to name %s", err, tt.wantEnv)
			}
		})
	}
	if n := f.Attempts.Load(); n != 0 {
		t.Errorf("%d requests made", n)
	}
}

func TestBrokenStreams(t *testing.T) {
	// What arrived before the break is kept: the text, and the tokens
	// message_start counted (25 input + 4 cached, 1 output).
	counted := provider.Usage{InputTokens: 29, OutputTokens: 1}
	tests := []struct {
		name       string
		events     []string
		cut        bool // the server drops the connection after the events
		want       error
		wantStatus int
		texts      int
		attempts   int32
		partial    string
		usage      provider.Usage
	}{
		{"overloaded error event mid-stream", []string{messageStart, blockStart, textDelta("par"), apiError("overloaded_error", "Overloaded")}, false, provider.ErrServer, 529, 1, 1, "par", counted},
		// Before any text, an error event is retried like its status.
		{"rate limit error event", []string{apiError("rate_limit_error", "slow down")}, false, provider.ErrRateLimit, 429, 0, 4, "", provider.Usage{}},
		{"ends without message_stop", []string{messageStart, blockStart, textDelta("par"), textDelta("tial")}, false, provider.ErrInterrupted, 0, 2, 1, "partial", counted},
		{"connection cut mid-answer", []string{messageStart, blockStart, textDelta("par"), textDelta("tial")}, true, provider.ErrInterrupted, 0, 2, 1, "partial", counted},
		// Cut before any text: retried; each attempt's message_start
		// counted its input, and all of it was spent.
		{"connection cut after message_start", []string{messageStart}, true, provider.ErrInterrupted, 0, 0, 4, "", provider.Usage{InputTokens: 4 * 29, OutputTokens: 4}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeAPI(t, func(w http.ResponseWriter, _ *http.Request, _ int) {
				events(w, tt.events...)
				if tt.cut {
					panic(http.ErrAbortHandler) // the server goes away mid-answer
				}
			})
			r := drain(t, context.Background(), newClient(t, f.profile()), conversation)
			if !errors.Is(r.Err, tt.want) {
				t.Fatalf("err = %v, want %v", r.Err, tt.want)
			}
			var pe *provider.Error
			if errors.As(r.Err, &pe); pe.Status != tt.wantStatus {
				t.Errorf("status = %d, want %d", pe.Status, tt.wantStatus)
			}
			if len(r.Texts) != tt.texts || f.Attempts.Load() != tt.attempts {
				t.Errorf("texts = %q, attempts = %d", r.Texts, f.Attempts.Load())
			}
			got := provider.PartialOf(r.Err)
			if tt.usage == (provider.Usage{}) && tt.partial == "" {
				if got != nil {
					t.Errorf("partial answer %+v, want none", got)
				}
				return
			}
			if got == nil || got.Content != tt.partial || got.Usage != tt.usage || got.Status != provider.StatusPartial {
				t.Fatalf("partial answer = %+v, want %q and %+v", got, tt.partial, tt.usage)
			}
		})
	}
}

func TestRefusal(t *testing.T) {
	// The shape of a refusal: no content block, stop_reason "refusal" and
	// stop_details naming the policy's category, with an explanation.
	refusal := `{"type":"message_delta","delta":{"stop_reason":"refusal","stop_sequence":null,"stop_details":{"type":"refusal",` +
		`"category":"bio","explanation":"This request was declined under the Usage Policy."}},"usage":{"output_tokens":7}}`
	bare := `{"type":"message_delta","delta":{"stop_reason":"refusal","stop_sequence":null},"usage":{"output_tokens":2}}`
	tests := []struct {
		name            string
		events          []string
		category, words string
		texts           []string
		usage           provider.Usage
	}{
		{"with stop_details", []string{messageStart, ping, refusal, messageStop}, "bio",
			"the model refused to answer (bio): This request was declined under the Usage Policy.", nil, provider.Usage{InputTokens: 29, OutputTokens: 7}},
		// A refusal may come after some text: that text is kept.
		{"after some text, without details", []string{messageStart, blockStart, textDelta("I can"), blockStop, bare, messageStop}, "",
			`the model refused to answer: the API ended the answer with stop_reason "refusal"`, []string{"I can"}, provider.Usage{InputTokens: 29, OutputTokens: 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeAPI(t, func(w http.ResponseWriter, _ *http.Request, _ int) { events(w, tt.events...) })
			r := drain(t, context.Background(), newClient(t, f.profile()), conversation)
			var pe *provider.Error
			if !errors.Is(r.Err, provider.ErrRefused) || !errors.As(r.Err, &pe) || pe.Category != tt.category {
				t.Fatalf("err = %#v, want a refusal of category %q", r.Err, tt.category)
			}
			if msg := r.Err.Error(); !strings.Contains(msg, tt.words) {
				t.Errorf("message %q lacks %q", msg, tt.words)
			}
			if f.Attempts.Load() != 1 || len(r.Notices) != 0 || !reflect.DeepEqual(r.Texts, tt.texts) {
				t.Errorf("%d attempts, notices %q, texts %q: a refusal is final", f.Attempts.Load(), r.Notices, r.Texts)
			}
			if got := provider.PartialOf(r.Err); got == nil || got.Usage != tt.usage || got.Content != strings.Join(tt.texts, "") {
				t.Errorf("partial = %+v, want usage %+v", got, tt.usage)
			}
		})
	}
}

func TestMessageRestartedMidStream(t *testing.T) {
	start := func(id string) string {
		return `{"type":"message_start","message":{"id":"` + id + `","type":"message","role":"assistant","model":"claude-test-20250929",` +
			`"content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":12,"output_tokens":1}}}`
	}
	toolStart := func(id string) string {
		return `{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"` + id + `","name":"write_file","input":{}}}`
	}
	input := func(js string) string {
		return fmt.Sprintf(`{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":%q}}`, js)
	}
	toolsEnd := []string{`{"type":"content_block_stop","index":1}`,
		`{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":40}}`, messageStop}

	t.Run("another message inside an open tool call is refused", func(t *testing.T) {
		// A stream spliced from two answers: the first is cut inside its
		// tool call's input, the second starts over with its own id.
		evs := append([]string{start("msg_A"), toolStart("toolu_A"), input(`{"path":"notes`),
			start("msg_B"), toolStart("toolu_B"), input(`{"path":"notes.txt"}`)}, toolsEnd...)
		f := newFakeAPI(t, func(w http.ResponseWriter, _ *http.Request, _ int) { events(w, evs...) })
		r := drain(t, context.Background(), newClient(t, f.profile()), conversation)
		if !errors.Is(r.Err, provider.ErrProtocol) || r.Done != nil {
			t.Fatalf("err = %v, done = %+v; want a protocol error and no answer (no tool calls to run)", r.Err, r.Done)
		}
		if msg := r.Err.Error(); !strings.Contains(msg, "msg_A") || !strings.Contains(msg, "msg_B") {
			t.Errorf("message %q should name both messages", msg)
		}
		if f.Attempts.Load() != 1 {
			t.Errorf("%d attempts", f.Attempts.Load())
		}
	})
	t.Run("the same message_start twice is one message", func(t *testing.T) {
		evs := append([]string{start("msg_A"), start("msg_A"), toolStart("toolu_A"), input(`{"path":"notes.txt"}`)}, toolsEnd...)
		f := newFakeAPI(t, func(w http.ResponseWriter, _ *http.Request, _ int) { events(w, evs...) })
		r := drain(t, context.Background(), newClient(t, f.profile()), conversation)
		if r.Err != nil || r.Done == nil || len(r.Done.ToolCalls) != 1 {
			t.Fatalf("err = %v, done = %+v; want one tool call", r.Err, r.Done)
		}
		if tc := r.Done.ToolCalls[0]; tc.ID != "toolu_A" || string(tc.Input) != `{"path":"notes.txt"}` {
			t.Errorf("call = %+v", tc)
		}
		if r.Done.Usage != (provider.Usage{InputTokens: 12, OutputTokens: 40}) {
			t.Errorf("usage = %+v", r.Done.Usage)
		}
	})
}

func TestFallbackModelAnswers(t *testing.T) {
	// The API moved the request to another model: a fallback block names
	// both, and the text after it is the second model's.
	fallback := `{"type":"content_block_start","index":0,"content_block":{"type":"fallback","from":{"model":"claude-test-20250929"},"to":{"model":"claude-spare-1"}}}`
	text := `{"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}`
	delta := `{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"print(42)"}}`
	f := newFakeAPI(t, func(w http.ResponseWriter, _ *http.Request, _ int) {
		events(w, messageStart, fallback, blockStop, text, delta, `{"type":"content_block_stop","index":1}`, messageDelta, messageStop)
	})
	r := drain(t, context.Background(), newClient(t, f.profile()), conversation)
	if r.Err != nil || r.Done == nil {
		t.Fatalf("err = %v", r.Err)
	}
	if r.Done.Model != "claude-spare-1" || r.Done.FallbackFrom != "claude-test-20250929" || r.Done.Content != "print(42)" {
		t.Errorf("model %q, fallback from %q, content %q", r.Done.Model, r.Done.FallbackFrom, r.Done.Content)
	}
	// Without a fallback, the model is message_start's and nothing fell back.
	f = newFakeAPI(t, happy)
	if r := drain(t, context.Background(), newClient(t, f.profile()), conversation); r.Done == nil ||
		r.Done.Model != "claude-test-20250929" || r.Done.FallbackFrom != "" {
		t.Errorf("plain answer: %+v", r.Done)
	}
}

func TestMaxOutputTokens(t *testing.T) {
	var f *fakeAPI
	f = newFakeAPI(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		// The API's own check: a cap above the model's is refused.
		if n, _ := f.LastBody(t)["max_tokens"].(float64); n > 64000 {
			errorAnswer(w, 400, apiError("invalid_request_error",
				fmt.Sprintf("max_tokens: %.0f > 64000, which is the maximum allowed number of output tokens for claude-test", n)))
			return
		}
		happy(w, r, 0)
	})
	p := f.profile()
	p.MaxOutputTokens = 2048
	if r := drain(t, context.Background(), newClient(t, p), conversation); r.Err != nil || f.LastBody(t)["max_tokens"] != float64(2048) {
		t.Errorf("err %v, max_tokens = %v; want the profile's 2048", r.Err, f.LastBody(t)["max_tokens"])
	}
	p.MaxOutputTokens = 100000
	r := drain(t, context.Background(), newClient(t, p), conversation)
	var fe *provider.FieldError
	if !errors.Is(r.Err, provider.ErrBadRequest) || !errors.As(r.Err, &fe) || fe.Field != "max_tokens" || fe.Value != 100000 {
		t.Fatalf("err = %#v, want a bad request naming max_tokens", r.Err)
	}
	msg := r.Err.Error()
	for _, w := range []string{"64000", "lower max_output_tokens", `"anthropic-test" profile`} {
		if !strings.Contains(msg, w) {
			t.Errorf("message %q lacks %q", msg, w)
		}
	}
}

func TestBadRole(t *testing.T) {
	f := newFakeAPI(t, happy)
	r := drain(t, context.Background(), newClient(t, f.profile()),
		provider.Request{Messages: []provider.Message{{Role: "system", Content: "x"}}})
	if !errors.Is(r.Err, provider.ErrBadRequest) || f.Attempts.Load() != 0 {
		t.Errorf("err = %v after %d requests", r.Err, f.Attempts.Load())
	}
}

// --- tools ----------------------------------------------------------------

var readFileTool = provider.ToolSpec{
	Name: "read_file", Description: "Read a file of the workspace.",
	Parameters: map[string]any{
		"type":                 "object",
		"properties":           map[string]any{"path": map[string]any{"type": "string"}},
		"required":             []string{"path"},
		"additionalProperties": false,
	},
}

func inputDelta(index int, partial string) string {
	return fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":{"type":"input_json_delta","partial_json":%q}}`, index, partial)
}

func TestToolUseRoundTrip(t *testing.T) {
	f := newFakeAPI(t, func(w http.ResponseWriter, r *http.Request, n int) {
		if n > 1 {
			happy(w, r, n)
			return
		}
		// Text, then two tool_use blocks whose input arrives in
		// input_json_delta fragments, stop_reason tool_use.
		events(w, messageStart,
			blockStart, textDelta("Let me look."), blockStop,
			`{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_01A","name":"read_file","input":{}}}`,
			inputDelta(1, ""), inputDelta(1, `{"path": "ma`), ping, inputDelta(1, `in.go"}`),
			`{"type":"content_block_stop","index":1}`,
			`{"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"toolu_01B","name":"list_files","input":{}}}`,
			`{"type":"content_block_stop","index":2}`,
			`{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":89}}`,
			messageStop)
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
	want := []provider.ToolCall{
		{ID: "toolu_01A", Name: "read_file", Input: json.RawMessage(`{"path": "main.go"}`), Status: provider.ToolPending},
		{ID: "toolu_01B", Name: "list_files", Input: json.RawMessage(`{}`), Status: provider.ToolPending},
	}
	if !reflect.DeepEqual(r.Done.ToolCalls, want) {
		t.Errorf("ToolCalls = %+v, want %+v", r.Done.ToolCalls, want)
	}
	if r.Done.FinishReason != "tool_calls" || r.Done.Usage.OutputTokens != 89 {
		t.Errorf("Done = %+v", r.Done)
	}
	wantTools := []any{
		map[string]any{"name": "read_file", "description": "Read a file of the workspace.",
			"input_schema": map[string]any{
				"type":                 "object",
				"properties":           map[string]any{"path": map[string]any{"type": "string"}},
				"required":             []any{"path"},
				"additionalProperties": false,
			}},
		map[string]any{"name": "list_files", "description": "List files.",
			"input_schema": map[string]any{"type": "object", "properties": map[string]any{}}},
	}
	if got := f.LastBody(t)["tools"]; !reflect.DeepEqual(got, wantTools) {
		b, _ := json.Marshal(got)
		t.Errorf("tools = %s", b)
	}

	// What the loop sends next: the assistant turn with its calls, then
	// one tool message per result.
	req.Messages = append(req.Messages,
		provider.Message{Role: provider.RoleAssistant, Content: r.Done.Content, ToolCalls: r.Done.ToolCalls},
		provider.Message{Role: provider.RoleTool, ToolCallID: "toolu_01A", Content: "package main\n"},
		provider.Message{Role: provider.RoleTool, ToolCallID: "toolu_01B", Content: ""})
	r = drain(t, context.Background(), c, req)
	if r.Err != nil {
		t.Fatal(r.Err)
	}
	if r.Done.Content != "Hello, world" || r.Done.FinishReason != "end_turn" || r.Done.ToolCalls != nil {
		t.Errorf("Done = %+v", r.Done)
	}
	body := f.LastBody(t)
	wantMsgs := []any{
		map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": "Fix main.go."}}},
		map[string]any{"role": "assistant", "content": []any{
			map[string]any{"type": "text", "text": "Let me look."},
			map[string]any{"type": "tool_use", "id": "toolu_01A", "name": "read_file", "input": map[string]any{"path": "main.go"}},
			map[string]any{"type": "tool_use", "id": "toolu_01B", "name": "list_files", "input": map[string]any{}},
		}},
		// Both results in one user turn; an empty result has no content.
		map[string]any{"role": "user", "content": []any{
			map[string]any{"type": "tool_result", "tool_use_id": "toolu_01A",
				"content": []any{map[string]any{"type": "text", "text": "package main\n"}}},
			map[string]any{"type": "tool_result", "tool_use_id": "toolu_01B"},
		}},
	}
	if !reflect.DeepEqual(body["messages"], wantMsgs) {
		b, _ := json.MarshalIndent(body["messages"], "", "  ")
		t.Errorf("messages = %s", b)
	}
	if !reflect.DeepEqual(body["tools"], wantTools) {
		t.Errorf("second request tools = %v", body["tools"])
	}
}

func TestToolMessagesLayout(t *testing.T) {
	c := newClient(t, provider.Profile{Name: "a", APIKey: "k"}).(*Client)
	// A tool-only assistant turn has no text block; a user message right
	// after the results joins their turn; input that was not an object is
	// sent back as {}.
	p, err := c.params(provider.Request{Messages: []provider.Message{
		{Role: provider.RoleUser, Content: "go"},
		{Role: provider.RoleAssistant, ToolCalls: []provider.ToolCall{{ID: "t1", Name: "run", Input: json.RawMessage(`"go test"`)}}},
		{Role: provider.RoleTool, ToolCallID: "t1", Content: "error: wanted an object"},
		{Role: provider.RoleUser, Content: "stop there"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(p.Messages)
	want := `[{"content":[{"text":"go","type":"text"}],"role":"user"},` +
		`{"content":[{"id":"t1","input":{},"name":"run","type":"tool_use"}],"role":"assistant"},` +
		`{"content":[{"tool_use_id":"t1","content":[{"text":"error: wanted an object","type":"text"}],"type":"tool_result"},{"text":"stop there","type":"text"}],"role":"user"}]`
	if string(b) != want {
		t.Errorf("messages = %s\nwant       %s", b, want)
	}
	if _, err := c.params(provider.Request{Messages: []provider.Message{{Role: provider.RoleTool, Content: "x"}}}); !errors.Is(err, provider.ErrBadRequest) {
		t.Errorf("tool message without an id: err = %v", err)
	}
}

func TestBrokenToolInput(t *testing.T) {
	// A stream cut short inside a tool input still ends with message_stop
	// here; the input is not JSON and must not break the Response.
	f := newFakeAPI(t, func(w http.ResponseWriter, _ *http.Request, _ int) {
		events(w, messageStart,
			`{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_X","name":"read_file","input":{}}}`,
			inputDelta(0, `{"path": "ma`),
			`{"type":"message_delta","delta":{"stop_reason":"max_tokens","stop_sequence":null},"usage":{"output_tokens":3}}`,
			messageStop)
	})
	r := drain(t, context.Background(), newClient(t, f.profile()), provider.Request{
		Messages: []provider.Message{{Role: provider.RoleUser, Content: "go"}}, Tools: []provider.ToolSpec{readFileTool}})
	if r.Err != nil {
		t.Fatal(r.Err)
	}
	if len(r.Done.ToolCalls) != 1 || string(r.Done.ToolCalls[0].Input) != `"{\"path\": \"ma"` {
		t.Errorf("ToolCalls = %+v", r.Done.ToolCalls)
	}
	if _, err := json.Marshal(r.Done); err != nil {
		t.Errorf("the response does not marshal: %v", err)
	}
}

func TestConformance(t *testing.T) { conformance.Run(t, wire()) }

// wire is how this API streams and fails, for the shared suite.
func wire() conformance.Wire {
	return conformance.Wire{
		New: New,
		Profile: func(base string) provider.Profile {
			return provider.Profile{Name: "anthropic-test", Kind: "anthropic", Model: "claude-test",
				BaseURL: base, APIKeyEnv: "ANTHROPIC_API_KEY", APIKey: "sk-ant-test-123"}
		},
		Begin: func(w http.ResponseWriter) { events(w, messageStart, blockStart) },
		Text:  func(w http.ResponseWriter, s string) { events(w, textDelta(s)) },
		End:   func(w http.ResponseWriter) { events(w, blockStop, messageDelta, messageStop) },
		Error: func(w http.ResponseWriter, status int, msg string) {
			typ := map[int]string{400: "invalid_request_error", 401: "authentication_error", 403: "permission_error",
				404: "not_found_error", 429: "rate_limit_error", 529: "overloaded_error"}[status]
			if typ == "" {
				typ = "api_error"
			}
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			io.WriteString(w, apiError(typ, msg))
		},
		MissingModel404: true,
	}
}
