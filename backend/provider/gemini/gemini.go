// Package gemini adapts the Gemini API (generativelanguage.googleapis.com)
// to provider.Provider, using the official google.golang.org/genai SDK.
//
// Contract: each range over Stream sends one streamGenerateContent request
// (alt=sse). It yields the text parts of the first candidate in arrival order
// (thought parts left out), then exactly one Delta whose Done holds the
// concatenated content, the model version, token usage (the last
// usageMetadata), the finish reason and the duration; or it yields one error
// and stops. Errors are *provider.Error, except that cancelling ctx yields an
// error wrapping context.Canceled. Time limits and retries are
// provider.HTTPCall's: 429, 408, 5xx and a stream cut before any text are
// retried there, visibly (Notice deltas), waiting what a 429's RetryInfo
// asks; the SDK's own retries are off. Nothing is retried once text has
// been yielded. Breaking out of the loop, or cancelling ctx, closes the
// HTTP response.
//
// Given Request.Tools (sent as functionDeclarations with
// parametersJsonSchema), the model may answer with functionCall parts: they
// are returned in Done.ToolCalls (status provider.ToolPending, Input = the
// args as JSON) with FinishReason "tool_calls". A call without an id gets one
// (prefix "loopforge_"), which is never sent to the API. A call's
// thoughtSignature (Gemini 3 refuses a replayed call without it) is kept by
// the Client under the call's id and sent again with that call; a call the
// Client does not know gets the documented "skip_thought_signature_validator"
// sentinel instead. RoleTool messages become functionResponse parts
// ({"output": content}, named after the call they answer) of one user turn.
//
// Everything comes from the Profile: the key and base URL are always passed
// explicitly, so the SDK's fallbacks (GEMINI_API_KEY, GOOGLE_API_KEY,
// GOOGLE_GEMINI_BASE_URL) are never used. A Client is safe for concurrent use.
package gemini

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"google.golang.org/genai"

	"github.com/loopforge/loopforge/backend/provider"
)

const (
	// DefaultModel is used when the profile names none.
	DefaultModel = "gemini-2.5-flash"
	// DefaultBaseURL is the Gemini API host; the SDK appends the API
	// version and the method path.
	DefaultBaseURL = "https://generativelanguage.googleapis.com/"
	// DefaultKeyEnv names the key variable when the profile names none.
	DefaultKeyEnv = "GEMINI_API_KEY"
)

// Client is a Gemini API provider for one profile.
type Client struct {
	name       string
	model      string
	errs       provider.ErrorContext // builds errors; hides the key
	structured bool
	call       *provider.HTTPCall // limits and retries
	models     *genai.Models
	sigs       *signatures
}

// generatedID prefixes the ids this package gives calls that came without
// one; they are not sent back to the API.
const generatedID = "loopforge_"

// skipSignature is the sentinel the Gemini API documents for a replayed
// function call whose thought signature is not available.
var skipSignature = []byte("skip_thought_signature_validator")

// maxSignatures bounds the signatures a Client remembers.
const maxSignatures = 4096

// signatures remembers the thoughtSignature of each function call the
// Client returned (nil for a call that had none), by call id.
type signatures struct {
	mu    sync.Mutex
	byID  map[string][]byte
	order []string
}

func (s *signatures) put(id string, sig []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.byID == nil {
		s.byID = map[string][]byte{}
	}
	if _, ok := s.byID[id]; !ok {
		s.order = append(s.order, id)
	}
	s.byID[id] = sig
	if len(s.order) > maxSignatures {
		delete(s.byID, s.order[0])
		s.order = s.order[1:]
	}
}

func (s *signatures) get(id string) (sig []byte, known bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sig, known = s.byID[id]
	return sig, known
}

var _ provider.Provider = (*Client)(nil)

