// Package anthropic adapts the Anthropic Messages API to provider.Provider,
// speaking its wire format (wire.go) directly.
//
// Contract: each range over Stream sends one streaming Messages request. It
// yields the text_delta fragments in arrival order, then exactly one Delta
// whose Done holds the concatenated content, the model (the fallback model
// when the API answered from one, with FallbackFrom naming the model asked
// for), token usage (input from message_start, output from message_delta),
// the stop reason and the duration; or it yields one error and stops.
// Errors are *provider.Error, except that cancelling ctx yields an error
// wrapping context.Canceled; once the answer has begun they come wrapped in
// a *provider.PartialError with the text and tokens so far. A refusal
// (stop_reason "refusal") is an error of KindRefusal with stop_details'
// category and explanation; a stream that breaks off is KindInterrupted; a
// second message_start of another message is KindProtocol (the same one
// repeated is harmless). max_tokens is the profile's max_output_tokens,
// else DefaultMaxTokens; a 400 that refuses it says so. Time
// limits and retries are provider.HTTPCall's: 429, 408, 5xx (529 overloaded
// included), an error event such as overloaded_error and a stream cut before
// any text are retried there, visibly (Notice deltas), honouring retry-after
// / retry-after-ms. Nothing is retried once text has been yielded. Given Request.Tools,
// the model may ask for tool calls: each tool_use block (content_block_start
// and its input_json_delta fragments) is returned in Done.ToolCalls (status
// provider.ToolPending, Input = the JSON input) with FinishReason
// "tool_calls". Breaking out of the
// loop, or cancelling ctx, closes the HTTP response.
//
// Structured output is not offered: the loop asks for a fenced code block
// instead. Everything comes from the Profile: unlike the official SDK's
// client, this one never reads ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL or
// profiles on disk. A Client is safe for concurrent use.
package anthropic

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"log/slog"
	"maps"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/loopforge/loopforge/backend/provider"
)

const (
	// DefaultModel is used when the profile names none.
	DefaultModel = "claude-sonnet-5"
	// DefaultBaseURL is Anthropic's endpoint; /v1/messages is appended.
	DefaultBaseURL = "https://api.anthropic.com"
	// DefaultKeyEnv names the key variable when the profile names none.
	DefaultKeyEnv = "ANTHROPIC_API_KEY"
	// DefaultMaxTokens is the answer's cap (max_tokens, which the API
	// requires on every request) of a profile that sets no
	// max_output_tokens: the output limit of the Claude 3.5 models, below
	// that of every later one.
	DefaultMaxTokens = 8192
)

// Client is an Anthropic Messages provider for one profile.
type Client struct {
	name      string
	model     string
	errs      provider.ErrorContext // builds errors; hides the key
	call      *provider.HTTPCall    // limits and retries
	endpoint  string                // the messages URL
	modelsURL string                // the models list URL
	maxTokens int                   // the answer's cap (max_output_tokens)
	header    func(http.Header)     // sets the key and version; a func, so it never prints
}

var _ provider.Provider = (*Client)(nil)

// New builds a client for p. It makes no request. A missing key fails with
// provider.ErrMissingKey, unless the profile points at its own endpoint and
// names no key variable (a local proxy that needs none).
func New(p provider.Profile) (provider.Provider, error) {
	name := p.Name
	if name == "" {
		name = "anthropic"
	}
	keyEnv := p.APIKeyEnv
	if p.APIKey == "" && (keyEnv != "" || p.BaseURL == "") {
		if keyEnv == "" {
			keyEnv = DefaultKeyEnv
		}
		return nil, &provider.Error{Kind: provider.KindMissingKey, Provider: name, EnvVar: keyEnv}
	}
	// /v1/messages is appended, so a base URL copied with its /v1 would
	// double it.
	base := strings.TrimSuffix(strings.TrimRight(p.BaseURL, "/"), "/v1")
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
	key := p.APIKey
	header := func(h http.Header) {
		h.Set("anthropic-version", apiVersion)
		if key != "" {
			h.Set("x-api-key", key)
		}
	}
	errs := provider.NewErrorContext(name, keyEnv, u.Redacted(), p.APIKey)
	errs.Model = model
	return &Client{
		name:      name,
		model:     model,
		errs:      errs,
		call:      provider.NewHTTPCall(name, p),
		endpoint:  base + "/v1/messages",
		modelsURL: base + "/v1/models",
		header:    header,
		maxTokens: cmp.Or(p.MaxOutputTokens, DefaultMaxTokens),
	}, nil
}

