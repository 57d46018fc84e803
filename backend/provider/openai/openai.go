// Package openai adapts any OpenAI-compatible Chat Completions endpoint
// (OpenAI, OpenRouter, Ollama, LM Studio, vLLM) to provider.Provider,
// speaking its wire format (wire.go) directly.
//
// Contract: each range over Stream sends one streaming chat completion. It
// yields the text deltas of the first choice in arrival order, then exactly one
// Delta whose Done holds the concatenated content, the model that answered,
// token usage (requested with stream_options.include_usage), the finish reason
// and the duration; or it yields one error and stops. Given Request.Tools, the
// model may instead ask for function calls: their fragments (delta.tool_calls,
// by index) are assembled and returned in Done.ToolCalls (status
// provider.ToolPending, Input = the JSON arguments) with FinishReason
// "tool_calls". Errors are
// *provider.Error, except that cancelling ctx yields an error wrapping
// context.Canceled; once the answer has begun they come wrapped in a
// *provider.PartialError with the text and usage so far. A refusal
// (delta.refusal, finish_reason "content_filter", a 400 of code
// content_filter) is an error of KindRefusal and never text; a stream that
// breaks off is KindInterrupted. The answer's cap goes in
// max_completion_tokens to OpenAI and Azure OpenAI
// (DefaultMaxCompletionTokens unless the profile sets max_output_tokens),
// in max_tokens to other servers (only when set); max_tokens_field
// overrides the field, and a 400 that refuses it says which setting to
// change. Time limits and retries are provider.HTTPCall's: 429, 408, 5xx
// and a stream cut before any text are retried there, visibly (Notice
// deltas), honouring Retry-After / retry-after-ms. Nothing is retried once
// text has been yielded.
// Breaking out of the loop, or cancelling ctx, closes the HTTP response.
//
// Everything comes from the Profile: unlike the official SDK's client, this
// one never reads OPENAI_API_KEY, OPENAI_BASE_URL or OPENAI_ORG_ID, so a key
// for api.openai.com is never sent to Ollama or OpenRouter. A Client is safe
// for concurrent use.
package openai

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/loopforge/loopforge/backend/provider"
)

const (
	// DefaultModel is used when the profile names none.
	DefaultModel = "gpt-4o-mini"
	// DefaultBaseURL is OpenAI's own endpoint.
	DefaultBaseURL = "https://api.openai.com/v1"
	// DefaultMaxCompletionTokens caps each answer, reasoning included, on
	// OpenAI's and Azure OpenAI's endpoints when the profile sets no
	// max_output_tokens: room for a reasoning model's thinking and a
	// program, and no more than gpt-4o-mini (the default model) allows.
	// Other compatible servers get no cap unless the profile sets one:
	// some refuse a cap above their own limit (DeepSeek's 8192) or above
	// what their context leaves (vLLM).
	DefaultMaxCompletionTokens = 16384
)

// Client is an OpenAI-compatible chat provider for one profile.
type Client struct {
	name       string
	model      string
	errs       provider.ErrorContext // builds errors; hides the key
	structured bool
	// maxTokens caps each answer (0: no cap is sent), in the request field
	// tokenField.
	maxTokens  int
	tokenField string
	call       *provider.HTTPCall // limits and retries
	endpoint   string             // the chat completions URL
	auth       func(http.Header)  // sets the key, if any; a func, so it never prints
	// local: a keyless endpoint (Ollama, LM Studio); Check probes it.
	local   bool
	baseURL string
}

var _ provider.Provider = (*Client)(nil)