// New builds a client for p. It makes no request. A missing key fails with
// provider.ErrMissingKey: the Gemini API always needs one.
func New(p provider.Profile) (provider.Provider, error) {
	name := p.Name
	if name == "" {
		name = "gemini-api"
	}
	keyEnv := p.APIKeyEnv
	if keyEnv == "" {
		keyEnv = DefaultKeyEnv
	}
	if p.APIKey == "" {
		return nil, &provider.Error{Kind: provider.KindMissingKey, Provider: name, EnvVar: keyEnv}
	}
	base, version, shown := DefaultBaseURL, "", strings.TrimRight(DefaultBaseURL, "/")
	if p.BaseURL != "" {
		u, err := url.Parse(p.BaseURL)
		if err != nil || u.Scheme == "" || u.Host == "" {
			return nil, fmt.Errorf("profile %q: base_url %q is not an absolute URL", name, p.BaseURL)
		}
		// The SDK appends the version itself, so a base URL copied with
		// its /v1beta would double it: move it to APIVersion instead.
		u.Path, version = splitVersion(u.Path)
		base, shown = u.String(), strings.TrimRight(p.BaseURL, "/")
		if u.User != nil {
			shown = u.Redacted()
		}
	}
	model := p.Model
	if model == "" {
		model = DefaultModel
	}

	// No RetryOptions: the SDK then sends each request once. Retries are
	// the HTTPCall's, where the user sees them.
	call := provider.NewHTTPCall(name, p)
	client, err := genai.NewClient(context.Background(), &genai.ClientConfig{
		APIKey:     p.APIKey,
		Backend:    genai.BackendGeminiAPI,
		HTTPClient: call.Client(),
		HTTPOptions: genai.HTTPOptions{
			BaseURL:    base,
			APIVersion: version,
		},
	})
	if err != nil {
		// Not err itself: the SDK prints its whole config, key included.
		return nil, fmt.Errorf("profile %q: cannot set up the Gemini client", name)
	}
	errs := provider.NewErrorContext(name, keyEnv, shown, p.APIKey)
	errs.Model = model
	return &Client{
		name:       name,
		model:      model,
		errs:       errs,
		structured: p.Structured == nil || *p.Structured,
		call:       call,
		models:     client.Models,
		sigs:       &signatures{},
	}, nil
}

// Name is the profile name.
func (c *Client) Name() string { return c.name }

// Limits are the time limits of each call.
func (c *Client) Limits() provider.Limits { return c.call.Limits() }

// Capabilities reports structured output unless the profile turned it off,
// and function calling.
func (c *Client) Capabilities() provider.Capabilities {
	return provider.Capabilities{StructuredOutput: c.structured, Tools: true}
}

// Stream sends req as one streaming generateContent call; see the package doc.
func (c *Client) Stream(ctx context.Context, req provider.Request) iter.Seq2[provider.Delta, error] {
	return c.call.Stream(ctx, func(ctx context.Context) iter.Seq2[provider.Delta, error] {
		return c.attempt(ctx, req)
	})
}

// attempt sends req once.
func (c *Client) attempt(ctx context.Context, req provider.Request) iter.Seq2[provider.Delta, error] {
	return func(yield func(provider.Delta, error) bool) {
		start := time.Now()
		contents, cfg, err := c.request(req)
		if err != nil {
			yield(provider.Delta{}, err)
			return
		}

		var content strings.Builder
		resp := provider.Response{Model: c.model}
		for chunk, err := range c.models.GenerateContentStream(ctx, c.model, contents, cfg) {
			if err != nil {
				yield(provider.Delta{}, c.mapError(ctx, err))
				return
			}
			if chunk.ModelVersion != "" {
				resp.Model = chunk.ModelVersion
			}
			if u := chunk.UsageMetadata; u != nil {
				// Each chunk carries the running total. Thinking is billed as
				// output, so it counts as output here.
				resp.Usage.InputTokens = int(u.PromptTokenCount)
				resp.Usage.OutputTokens = int(u.CandidatesTokenCount + u.ThoughtsTokenCount)
			}
			if pf := chunk.PromptFeedback; pf != nil && pf.BlockReason != "" {
				msg := "prompt blocked: " + string(pf.BlockReason)
				if pf.BlockReasonMessage != "" {
					msg += ": " + pf.BlockReasonMessage
				}
				yield(provider.Delta{}, &provider.Error{Provider: c.name, Kind: provider.KindBadRequest,
					Message: c.errs.Clean(msg)})
				return
			}
			if len(chunk.Candidates) == 0 || chunk.Candidates[0] == nil {
				continue
			}
			cand := chunk.Candidates[0]
			if cand.Content != nil {
				for _, part := range cand.Content.Parts {
					if part != nil && part.FunctionCall != nil {
						resp.ToolCalls = append(resp.ToolCalls, c.toolCall(part))
						continue
					}
					if part == nil || part.Text == "" || part.Thought {
						continue
					}
					content.WriteString(part.Text)
					if !yield(provider.Delta{Text: part.Text}, nil) {
						return
					}
				}
			}
			if cand.FinishReason != "" && cand.FinishReason != genai.FinishReasonUnspecified {
				resp.FinishReason = string(cand.FinishReason)
			}
		}
		if resp.FinishReason == "" {
			// The SDK ends a dropped stream without an error; the last chunk
			// of a complete one has a finish reason.
			yield(provider.Delta{}, &provider.Error{Provider: c.name, Kind: provider.KindProtocol,
				Message: "stream ended without a finishReason", Err: provider.ErrStreamCut})
			return
		}
		resp.Content = content.String()
		if len(resp.ToolCalls) > 0 {
			resp.FinishReason = "tool_calls" // the API says STOP
		}
		resp.Duration = time.Since(start)
		slog.Debug("provider call done", "provider", c.name, "model", resp.Model,
			"input_tokens", resp.Usage.InputTokens, "output_tokens", resp.Usage.OutputTokens,
			"duration", resp.Duration)
		yield(provider.Delta{Done: &resp}, nil)
	}
}