// Name is the profile name.
func (c *Client) Name() string { return c.name }

// Limits are the time limits of each call.
func (c *Client) Limits() provider.Limits { return c.call.Limits() }

// Capabilities: no structured output (the loop falls back to fenced code);
// client tools.
func (c *Client) Capabilities() provider.Capabilities { return provider.Capabilities{Tools: true} }

// toolUse is a tool_use block being streamed.
type toolUse struct {
	id, name string
	start    string // the input of content_block_start, {} when streamed
	input    strings.Builder
}

// Stream sends req as one streaming Messages request; see the package doc.
// A model the API says does not exist comes with the models the key can
// use (provider.WithModelList).
func (c *Client) Stream(ctx context.Context, req provider.Request) iter.Seq2[provider.Delta, error] {
	return provider.WithModelList(ctx, c.call.Stream(ctx, func(ctx context.Context) iter.Seq2[provider.Delta, error] {
		return c.attempt(ctx, req)
	}), c.Models)
}

// answer is a streamed message being assembled.
type answer struct {
	resp    provider.Response
	content strings.Builder
	calls   []*toolUse
	byIndex map[int64]*toolUse
	id      string       // the message's id, from its first message_start
	refusal *stopDetails // stop_reason "refusal" came, with these details (maybe empty)
	stopped bool         // message_stop came
	err     error        // why the stream cannot be taken as one answer
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
		res, err := c.call.PostJSON(ctx, c.endpoint, params, c.header)
		if err != nil {
			yield(provider.Delta{}, c.failure(ctx, err, params.MaxTokens))
			return
		}
		defer res.Body.Close()

		a := &answer{resp: provider.Response{Model: c.model}, byIndex: map[int64]*toolUse{}}
		// fail ends the attempt with err, keeping what arrived (text, the
		// tokens message_start counted) for the caller.
		fail := func(err error) { yield(provider.Delta{}, provider.WithPartial(err, a.partial())) }
		for ev, err := range provider.Events(res.Body) {
			if err != nil {
				fail(c.errs.Interrupted(ctx, err))
				return
			}
			// As the SDK did: unnamed events and pings carry nothing, an
			// error event ends the stream.
			switch ev.Type {
			case "", "ping":
				continue
			case "error":
				fail(c.eventError(ev.Data))
				return
			}
			if strings.TrimSpace(ev.Data) == "" {
				continue
			}
			var se streamEvent
			if err := json.Unmarshal([]byte(ev.Data), &se); err != nil {
				fail(c.errs.FromTransport(fmt.Errorf("a stream event is not JSON: %w", err)))
				return
			}
			if !a.take(se, yield) {
				if a.err != nil {
					fail(&provider.Error{Provider: c.name, Kind: provider.KindProtocol, Message: a.err.Error(), Err: a.err})
				}
				return
			}
		}
		switch {
		case a.refusal != nil:
			// Final, whether or not message_stop followed.
			fail(c.refused(a.refusal))
			return
		case !a.stopped:
			fail(c.errs.Interrupted(ctx, nil))
			return
		}
		resp := a.response()
		resp.Duration = time.Since(start)
		slog.Debug("provider call done", "provider", c.name, "model", resp.Model,
			"input_tokens", resp.Usage.InputTokens, "output_tokens", resp.Usage.OutputTokens,
			"duration", resp.Duration)
		yield(provider.Delta{Done: resp}, nil)
	}
}

// errSpliced: a second message_start with another id came while a message
// was streaming, as when a proxy splices two answers into one stream. Taken
// as one message, the two would merge (a tool call of each, one of them
// cut short); the stream is refused instead.
var errSpliced = errors.New("the stream restarted mid-message")

// refused is the error of a refusal: its category and explanation, when the
// API gave them (stop_details).
func (c *Client) refused(d *stopDetails) error {
	msg := strings.TrimSpace(d.Explanation)
	if msg == "" {
		msg = "the API ended the answer with stop_reason \"refusal\""
	}
	return &provider.Error{Provider: c.name, Kind: provider.KindRefusal, Category: d.Category, Message: c.errs.Clean(msg)}
}

// partial is what arrived so far, for an attempt that fails.
func (a *answer) partial() *provider.Response {
	p := a.resp
	p.Content = a.content.String()
	return &p
}