// New builds a client for p. It makes no request. A profile that names a key
// variable (APIKeyEnv) but has no key fails with provider.ErrMissingKey; a
// profile without a key variable (a local Ollama) sends no key at all.
func New(p provider.Profile) (provider.Provider, error) {
	name := p.Name
	if name == "" {
		name = "openai"
	}
	if p.APIKeyEnv != "" && p.APIKey == "" {
		return nil, &provider.Error{Kind: provider.KindMissingKey, Provider: name, EnvVar: p.APIKeyEnv}
	}
	base := strings.TrimRight(p.BaseURL, "/")
	if base == "" {
		base = DefaultBaseURL
	}
	u, err := url.Parse(base)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return nil, fmt.Errorf("profile %q: base_url %q is not an absolute URL", name, p.BaseURL)
	}
	model := p.Model
	if model == "" {
		model = DefaultModel
	}
	var auth func(http.Header)
	if key := p.APIKey; key != "" {
		auth = func(h http.Header) { h.Set("Authorization", "Bearer "+key) }
	}
	errs := provider.NewErrorContext(name, p.APIKeyEnv, u.Redacted(), p.APIKey)
	errs.Model = model
	field, maxTokens := provider.FieldMaxTokens, p.MaxOutputTokens
	if openAIHost(u.Hostname()) {
		field, maxTokens = provider.FieldMaxCompletionTokens, cmp.Or(maxTokens, DefaultMaxCompletionTokens)
	}
	return &Client{
		name:       name,
		model:      model,
		errs:       errs,
		structured: p.Structured == nil || *p.Structured,
		maxTokens:  maxTokens,
		tokenField: cmp.Or(p.MaxTokensField, field),
		call:       provider.NewHTTPCall(name, p),
		endpoint:   base + "/chat/completions",
		auth:       auth,
		local:      p.APIKeyEnv == "",
		baseURL:    base,
	}, nil
}

// openAIHost reports whether host serves OpenAI's own models: OpenAI's
// API, or an Azure OpenAI resource. Both take max_completion_tokens, and
// their reasoning models take nothing else.
func openAIHost(host string) bool {
	host = strings.ToLower(host)
	return host == "api.openai.com" || strings.HasSuffix(host, ".openai.azure.com") ||
		strings.HasSuffix(host, ".cognitiveservices.azure.com")
}

// Check tells whether a keyless (local) endpoint answers at all, so a
// provider list does not call Ollama ready while no server runs. Profiles
// with a key are not contacted: listing providers makes no remote request.
func (c *Client) Check(ctx context.Context) (string, error) {
	if !c.local {
		return "", nil
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.baseURL+"/models", nil)
	if err != nil {
		return "", err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e := c.errs.FromTransport(err)
		e.Message = "no server answers there; start it (for Ollama: `ollama serve`)"
		return "", e
	}
	resp.Body.Close() // any HTTP answer, even 404, means a server is there
	return "", nil
}

// Name is the profile name.
func (c *Client) Name() string { return c.name }

// Limits are the time limits of each call.
func (c *Client) Limits() provider.Limits { return c.call.Limits() }

// Capabilities reports structured output unless the profile turned it off
// (some compatible servers reject response_format), and function tools.
func (c *Client) Capabilities() provider.Capabilities {
	return provider.Capabilities{StructuredOutput: c.structured, Tools: true}
}

// Stream sends req as one streaming chat completion; see the package doc.
// A model the API says does not exist comes with the models the key can
// use (provider.WithModelList).
func (c *Client) Stream(ctx context.Context, req provider.Request) iter.Seq2[provider.Delta, error] {
	return provider.WithModelList(ctx, c.call.Stream(ctx, func(ctx context.Context) iter.Seq2[provider.Delta, error] {
		return c.attempt(ctx, req)
	}), c.Models)
}

