// Package openai adapts any OpenAI-compatible Chat Completions endpoint
// (OpenAI, OpenRouter, Ollama, LM Studio, vLLM) to provider.Provider, using
// the official openai-go SDK.
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
// context.Canceled. Time limits and retries are provider.HTTPCall's: 429,
// 408, 5xx and a stream cut before any text are retried there, visibly
// (Notice deltas), honouring Retry-After / retry-after-ms; the SDK's own
// retries are off. Nothing is retried once text has been yielded.
// Breaking out of the loop, or cancelling ctx, closes the HTTP response.
//
// Everything comes from the Profile: unlike openai.NewClient, the client here
// never reads OPENAI_API_KEY, OPENAI_BASE_URL or OPENAI_ORG_ID, so a key for
// api.openai.com is never sent to Ollama or OpenRouter. A Client is safe for
// concurrent use.
package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/ssestream"
	"github.com/openai/openai-go/v3/shared"

	"github.com/loopforge/loopforge/backend/provider"
)

const (
	// DefaultModel is used when the profile names none.
	DefaultModel = "gpt-4o-mini"
	// DefaultBaseURL is OpenAI's own endpoint.
	DefaultBaseURL = "https://api.openai.com/v1"
)

// Client is an OpenAI-compatible chat provider for one profile.
type Client struct {
	name       string
	model      string
	errs       provider.ErrorContext // builds errors; hides the key
	structured bool
	// official: api.openai.com, which wants max_completion_tokens; other
	// compatible servers mostly understand only max_tokens.
	official bool
	call     *provider.HTTPCall // limits and retries
	chat     openai.ChatCompletionService
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

	// NewChatCompletionService, unlike NewClient, applies no environment
	// defaults, so only what is passed here is used. Retries are the
	// HTTPCall's, where the user sees them.
	call := provider.NewHTTPCall(name, p)
	opts := []option.RequestOption{
		option.WithBaseURL(base),
		option.WithHTTPClient(call.Client()),
		option.WithMaxRetries(0),
	}
	if p.APIKey != "" {
		opts = append(opts, option.WithAPIKey(p.APIKey))
	}
	errs := provider.NewErrorContext(name, p.APIKeyEnv, u.Redacted(), p.APIKey)
	errs.Model = model
	return &Client{
		name:       name,
		model:      model,
		errs:       errs,
		structured: p.Structured == nil || *p.Structured,
		official:   u.Host == "api.openai.com",
		call:       call,
		chat:       openai.NewChatCompletionService(opts...),
		local:      p.APIKeyEnv == "",
		baseURL:    base,
	}, nil
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

		// httpResp gives the status even when the SDK fails to decode an
		// error body that is not OpenAI-shaped (plain text, {"detail":...}).
		var httpResp *http.Response
		stream := c.chat.NewStreaming(ctx, params, option.WithResponseInto(&httpResp))
		defer stream.Close()

		var content strings.Builder
		var calls toolCalls
		resp := provider.Response{Model: c.model}
		finished := false
		for stream.Next() {
			chunk := stream.Current()
			if chunk.Model != "" {
				resp.Model = chunk.Model
			}
			if chunk.JSON.Usage.Valid() {
				resp.Usage = usage(chunk.Usage)
			}
			for _, ch := range chunk.Choices {
				if ch.Index != 0 {
					continue
				}
				// A refusal is the model's answer too: passing it on lets the
				// loop show why no JSON came back.
				for _, t := range []string{ch.Delta.Content, ch.Delta.Refusal} {
					if t == "" {
						continue
					}
					content.WriteString(t)
					if !yield(provider.Delta{Text: t}, nil) {
						return
					}
				}
				for _, tc := range ch.Delta.ToolCalls {
					calls.add(tc)
				}
				if ch.FinishReason != "" {
					resp.FinishReason = ch.FinishReason
					finished = true
				}
			}
		}
		if err := stream.Err(); err != nil {
			yield(provider.Delta{}, c.mapError(ctx, err, httpResp))
			return
		}
		if !finished {
			// The SDK cannot tell [DONE] from a dropped connection; a missing
			// finish_reason is how a truncated answer shows.
			yield(provider.Delta{}, &provider.Error{Provider: c.name, Kind: provider.KindProtocol,
				Message: "stream ended without a finish_reason", Err: provider.ErrStreamCut})
			return
		}
		resp.Content = content.String()
		if resp.ToolCalls = calls.result(); len(resp.ToolCalls) > 0 {
			// Some compatible servers say "stop" although they ask for calls.
			resp.FinishReason = "tool_calls"
		}
		resp.Duration = time.Since(start)
		slog.Debug("provider call done", "provider", c.name, "model", resp.Model,
			"input_tokens", resp.Usage.InputTokens, "output_tokens", resp.Usage.OutputTokens,
			"duration", resp.Duration)
		yield(provider.Delta{Done: &resp}, nil)
	}
}