// take adds one event to the answer, yielding its text; false when the
// consumer stopped or the event cannot belong to this answer (a.err).
func (a *answer) take(ev streamEvent, yield func(provider.Delta, error) bool) bool {
	emit := func(t string) bool {
		if t == "" {
			return true
		}
		a.content.WriteString(t)
		return yield(provider.Delta{Text: t}, nil)
	}
	switch ev.Type {
	case "message_start":
		switch id := ev.Message.ID; {
		case a.id == "":
			a.id = id
		case id != a.id:
			a.err = fmt.Errorf("%w: a second message_start (message %s) came inside message %s", errSpliced, id, a.id)
			return false
		}
		// The same message_start again (seen from proxies) changes nothing.
		if ev.Message.Model != "" && a.resp.FallbackFrom == "" {
			a.resp.Model = ev.Message.Model
		}
		u := ev.Message.Usage
		a.resp.Usage.InputTokens = inputTokens(u)
		a.resp.Usage.OutputTokens = u.OutputTokens
	case "content_block_start":
		switch ev.ContentBlock.Type {
		case "text":
			return emit(ev.ContentBlock.Text)
		case "tool_use":
			tu := &toolUse{id: ev.ContentBlock.ID, name: ev.ContentBlock.Name, start: string(ev.ContentBlock.Input)}
			a.calls = append(a.calls, tu)
			a.byIndex[ev.Index] = tu
		case "fallback":
			// The API moved the request to another model; the answer
			// that follows is that model's.
			if to := ev.ContentBlock.To.Model; to != "" {
				a.resp.FallbackFrom = cmp.Or(ev.ContentBlock.From.Model, a.resp.Model)
				a.resp.Model = to
			}
		}
	case "content_block_delta":
		// Text and tool input only: thinking, signatures and citations
		// are not part of the answer.
		switch ev.Delta.Type {
		case "text_delta":
			return emit(ev.Delta.Text)
		case "input_json_delta":
			if tu := a.byIndex[ev.Index]; tu != nil {
				tu.input.WriteString(ev.Delta.PartialJSON)
			}
		}
	case "message_delta":
		if ev.Delta.StopReason != "" {
			a.resp.FinishReason = ev.Delta.StopReason
		}
		if ev.Delta.StopReason == "refusal" {
			a.refusal = &stopDetails{}
			if ev.Delta.StopDetails != nil {
				a.refusal = ev.Delta.StopDetails
			}
		}
		// Counts here are cumulative for the whole message.
		if ev.Usage.OutputTokens > 0 {
			a.resp.Usage.OutputTokens = ev.Usage.OutputTokens
		}
		if ev.Usage.InputTokens > 0 {
			a.resp.Usage.InputTokens = inputTokens(ev.Usage)
		}
	case "message_stop":
		a.stopped = true
	}
	return true
}

// response is the finished answer, its tool calls assembled.
func (a *answer) response() *provider.Response {
	resp := a.resp
	resp.Content = a.content.String()
	for i, tu := range a.calls {
		in := tu.input.String()
		if strings.TrimSpace(in) == "" {
			in = tu.start
		}
		id := tu.id
		if id == "" {
			id = fmt.Sprintf("loopforge_call_%d", i)
		}
		resp.ToolCalls = append(resp.ToolCalls, provider.ToolCall{ID: id, Name: tu.name,
			Input: toolInput(in), Status: provider.ToolPending})
	}
	if len(resp.ToolCalls) > 0 {
		resp.FinishReason = "tool_calls" // the API says "tool_use"
	}
	return &resp
}

// inputTokens counts every prompt token the call processed: the API reports
// cached and cache-writing tokens apart from input_tokens.
func inputTokens(u usage) int {
	return u.InputTokens + u.CacheCreationInputTokens + u.CacheReadInputTokens
}

// toolInput makes a tool_use input valid JSON for ToolCall.Input: none is
// {}, and text that is not JSON travels as a JSON string (the tool then
// reports that it wanted an object).
func toolInput(in string) json.RawMessage {
	in = strings.TrimSpace(in)
	if in == "" {
		return json.RawMessage("{}")
	}
	if json.Valid([]byte(in)) {
		return json.RawMessage(in)
	}
	b, _ := json.Marshal(in)
	return b
}