// toolCall converts a functionCall part, giving it an id if it has none and
// remembering its thought signature.
func (c *Client) toolCall(part *genai.Part) provider.ToolCall {
	fc := part.FunctionCall
	id := fc.ID
	if id == "" {
		var b [8]byte
		_, _ = rand.Read(b[:])
		id = generatedID + hex.EncodeToString(b[:])
	}
	c.sigs.put(id, part.ThoughtSignature)
	input := json.RawMessage("{}")
	if len(fc.Args) > 0 {
		if b, err := json.Marshal(fc.Args); err == nil {
			input = b
		}
	}
	return provider.ToolCall{ID: id, Name: fc.Name, Input: input, Status: provider.ToolPending}
}

// request builds the contents and config. The system prompt travels as
// systemInstruction; the assistant's role is "model". An assistant message's
// ToolCalls become functionCall parts after its text; RoleTool messages
// become functionResponse parts of one user turn (with the user's next text,
// if any: the API wants as many responses as calls in the turn after them).
func (c *Client) request(req provider.Request) ([]*genai.Content, *genai.GenerateContentConfig, error) {
	contents := make([]*genai.Content, 0, len(req.Messages))
	names := map[string]string{} // call id -> function name
	afterTools := false          // the last content holds function responses
	for _, m := range req.Messages {
		switch m.Role {
		case provider.RoleUser:
			if afterTools {
				last := contents[len(contents)-1]
				last.Parts = append(last.Parts, &genai.Part{Text: m.Content})
			} else {
				contents = append(contents, genai.NewContentFromText(m.Content, genai.RoleUser))
			}
			afterTools = false
		case provider.RoleAssistant:
			if len(m.ToolCalls) == 0 {
				contents = append(contents, genai.NewContentFromText(m.Content, genai.RoleModel))
				afterTools = false
				continue
			}
			turn := &genai.Content{Role: genai.RoleModel}
			if m.Content != "" {
				turn.Parts = append(turn.Parts, &genai.Part{Text: m.Content})
			}
			for i, tc := range m.ToolCalls {
				names[tc.ID] = tc.Name
				fc := &genai.FunctionCall{Name: tc.Name, Args: args(tc.Input)}
				if !strings.HasPrefix(tc.ID, generatedID) {
					fc.ID = tc.ID
				}
				part := &genai.Part{FunctionCall: fc}
				if sig, known := c.sigs.get(tc.ID); known {
					part.ThoughtSignature = sig
				} else if i == 0 {
					// Only the first of parallel calls carries one.
					part.ThoughtSignature = skipSignature
				}
				turn.Parts = append(turn.Parts, part)
			}
			contents = append(contents, turn)
			afterTools = false
		case provider.RoleTool:
			if m.ToolCallID == "" {
				return nil, nil, &provider.Error{Provider: c.name, Kind: provider.KindBadRequest,
					Message: "tool message without a tool_call_id"}
			}
			name, ok := names[m.ToolCallID]
			if !ok {
				return nil, nil, &provider.Error{Provider: c.name, Kind: provider.KindBadRequest,
					Message: fmt.Sprintf("tool message for call %q, which no assistant message made", m.ToolCallID)}
			}
			fr := &genai.FunctionResponse{Name: name, Response: map[string]any{"output": m.Content}}
			if !strings.HasPrefix(m.ToolCallID, generatedID) {
				fr.ID = m.ToolCallID
			}
			part := &genai.Part{FunctionResponse: fr}
			if afterTools {
				last := contents[len(contents)-1]
				last.Parts = append(last.Parts, part)
			} else {
				contents = append(contents, &genai.Content{Role: genai.RoleUser, Parts: []*genai.Part{part}})
			}
			afterTools = true
		default:
			return nil, nil, &provider.Error{Provider: c.name, Kind: provider.KindBadRequest,
				Message: fmt.Sprintf("message role %q is not user, assistant or tool", m.Role)}
		}
	}
	cfg := &genai.GenerateContentConfig{}
	if len(req.Tools) > 0 {
		decls := make([]*genai.FunctionDeclaration, 0, len(req.Tools))
		for _, t := range req.Tools {
			d := &genai.FunctionDeclaration{Name: t.Name, Description: t.Description}
			if t.Parameters != nil {
				// A plain JSON Schema, where parameters would need the
				// OpenAPI subset.
				d.ParametersJsonSchema = t.Parameters
			}
			decls = append(decls, d)
		}
		cfg.Tools = []*genai.Tool{{FunctionDeclarations: decls}}
	}
	if req.System != "" {
		cfg.SystemInstruction = &genai.Content{Parts: []*genai.Part{{Text: req.System}}}
	}
	if req.MaxTokens > 0 {
		cfg.MaxOutputTokens = int32(req.MaxTokens)
	}
	if req.Schema != nil && c.structured {
		// responseJsonSchema takes a plain JSON Schema, where responseSchema
		// would need it converted to the OpenAPI subset.
		cfg.ResponseMIMEType = "application/json"
		cfg.ResponseJsonSchema = req.Schema.JSON
	}
	return contents, cfg, nil
}

