// Package anthropic adapts the Anthropic Messages API to provider.Provider,
// using the official anthropic-sdk-go.
//
// Contract: each range over Stream sends one streaming Messages request. It
// yields the text_delta fragments in arrival order, then exactly one Delta
// whose Done holds the concatenated content, the model, token usage (input
// from message_start, output from message_delta), the stop reason and the
// duration; or it yields one error and stops. Errors are *provider.Error,
// except that cancelling ctx yields an error wrapping context.Canceled. Time
// limits and retries are provider.HTTPCall's: 429, 408, 5xx (529 overloaded
// included), an error event such as overloaded_error and a stream cut before
// any text are retried there, visibly (Notice deltas), honouring retry-after
// / retry-after-ms; the SDK's own retries are off. Nothing is retried once
// text has been yielded. Given Request.Tools,
// the model may ask for tool calls: each tool_use block (content_block_start
// and its input_json_delta fragments) is returned in Done.ToolCalls (status
// provider.ToolPending, Input = the JSON input) with FinishReason
// "tool_calls". Breaking out of the
// loop, or cancelling ctx, closes the HTTP response.
//
// Structured output is not offered: the loop asks for a fenced code block
// instead. Everything comes from the Profile; the SDK's environment defaults
// (ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL, profiles on disk) are switched off.
// A Client is safe for concurrent use.
package anthropic

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"log/slog"
	"net/url"
	"strings"
	"time"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"

	"github.com/loopforge/loopforge/backend/provider"
)

const (
	// DefaultModel is used when the profile names none.
	DefaultModel = "claude-sonnet-4-5"
	// DefaultBaseURL is Anthropic's endpoint; the SDK appends /v1/messages.
	DefaultBaseURL = "https://api.anthropic.com"
	// DefaultKeyEnv names the key variable when the profile names none.
	DefaultKeyEnv = "ANTHROPIC_API_KEY"
	// DefaultMaxTokens: the API requires max_tokens on every request.
	DefaultMaxTokens = 8192
)