// params builds the request body. The system prompt goes in the top-level
// system field; the API has no system role in messages. Schema is ignored.
// An assistant message's ToolCalls become tool_use blocks after its text;
// RoleTool messages become tool_result blocks of one user turn (with the
// user's next text, if any, since the API wants every result of a turn's
// calls in the user turn right after it).
func (c *Client) params(req provider.Request) (*messagesRequest, error) {
	msgs := make([]message, 0, len(req.Messages))
	afterTools := false // the last message is a user turn of tool results
	for _, m := range req.Messages {
		switch m.Role {
		case provider.RoleUser:
			if afterTools {
				last := &msgs[len(msgs)-1]
				last.Content = append(last.Content, text(m.Content))
			} else {
				msgs = append(msgs, message{Role: "user", Content: []block{text(m.Content)}})
			}
			afterTools = false
		case provider.RoleAssistant:
			var blocks []block
			if m.Content != "" || len(m.ToolCalls) == 0 {
				blocks = append(blocks, text(m.Content))
			}
			for _, tc := range m.ToolCalls {
				blocks = append(blocks, toolUseBlock{ID: tc.ID, Input: inputObject(tc.Input), Name: tc.Name, Type: "tool_use"})
			}
			msgs = append(msgs, message{Role: "assistant", Content: blocks})
			afterTools = false
		case provider.RoleTool:
			if m.ToolCallID == "" {
				return nil, &provider.Error{Provider: c.name, Kind: provider.KindBadRequest,
					Message: "tool message without a tool_call_id"}
			}
			res := toolResultBlock{ToolUseID: m.ToolCallID, Type: "tool_result"}
			if m.Content != "" {
				res.Content = []textBlock{text(m.Content)}
			}
			if afterTools {
				last := &msgs[len(msgs)-1]
				last.Content = append(last.Content, res)
			} else {
				msgs = append(msgs, message{Role: "user", Content: []block{res}})
			}
			afterTools = true
		default:
			return nil, &provider.Error{Provider: c.name, Kind: provider.KindBadRequest,
				Message: fmt.Sprintf("message role %q is not user, assistant or tool", m.Role)}
		}
	}
	maxTokens := req.MaxTokens
	if maxTokens <= 0 {
		maxTokens = c.maxTokens
	}
	p := &messagesRequest{
		Model:     c.model,
		MaxTokens: maxTokens,
		Messages:  msgs,
		Stream:    true,
	}
	if req.System != "" {
		p.System = []textBlock{text(req.System)}
	}
	for _, t := range req.Tools {
		p.Tools = append(p.Tools, tool{Name: t.Name, Description: t.Description, InputSchema: inputSchema(t.Parameters)})
	}
	return p, nil
}

// inputSchema is a tool's JSON Schema as input_schema: always an object
// type, with properties (the API wants them even when there are none).
func inputSchema(schema map[string]any) map[string]any {
	s := make(map[string]any, len(schema)+2)
	maps.Copy(s, schema)
	s["type"] = "object"
	if s["properties"] == nil {
		s["properties"] = map[string]any{}
	}
	return s
}

// inputObject is a call's input as sent back in a tool_use block, which must
// be a JSON object: input that was not one (see toolInput) is sent as {}.
func inputObject(in json.RawMessage) any {
	var obj map[string]json.RawMessage
	if json.Unmarshal(in, &obj) != nil || obj == nil {
		return map[string]any{}
	}
	return in
}

// failure maps a failed request to a *provider.Error: an HTTP error
// answer by its status and the message in its body, saying which setting
// to change when it refused the max_tokens sent (maxTokens).
func (c *Client) failure(ctx context.Context, err error, maxTokens int) error {
	return c.errs.Failure(ctx, err, func(se *provider.HTTPStatusError) error {
		if missing, msg := modelMissing(se); missing {
			return c.errs.ModelNotFound(se.Status, msg, se)
		}
		e := c.errs.FromStatus(se.Status, provider.BodyMessage(se.Body), se)
		if fe := provider.CapRefused(se, c.name, provider.FieldMaxTokens, "", maxTokens); fe != nil {
			e.Err = fe
		}
		return e
	})
}

// eventError maps an error event inside a 200 stream (typically
// overloaded_error): its type stands for the status the API documents
// for it.
func (c *Client) eventError(data string) error {
	var ev errorEvent
	_ = json.Unmarshal([]byte(data), &ev)
	err := fmt.Errorf("received error while streaming: %s", data)
	return c.errs.FromStatus(typeStatus(ev.Error.Type), provider.BodyMessage([]byte(data)), err)
}

// typeStatus is the HTTP status the API documents for an error type. An
// unknown type counts as api_error, the API's catch-all.
func typeStatus(errorType string) int {
	switch errorType {
	case "invalid_request_error":
		return 400
	case "authentication_error":
		return 401
	case "billing_error":
		return 402
	case "permission_error":
		return 403
	case "not_found_error":
		return 404
	case "request_too_large":
		return 413
	case "rate_limit_error":
		return 429
	case "timeout_error":
		return 504
	case "overloaded_error":
		return 529
	}
	return 500
}