// params builds the request body. Schema is honoured only when structured
// output is on; otherwise the loop falls back to fenced code.
func (c *Client) params(req provider.Request) (openai.ChatCompletionNewParams, error) {
	msgs := make([]openai.ChatCompletionMessageParamUnion, 0, len(req.Messages)+1)
	if req.System != "" {
		// "system", not "developer": every compatible server knows it, and
		// OpenAI maps it for the models that want "developer".
		msgs = append(msgs, openai.SystemMessage(req.System))
	}
	for _, m := range req.Messages {
		switch m.Role {
		case provider.RoleUser:
			msgs = append(msgs, openai.UserMessage(m.Content))
		case provider.RoleAssistant:
			if len(m.ToolCalls) == 0 {
				msgs = append(msgs, openai.AssistantMessage(m.Content))
				continue
			}
			a := openai.ChatCompletionAssistantMessageParam{}
			if m.Content != "" {
				a.Content.OfString = openai.String(m.Content)
			}
			for _, tc := range m.ToolCalls {
				a.ToolCalls = append(a.ToolCalls, openai.ChatCompletionMessageToolCallUnionParam{
					OfFunction: &openai.ChatCompletionMessageFunctionToolCallParam{
						ID: tc.ID,
						Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{
							Name: tc.Name, Arguments: arguments(tc.Input),
						},
					},
				})
			}
			msgs = append(msgs, openai.ChatCompletionMessageParamUnion{OfAssistant: &a})
		case provider.RoleTool:
			if m.ToolCallID == "" {
				return openai.ChatCompletionNewParams{}, &provider.Error{Provider: c.name, Kind: provider.KindBadRequest,
					Message: "tool message without a tool_call_id"}
			}
			msgs = append(msgs, openai.ToolMessage(m.Content, m.ToolCallID))
		default:
			return openai.ChatCompletionNewParams{}, &provider.Error{Provider: c.name, Kind: provider.KindBadRequest,
				Message: fmt.Sprintf("message role %q is not user, assistant or tool", m.Role)}
		}
	}
	p := openai.ChatCompletionNewParams{
		Model:         c.model,
		Messages:      msgs,
		StreamOptions: openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)},
	}
	for _, t := range req.Tools {
		fn := shared.FunctionDefinitionParam{Name: t.Name}
		if t.Description != "" {
			fn.Description = openai.String(t.Description)
		}
		if t.Parameters != nil {
			fn.Parameters = shared.FunctionParameters(t.Parameters)
		}
		p.Tools = append(p.Tools, openai.ChatCompletionFunctionTool(fn))
	}
	if req.MaxTokens > 0 {
		if c.official {
			p.MaxCompletionTokens = openai.Int(int64(req.MaxTokens))
		} else {
			p.MaxTokens = openai.Int(int64(req.MaxTokens))
		}
	}
	if req.Schema != nil && c.structured {
		name := req.Schema.Name
		if name == "" {
			name = "response"
		}
		js := shared.ResponseFormatJSONSchemaJSONSchemaParam{
			Name:   name,
			Strict: openai.Bool(true),
			Schema: req.Schema.JSON,
		}
		if req.Schema.Description != "" {
			js.Description = openai.String(req.Schema.Description)
		}
		p.ResponseFormat = openai.ChatCompletionNewParamsResponseFormatUnion{
			OfJSONSchema: &shared.ResponseFormatJSONSchemaParam{JSONSchema: js},
		}
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

func (tc *toolCalls) add(d openai.ChatCompletionChunkChoiceDeltaToolCall) {
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
	c.args.WriteString(d.Function.Arguments)
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

// usage converts the final usage chunk. OpenRouter adds the cost in USD as
// an extra "cost" field.
func usage(u openai.CompletionUsage) provider.Usage {
	out := provider.Usage{InputTokens: int(u.PromptTokens), OutputTokens: int(u.CompletionTokens)}
	if f, ok := u.JSON.ExtraFields["cost"]; ok {
		if cost, err := strconv.ParseFloat(f.Raw(), 64); err == nil {
			out.CostUSD = cost
		}
	}
	return out
}

// mapError turns an SDK or transport error into a *provider.Error.
func (c *Client) mapError(ctx context.Context, err error, httpResp *http.Response) error {
	if ctxErr := c.errs.FromContext(ctx, err); ctxErr != nil {
		return ctxErr
	}
	var apiErr *openai.Error
	if errors.As(err, &apiErr) {
		msg := apiErr.Message
		if msg == "" && apiErr.Response != nil && apiErr.Response.Body != nil {
			// Not OpenAI-shaped ({"detail":...}, plain text, an HTML proxy
			// page); the SDK keeps the body it read.
			msg = readMessage(apiErr.Response.Body)
		}
		return c.errs.FromStatus(apiErr.StatusCode, msg, err)
	}
	var streamErr *ssestream.StreamError
	if errors.As(err, &streamErr) {
		return c.streamError(streamErr)
	}
	if httpResp != nil && httpResp.StatusCode >= 400 {
		// The SDK could not decode the error body; read what it kept.
		msg := ""
		if httpResp.Body != nil {
			msg = readMessage(httpResp.Body)
		}
		return c.errs.FromStatus(httpResp.StatusCode, msg, err)
	}
	return c.errs.FromTransport(err)
}

// readMessage extracts the server's message from an error body the SDK could
// not decode as an OpenAI error (plain text, {"detail":...}, an HTML page).
func readMessage(r io.Reader) string {
	b, _ := io.ReadAll(io.LimitReader(r, 64<<10))
	return provider.BodyMessage(b)
}

// streamError maps an {"error": ...} event sent after the stream began.
// There is no HTTP status then; the body's numeric code (OpenRouter) or
// type (OpenAI) says what kind of failure it was.
func (c *Client) streamError(se *ssestream.StreamError) error {
	var body struct {
		Error struct {
			Message string `json:"message"`
			Type    string `json:"type"`
			Code    any    `json:"code"`
		} `json:"error"`
	}
	_ = json.Unmarshal(se.Event.Data, &body)
	msg := body.Error.Message
	if msg == "" {
		msg = string(se.Event.Data)
	}
	if code, ok := body.Error.Code.(float64); ok && code >= 400 && code < 600 {
		return c.errs.FromStatus(int(code), msg, se)
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
	e := &provider.Error{Provider: c.name, Kind: kind, Message: c.errs.Clean(msg), Err: se}
	if kind == provider.KindAuth {
		e.EnvVar = c.errs.KeyEnv
	}
	return e
}