// Client is an Anthropic Messages provider for one profile.
type Client struct {
	name  string
	model string
	errs  provider.ErrorContext // builds errors; hides the key
	call  *provider.HTTPCall    // limits and retries
	msgs  anthropic.MessageService
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
	// The SDK adds "v1/messages" itself, so a base URL copied with its /v1
	// would double it.
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
	// Retries are the HTTPCall's, where the user sees them.
	call := provider.NewHTTPCall(name, p)
	opts := []option.RequestOption{
		option.WithoutEnvironmentDefaults(),
		option.WithBaseURL(base),
		option.WithHTTPClient(call.Client()),
		option.WithMaxRetries(0),
		// An environment variable could otherwise put prompts into trace spans.
		option.WithOpenTelemetryTracesContentMode(option.OpenTelemetryContentModeMetadataOnly),
	}
	if p.APIKey != "" {
		opts = append(opts, option.WithAPIKey(p.APIKey))
	}
	client := anthropic.NewClient(opts...)
	errs := provider.NewErrorContext(name, keyEnv, u.Redacted(), p.APIKey)
	errs.Model = model
	return &Client{
		name:  name,
		model: model,
		errs:  errs,
		call:  call,
		msgs:  client.Messages,
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
func (c *Client) Stream(ctx context.Context, req provider.Request) iter.Seq2[provider.Delta, error] {
	return c.call.Stream(ctx, func(ctx context.Context) iter.Seq2[provider.Delta, error] {
		return c.attempt(ctx, req)
	})
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
		stream := c.msgs.NewStreaming(ctx, params)
		defer stream.Close()

		var content strings.Builder
		var calls []*toolUse
		byIndex := map[int64]*toolUse{}
		resp := provider.Response{Model: c.model}
		stopped := false
		emit := func(t string) bool {
			if t == "" {
				return true
			}
			content.WriteString(t)
			return yield(provider.Delta{Text: t}, nil)
		}
		for stream.Next() {
			ev := stream.Current()
			switch ev.Type {
			case "message_start":
				if ev.Message.Model != "" {
					resp.Model = ev.Message.Model
				}
				u := ev.Message.Usage
				resp.Usage.InputTokens = inputTokens(u.InputTokens, u.CacheCreationInputTokens, u.CacheReadInputTokens)
				resp.Usage.OutputTokens = int(u.OutputTokens)
			case "content_block_start":
				switch ev.ContentBlock.Type {
				case "text":
					if !emit(ev.ContentBlock.Text) {
						return
					}
				case "tool_use":
					tu := &toolUse{id: ev.ContentBlock.ID, name: ev.ContentBlock.Name, start: ev.ContentBlock.JSON.Input.Raw()}
					calls = append(calls, tu)
					byIndex[ev.Index] = tu
				}
			case "content_block_delta":
				// Text and tool input only: thinking, signatures and
				// citations are not part of the answer.
				switch ev.Delta.Type {
				case "text_delta":
					if !emit(ev.Delta.Text) {
						return
					}
				case "input_json_delta":
					if tu := byIndex[ev.Index]; tu != nil {
						tu.input.WriteString(ev.Delta.PartialJSON)
					}
				}
			case "message_delta":
				if ev.Delta.StopReason != "" {
					resp.FinishReason = string(ev.Delta.StopReason)
				}
				// Counts here are cumulative for the whole message.
				if ev.Usage.OutputTokens > 0 {
					resp.Usage.OutputTokens = int(ev.Usage.OutputTokens)
				}
				if ev.Usage.InputTokens > 0 {
					resp.Usage.InputTokens = inputTokens(ev.Usage.InputTokens, ev.Usage.CacheCreationInputTokens, ev.Usage.CacheReadInputTokens)
				}
			case "message_stop":
				stopped = true
			}
		}
		if err := stream.Err(); err != nil {
			yield(provider.Delta{}, c.mapError(ctx, err))
			return
		}
		if !stopped {
			yield(provider.Delta{}, &provider.Error{Provider: c.name, Kind: provider.KindProtocol,
				Message: "stream ended without message_stop", Err: provider.ErrStreamCut})
			return
		}
		resp.Content = content.String()
		for i, tu := range calls {
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
		resp.Duration = time.Since(start)
		slog.Debug("provider call done", "provider", c.name, "model", resp.Model,
			"input_tokens", resp.Usage.InputTokens, "output_tokens", resp.Usage.OutputTokens,
			"duration", resp.Duration)
		yield(provider.Delta{Done: &resp}, nil)
	}
}

// inputTokens counts every prompt token the call processed: the API reports
// cached and cache-writing tokens apart from input_tokens.
func inputTokens(in, cacheCreation, cacheRead int64) int {
	return int(in + cacheCreation + cacheRead)
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
func (c *Client) params(req provider.Request) (anthropic.MessageNewParams, error) {
	msgs := make([]anthropic.MessageParam, 0, len(req.Messages))
	afterTools := false // the last message is a user turn of tool results
	for _, m := range req.Messages {
		switch m.Role {
		case provider.RoleUser:
			if afterTools {
				last := &msgs[len(msgs)-1]
				last.Content = append(last.Content, anthropic.NewTextBlock(m.Content))
			} else {
				msgs = append(msgs, anthropic.NewUserMessage(anthropic.NewTextBlock(m.Content)))
			}
			afterTools = false
		case provider.RoleAssistant:
			var blocks []anthropic.ContentBlockParamUnion
			if m.Content != "" || len(m.ToolCalls) == 0 {
				blocks = append(blocks, anthropic.NewTextBlock(m.Content))
			}
			for _, tc := range m.ToolCalls {
				blocks = append(blocks, anthropic.NewToolUseBlock(tc.ID, inputObject(tc.Input), tc.Name))
			}
			msgs = append(msgs, anthropic.NewAssistantMessage(blocks...))
			afterTools = false
		case provider.RoleTool:
			if m.ToolCallID == "" {
				return anthropic.MessageNewParams{}, &provider.Error{Provider: c.name, Kind: provider.KindBadRequest,
					Message: "tool message without a tool_call_id"}
			}
			// The API refuses an empty text block: an empty result has no
			// content at all.
			res := anthropic.ToolResultBlockParam{ToolUseID: m.ToolCallID}
			if m.Content != "" {
				res.Content = []anthropic.ToolResultBlockParamContentUnion{{OfText: &anthropic.TextBlockParam{Text: m.Content}}}
			}
			block := anthropic.ContentBlockParamUnion{OfToolResult: &res}
			if afterTools {
				last := &msgs[len(msgs)-1]
				last.Content = append(last.Content, block)
			} else {
				msgs = append(msgs, anthropic.NewUserMessage(block))
			}
			afterTools = true
		default:
			return anthropic.MessageNewParams{}, &provider.Error{Provider: c.name, Kind: provider.KindBadRequest,
				Message: fmt.Sprintf("message role %q is not user, assistant or tool", m.Role)}
		}
	}
	maxTokens := int64(req.MaxTokens)
	if maxTokens <= 0 {
		maxTokens = DefaultMaxTokens
	}
	p := anthropic.MessageNewParams{
		Model:     c.model,
		MaxTokens: maxTokens,
		Messages:  msgs,
	}
	if req.System != "" {
		p.System = []anthropic.TextBlockParam{{Text: req.System}}
	}
	for _, t := range req.Tools {
		tp := anthropic.ToolParam{Name: t.Name, InputSchema: inputSchema(t.Parameters)}
		if t.Description != "" {
			tp.Description = anthropic.String(t.Description)
		}
		p.Tools = append(p.Tools, anthropic.ToolUnionParam{OfTool: &tp})
	}
	return p, nil
}

// inputSchema spreads a JSON Schema object over the SDK's input_schema:
// properties and required have fields of their own, the rest travels as
// extra fields.
func inputSchema(schema map[string]any) anthropic.ToolInputSchemaParam {
	var s anthropic.ToolInputSchemaParam
	for k, v := range schema {
		switch k {
		case "type": // always "object"
		case "properties":
			s.Properties = v
		case "required":
			switch req := v.(type) {
			case []string:
				s.Required = req
			case []any:
				for _, r := range req {
					if name, ok := r.(string); ok {
						s.Required = append(s.Required, name)
					}
				}
			}
		default:
			if s.ExtraFields == nil {
				s.ExtraFields = map[string]any{}
			}
			s.ExtraFields[k] = v
		}
	}
	if s.Properties == nil {
		s.Properties = map[string]any{}
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

// mapError turns an SDK or transport error into a *provider.Error.
func (c *Client) mapError(ctx context.Context, err error) error {
	if ctxErr := c.errs.FromContext(ctx, err); ctxErr != nil {
		return ctxErr
	}
	var apiErr *anthropic.Error
	if errors.As(err, &apiErr) {
		msg := provider.BodyMessage([]byte(apiErr.RawJSON()))
		if apiErr.StatusCode >= 400 {
			return c.errs.FromStatus(apiErr.StatusCode, msg, err)
		}
		// An error event inside a 200 stream (typically overloaded_error):
		// its type stands for the status the API documents for it.
		return c.errs.FromStatus(typeStatus(string(apiErr.Type())), msg, err)
	}
	return c.errs.FromTransport(err)
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