// args is a call's input as functionCall args, which must be an object:
// input that is not one is sent as {}.
func args(in json.RawMessage) map[string]any {
	var m map[string]any
	if json.Unmarshal(in, &m) != nil || m == nil {
		return map[string]any{}
	}
	return m
}

// mapError turns an SDK or transport error into a *provider.Error.
func (c *Client) mapError(ctx context.Context, err error) error {
	if ctxErr := c.errs.FromContext(ctx, err); ctxErr != nil {
		return ctxErr
	}
	var apiErr genai.APIError
	var apiErrPtr *genai.APIError
	switch {
	case errors.As(err, &apiErr):
	case errors.As(err, &apiErrPtr) && apiErrPtr != nil:
		apiErr = *apiErrPtr
	default:
		return c.errs.FromTransport(err)
	}
	status := apiErr.Code
	if status == 0 {
		status = grpcStatus(apiErr.Status)
	}
	e := c.errs.FromStatus(status, apiErr.Message, err)
	if keyInvalid(apiErr) {
		// The Gemini API answers a bad key with 400 INVALID_ARGUMENT.
		e.Kind, e.EnvVar = provider.KindAuth, c.errs.KeyEnv
	}
	e.RetryAfter = retryDelay(apiErr)
	return e
}

// retryDelay is the wait a RESOURCE_EXHAUSTED error asks for in its
// google.rpc.RetryInfo detail ("retryDelay": "38s"); the Gemini API sends
// no Retry-After header.
func retryDelay(e genai.APIError) time.Duration {
	for _, d := range e.Details {
		if t, _ := d["@type"].(string); !strings.HasSuffix(t, "google.rpc.RetryInfo") {
			continue
		}
		if s, _ := d["retryDelay"].(string); s != "" {
			if v, err := time.ParseDuration(s); err == nil && v > 0 {
				return v
			}
		}
	}
	return 0
}

// keyInvalid reports the Gemini API's answer to a wrong key: a 400 whose
// ErrorInfo reason is API_KEY_INVALID.
func keyInvalid(e genai.APIError) bool {
	for _, d := range e.Details {
		if r, _ := d["reason"].(string); r == "API_KEY_INVALID" {
			return true
		}
	}
	return strings.Contains(e.Message, "API key not valid")
}

// splitVersion splits an API version ("v1", "v1beta") off the end of a URL
// path.
func splitVersion(p string) (rest, version string) {
	p = strings.TrimRight(p, "/")
	i := strings.LastIndex(p, "/")
	seg := p[i+1:]
	if len(seg) > 1 && seg[0] == 'v' && seg[1] >= '0' && seg[1] <= '9' {
		return p[:max(i, 0)] + "/", seg
	}
	return p + "/", ""
}

// grpcStatus maps the canonical status name in an error body to its HTTP
// status, for bodies that carry no numeric code.
func grpcStatus(s string) int {
	switch s {
	case "INVALID_ARGUMENT", "FAILED_PRECONDITION", "OUT_OF_RANGE":
		return http.StatusBadRequest
	case "UNAUTHENTICATED":
		return http.StatusUnauthorized
	case "PERMISSION_DENIED":
		return http.StatusForbidden
	case "NOT_FOUND":
		return http.StatusNotFound
	case "RESOURCE_EXHAUSTED":
		return http.StatusTooManyRequests
	case "UNAVAILABLE":
		return http.StatusServiceUnavailable
	case "DEADLINE_EXCEEDED":
		return http.StatusGatewayTimeout
	case "INTERNAL", "UNKNOWN", "DATA_LOSS":
		return http.StatusInternalServerError
	}
	return 0
}