// attempt sends req once.
func (c *Client) attempt(ctx context.Context, req provider.Request) iter.Seq2[provider.Delta, error] {
	return func(yield func(provider.Delta, error) bool) {
		start := time.Now()
		params, err := c.params(req)
		if err != nil {
			yield(provider.Delta{}, err)
			return
		}
		res, err := c.call.PostJSON(ctx, c.endpoint, params, c.auth)
		if err != nil {
			yield(provider.Delta{}, c.failure(ctx, err, params))
			return
		}
		defer res.Body.Close()

		a := answer{resp: provider.Response{Model: c.model}}
		// fail ends the attempt with err, keeping what arrived (text, a
		// usage chunk) for the caller.
		fail := func(err error) { yield(provider.Delta{}, provider.WithPartial(err, a.partial())) }
		finished := false
		for ev, err := range provider.Events(res.Body) {
			if err != nil {
				fail(c.errs.Interrupted(ctx, err))
				return
			}
			if ev.Data == "" {
				continue
			}
			if strings.HasPrefix(ev.Data, "[DONE]") {
				provider.Finish(res.Body)
				break
			}
			var ch chatChunk
			if err := json.Unmarshal([]byte(ev.Data), &ch); err != nil {
				fail(c.errs.FromTransport(fmt.Errorf("a stream event is not JSON: %w", err)))
				return
			}
			if len(ch.Error) > 0 && string(ch.Error) != "null" {
				fail(c.streamError(ev.Data))
				return
			}
			if !a.take(ch, yield) {
				return
			}
			finished = finished || a.resp.FinishReason != ""
		}
		switch {
		case a.refusal.Len() > 0 || a.resp.FinishReason == "content_filter":
			fail(c.refused(a.refusal.String(), a.resp.FinishReason))
			return
		case !finished:
			// A missing finish_reason is how a truncated answer shows,
			// [DONE] or not.
			fail(c.errs.Interrupted(ctx, nil))
			return
		}
		resp := a.partial()
		if resp.ToolCalls = a.calls.result(); len(resp.ToolCalls) > 0 {
			// Some compatible servers say "stop" although they ask for calls.
			resp.FinishReason = "tool_calls"
		}
		resp.Duration = time.Since(start)
		slog.Debug("provider call done", "provider", c.name, "model", resp.Model,
			"input_tokens", resp.Usage.InputTokens, "output_tokens", resp.Usage.OutputTokens,
			"duration", resp.Duration)
		yield(provider.Delta{Done: resp}, nil)
	}
}

// answer is a streamed completion being assembled.
type answer struct {
	resp    provider.Response
	content strings.Builder
	// refusal is the model's refusal (delta.refusal), kept apart from the
	// answer: it says why there is none.
	refusal strings.Builder
	calls   toolCalls
}

// partial is what arrived so far.
func (a *answer) partial() *provider.Response {
	p := a.resp
	p.Content = a.content.String()
	return &p
}

// take adds one chunk to the answer, yielding the text of the first choice;
// false when the consumer stopped.
func (a *answer) take(ch chatChunk, yield func(provider.Delta, error) bool) bool {
	if ch.Model != "" {
		a.resp.Model = ch.Model
	}
	if ch.Usage != nil {
		a.resp.Usage = usageOf(ch.Usage)
	}
	for _, choice := range ch.Choices {
		if choice.Index != 0 {
			continue
		}
		a.refusal.WriteString(choice.Delta.Refusal)
		if t := choice.Delta.Content; t != "" {
			a.content.WriteString(t)
			if !yield(provider.Delta{Text: t}, nil) {
				return false
			}
		}
		for _, tc := range choice.Delta.ToolCalls {
			a.calls.add(tc)
		}
		if choice.FinishReason != "" {
			a.resp.FinishReason = choice.FinishReason
		}
	}
	return true
}

// refused is the error of a refusal: the model's own words (delta.refusal),
// or a content filter's stop (finish_reason "content_filter", Azure's).
func (c *Client) refused(text, finish string) error {
	e := &provider.Error{Provider: c.name, Kind: provider.KindRefusal, Message: c.errs.Clean(text)}
	if text == "" {
		e.Category = finish
		e.Message = "the provider's content filter stopped the answer"
	}
	return e
}

// params builds the request body. Schema is honoured only when structured
// output is on; otherwise the loop falls back to fenced code.
func (c *Client) params(req provider.Request) (*chatRequest, error) {
	msgs := make([]message, 0, len(req.Messages)+1)
	if req.System != "" {
		// "system", not "developer": every compatible server knows it, and
		// OpenAI maps it for the models that want "developer".
		msgs = append(msgs, message{Role: "system", Content: &req.System})
	}
	for _, m := range req.Messages {
		switch m.Role {
		case provider.RoleUser:
			msgs = append(msgs, message{Role: "user", Content: &m.Content})
		case provider.RoleAssistant:
			a := message{Role: "assistant"}
			if m.Content != "" || len(m.ToolCalls) == 0 {
				a.Content = &m.Content
			}
			for _, tc := range m.ToolCalls {
				a.ToolCalls = append(a.ToolCalls, toolCall{ID: tc.ID, Type: "function",
					Function: functionCall{Name: tc.Name, Arguments: arguments(tc.Input)}})
			}
			msgs = append(msgs, a)
		case provider.RoleTool:
			if m.ToolCallID == "" {
				return nil, &provider.Error{Provider: c.name, Kind: provider.KindBadRequest,
					Message: "tool message without a tool_call_id"}
			}
			msgs = append(msgs, message{Role: "tool", Content: &m.Content, ToolCallID: m.ToolCallID})
		default:
			return nil, &provider.Error{Provider: c.name, Kind: provider.KindBadRequest,
				Message: fmt.Sprintf("message role %q is not user, assistant or tool", m.Role)}
		}
	}
	p := &chatRequest{
		Model:         c.model,
		Messages:      msgs,
		Stream:        true,
		StreamOptions: streamOptions{IncludeUsage: true},
	}
	for _, t := range req.Tools {
		p.Tools = append(p.Tools, tool{Type: "function",
			Function: function{Name: t.Name, Description: t.Description, Parameters: t.Parameters}})
	}
	if n := cmp.Or(req.MaxTokens, c.maxTokens); n > 0 {
		if c.tokenField == provider.FieldMaxCompletionTokens {
			p.MaxCompletionTokens = n
		} else {
			p.MaxTokens = n
		}
	}
	if req.Schema != nil && c.structured {
		name := req.Schema.Name
		if name == "" {
			name = "response"
		}
		p.ResponseFormat = &responseFormat{Type: "json_schema", JSONSchema: jsonSchema{
			Name: name, Description: req.Schema.Description, Schema: req.Schema.JSON, Strict: true,
		}}
	}
	return p, nil
}

// toolCalls assembles the streamed delta.tool_calls fragments: the first
// fragment of a call carries its index, id and name, the following ones
// pieces of its arguments.
type toolCalls struct {
	calls []*partialCall
	byIdx map[int64]*partialCall
}

type partialCall struct {
	id, name string
	args     strings.Builder
}

func (tc *toolCalls) add(d toolCallDelta) {
	if tc.byIdx == nil {
		tc.byIdx = map[int64]*partialCall{}
	}
	c := tc.byIdx[d.Index]
	// A fragment with a new id at a used index starts another call: some
	// compatible servers (Gemini's, older Ollama) send whole calls without
	// a meaningful index.
	if c == nil || (d.ID != "" && c.id != "" && d.ID != c.id) {
		c = &partialCall{}
		tc.byIdx[d.Index] = c
		tc.calls = append(tc.calls, c)
	}
	if d.ID != "" {
		c.id = d.ID
	}
	if c.name == "" {
		// Only the first fragment names the call (some servers repeat it).
		c.name = d.Function.Name
	}
	c.args.WriteString(argumentsText(d.Function.Arguments))
}

// argumentsText is a fragment of a call's arguments: the JSON string the
// API sends, or, from a server that sends the arguments as an object, that
// object's JSON text.
func argumentsText(raw json.RawMessage) string {
	var s string
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(raw)
}

func (tc *toolCalls) result() []provider.ToolCall {
	var out []provider.ToolCall
	for i, c := range tc.calls {
		id := c.id
		if id == "" {
			id = fmt.Sprintf("loopforge_call_%d", i)
		}
		out = append(out, provider.ToolCall{ID: id, Name: c.name, Input: input(c.args.String()),
			Status: provider.ToolPending})
	}
	return out
}

// input makes the model's arguments valid JSON for ToolCall.Input: none is
// {}, and text that is not JSON travels as a JSON string (the tool then
// reports that it wanted an object).
func input(args string) json.RawMessage {
	args = strings.TrimSpace(args)
	if args == "" {
		return json.RawMessage("{}")
	}
	if json.Valid([]byte(args)) {
		return json.RawMessage(args)
	}
	b, _ := json.Marshal(args)
	return b
}

// arguments is the inverse of input for a call sent back to the API.
func arguments(in json.RawMessage) string {
	if len(in) == 0 {
		return "{}"
	}
	var s string
	if in[0] == '"' && json.Unmarshal(in, &s) == nil {
		return s
	}
	return string(in)
}

// usageOf converts the final usage chunk, OpenRouter's cost included.
func usageOf(u *usage) provider.Usage {
	out := provider.Usage{InputTokens: u.PromptTokens, OutputTokens: u.CompletionTokens}
	cost := strings.Trim(string(u.Cost), `"`)
	if f, err := strconv.ParseFloat(cost, 64); err == nil {
		out.CostUSD = f
	}
	return out
}

// failure maps a failed request to a *provider.Error: an HTTP error answer
// by its status and the message in its body, whatever its shape (OpenAI's,
// {"detail":...}, plain text, an HTML proxy page). A 400 that refuses the
// answer's cap as sent says which setting to change; one that refuses the
// prompt by content filter (Azure's) is a refusal.
func (c *Client) failure(ctx context.Context, err error, sent *chatRequest) error {
	return c.errs.Failure(ctx, err, func(se *provider.HTTPStatusError) error {
		e := c.errs.FromStatus(se.Status, provider.BodyMessage(se.Body), se)
		var body struct {
			Error streamError `json:"error"`
		}
		if json.Unmarshal(se.Body, &body) == nil && body.Error.Code == "content_filter" {
			e.Kind, e.Category = provider.KindRefusal, "content_filter"
			return e
		}
		if modelMissing(se.Status, body.Error) {
			return c.errs.ModelNotFound(se.Status, body.Error.Message, se)
		}
		field, other, n := provider.FieldMaxTokens, provider.FieldMaxCompletionTokens, sent.MaxTokens
		if sent.MaxCompletionTokens > 0 {
			field, other, n = provider.FieldMaxCompletionTokens, provider.FieldMaxTokens, sent.MaxCompletionTokens
		}
		if n == 0 {
			return e
		}
		if fe := provider.CapRefused(se, c.name, field, other, n); fe != nil {
			e.Err = fe
		}
		return e
	})
}

// streamError maps an {"error": ...} event sent after the stream began.
// There is no HTTP status then; the body's numeric code (OpenRouter) or
// type (OpenAI) says what kind of failure it was.
func (c *Client) streamError(data string) error {
	var body struct {
		Error streamError `json:"error"`
	}
	_ = json.Unmarshal([]byte(data), &body)
	err := fmt.Errorf("received error while streaming: %s", data)
	msg := body.Error.Message
	if msg == "" {
		msg = data
	}
	if code, ok := body.Error.Code.(float64); ok && code >= 400 && code < 600 {
		return c.errs.FromStatus(int(code), msg, err)
	}
	kind := provider.KindServer
	t := body.Error.Type + " " + fmt.Sprint(body.Error.Code)
	switch {
	case strings.Contains(t, "rate_limit"), strings.Contains(t, "quota"):
		kind = provider.KindRateLimit
	case strings.Contains(t, "invalid_request"):
		kind = provider.KindBadRequest
	case strings.Contains(t, "auth"), strings.Contains(t, "api_key"):
		kind = provider.KindAuth
	}
	e := &provider.Error{Provider: c.name, Kind: kind, Message: c.errs.Clean(msg), Err: err}
	if kind == provider.KindAuth {
		e.EnvVar = c.errs.KeyEnv
	}
	return e
}
