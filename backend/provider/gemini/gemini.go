// Package gemini adapts the Gemini API (generativelanguage.googleapis.com)
// to provider.Provider, speaking its REST wire format (wire.go) directly.
//
// Why not the official google.golang.org/genai SDK: this package uses one
// endpoint of it, and linking it brought gRPC, OpenCensus, go-cmp and the
// Google auth stack into every loopforge process, whose package
// initialisation cost about a quarter of `loopforge --version`'s CPU time
// (issue 13). The request and response shapes below are the documented
// REST ones; the tests drive them against a local server speaking them.
//
// Contract: each range over Stream sends one streamGenerateContent request
// (alt=sse). It yields the text parts of the first candidate in arrival order
// (thought parts left out), then exactly one Delta whose Done holds the
// concatenated content, the model version, token usage (the last
// usageMetadata), the finish reason and the duration; or it yields one error
// and stops. Errors are *provider.Error, except that cancelling ctx yields an
// error wrapping context.Canceled; once the answer has begun they come
// wrapped in a *provider.PartialError with the text and usage so far. A
// blocked prompt (promptFeedback.blockReason) or an answer stopped for its
// content (finishReason SAFETY, PROHIBITED_CONTENT, ...) is an error of
// KindRefusal naming the reason; a stream that breaks off is
// KindInterrupted. Time limits and retries are
// provider.HTTPCall's: 429, 408, 5xx and a stream cut before any text are
// retried there, visibly (Notice deltas), waiting what a 429's RetryInfo
// asks. Nothing is retried once text has been yielded. Breaking out of the loop, or cancelling ctx, closes the
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
// Everything comes from the Profile: the key and base URL are always given
// explicitly (no GEMINI_API_KEY, GOOGLE_API_KEY or GOOGLE_GEMINI_BASE_URL
// fallbacks). A Client is safe for concurrent use.
package gemini

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"iter"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/loopforge/loopforge/backend/provider"
)

const (
	// DefaultModel is used when the profile names none.
	DefaultModel = "gemini-3.8-flash"
	// DefaultBaseURL is the Gemini API host; the API version and the
	// method path are appended to it.
	DefaultBaseURL = "https://generativelanguage.googleapis.com/"
	// DefaultKeyEnv names the key variable when the profile names none.
	DefaultKeyEnv = "GEMINI_API_KEY"
	// defaultVersion is the API version when the base URL names none.
	defaultVersion = "v1beta"
)

// Client is a Gemini API provider for one profile.
type Client struct {
	name       string
	model      string
	errs       provider.ErrorContext // builds errors; hides the key
	structured bool
	maxTokens  int                // the profile's max_output_tokens (0: none)
	call       *provider.HTTPCall // limits and retries
	endpoint   string             // the streamGenerateContent URL
	root       string             // the versioned API root, for models.list
	header     func(http.Header)  // sets the key; a func, so it never prints
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
	endpoint, shown, err := endpointOf(p.BaseURL)
	if err != nil {
		return nil, fmt.Errorf("profile %q: %w", name, err)
	}
	model := p.Model
	if model == "" {
		model = DefaultModel
	}
	errs := provider.NewErrorContext(name, keyEnv, shown, p.APIKey)
	errs.Model = model
	key := p.APIKey
	return &Client{
		name:       name,
		model:      model,
		errs:       errs,
		structured: p.Structured == nil || *p.Structured,
		maxTokens:  p.MaxOutputTokens,
		call:       provider.NewHTTPCall(name, p),
		endpoint:   endpoint + "models/" + url.PathEscape(model) + ":streamGenerateContent?alt=sse",
		root:       endpoint,
		header:     func(h http.Header) { h.Set("x-goog-api-key", key) },
		sigs:       &signatures{},
	}, nil
}

// endpointOf is the versioned API root ("https://host/v1beta/") of a
// profile's base URL, and the URL as messages show it. A base URL copied
// with its version (/v1beta, /v1) keeps it; one without gets v1beta.
func endpointOf(baseURL string) (endpoint, shown string, err error) {
	if baseURL == "" {
		return DefaultBaseURL + defaultVersion + "/", strings.TrimRight(DefaultBaseURL, "/"), nil
	}
	u, err := url.Parse(baseURL)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return "", "", fmt.Errorf("base_url %q is not an absolute URL", baseURL)
	}
	rest, version := splitVersion(u.Path)
	if version == "" {
		version = defaultVersion
	}
	u.Path = rest + version + "/"
	shown = strings.TrimRight(baseURL, "/")
	if u.User != nil {
		shown = u.Redacted()
	}
	return u.String(), shown, nil
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
		body, err := c.request(req)
		if err != nil {
			yield(provider.Delta{}, err)
			return
		}
		res, err := c.call.PostJSON(ctx, c.endpoint, body, c.header)
		if err != nil {
			yield(provider.Delta{}, c.failure(ctx, err))
			return
		}
		defer res.Body.Close()

		var content strings.Builder
		resp := provider.Response{Model: c.model}
		// fail ends the attempt with err, keeping what arrived (text, the
		// running usage) for the caller.
		fail := func(err error) {
			got := resp
			got.Content = content.String()
			yield(provider.Delta{}, provider.WithPartial(err, &got))
		}
		for ev, err := range provider.Events(res.Body) {
			if err != nil {
				fail(c.errs.Interrupted(ctx, err))
				return
			}
			if ev.Data == "" {
				continue
			}
			var chunk generateResponse
			if err := json.Unmarshal([]byte(ev.Data), &chunk); err != nil {
				fail(c.errs.FromTransport(fmt.Errorf("a stream event is not JSON: %w", err)))
				return
			}
			if err := c.chunkError(chunk); err != nil {
				fail(err)
				return
			}
			if err := c.promptBlocked(chunk); err != nil {
				fail(err)
				return
			}
			if !c.take(chunk, &resp, &content, yield) {
				return
			}
			if err := c.answerBlocked(chunk); err != nil {
				fail(err)
				return
			}
		}
		if resp.FinishReason == "" {
			// The last chunk of a complete answer has a finish reason.
			fail(c.errs.Interrupted(ctx, nil))
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

// take adds one chunk to resp, yielding its text parts; false when the
// consumer stopped.
func (c *Client) take(chunk generateResponse, resp *provider.Response, content *strings.Builder,
	yield func(provider.Delta, error) bool) bool {
	if chunk.ModelVersion != "" {
		resp.Model = chunk.ModelVersion
	}
	if u := chunk.UsageMetadata; u != nil {
		// Each chunk carries the running total. Thinking is billed as
		// output, so it counts as output here.
		resp.Usage.InputTokens = u.PromptTokenCount
		resp.Usage.OutputTokens = u.CandidatesTokenCount + u.ThoughtsTokenCount
	}
	if len(chunk.Candidates) == 0 {
		return true
	}
	cand := chunk.Candidates[0]
	if cand.Content != nil {
		for _, part := range cand.Content.Parts {
			if part.FunctionCall != nil {
				resp.ToolCalls = append(resp.ToolCalls, c.toolCall(part))
				continue
			}
			if part.Text == "" || part.Thought {
				continue
			}
			content.WriteString(part.Text)
			if !yield(provider.Delta{Text: part.Text}, nil) {
				return false
			}
		}
	}
	if cand.FinishReason != "" && cand.FinishReason != "FINISH_REASON_UNSPECIFIED" {
		resp.FinishReason = cand.FinishReason
	}
	return true
}

// blockReasons are the finish reasons of an answer the API stopped for its
// content: safety filters, recitation, blocklists, prohibited content,
// personal data, and their image counterparts.
var blockReasons = map[string]bool{
	"SAFETY": true, "RECITATION": true, "BLOCKLIST": true, "PROHIBITED_CONTENT": true, "SPII": true,
	"IMAGE_SAFETY": true, "IMAGE_PROHIBITED_CONTENT": true, "IMAGE_RECITATION": true,
}

// refusal is a refusal of the API's, for the reason category.
func (c *Client) refusal(category, msg string) error {
	return &provider.Error{Provider: c.name, Kind: provider.KindRefusal, Category: category, Message: c.errs.Clean(msg)}
}

// promptBlocked is the refusal of a blocked prompt (promptFeedback), with
// its reason; nil when the chunk has none.
func (c *Client) promptBlocked(chunk generateResponse) error {
	if pf := chunk.PromptFeedback; pf != nil && pf.BlockReason != "" {
		return c.refusal(pf.BlockReason, cmp.Or(pf.BlockReasonMessage, "the prompt was blocked"))
	}
	return nil
}

// answerBlocked is the refusal of an answer the API stopped for its content
// (a finish reason of blockReasons), with the reason and what the API said
// of it, else the categories that blocked it; nil when the chunk has none.
func (c *Client) answerBlocked(chunk generateResponse) error {
	if len(chunk.Candidates) == 0 || !blockReasons[chunk.Candidates[0].FinishReason] {
		return nil
	}
	cand := chunk.Candidates[0]
	msg := cand.FinishMessage
	if msg == "" {
		msg = "the answer was blocked"
		var cats []string
		for _, r := range cand.SafetyRatings {
			if r.Blocked {
				cats = append(cats, r.Category)
			}
		}
		if len(cats) > 0 {
			msg += " for " + strings.Join(cats, ", ")
		}
	}
	return c.refusal(cand.FinishReason, msg)
}

// toolCall converts a functionCall part, giving it an id if it has none and
// remembering its thought signature.
func (c *Client) toolCall(part part) provider.ToolCall {
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

// request builds the request body. The system prompt travels as
// systemInstruction; the assistant's role is "model". An assistant message's
// ToolCalls become functionCall parts after its text; RoleTool messages
// become functionResponse parts of one user turn (with the user's next text,
// if any: the API wants as many responses as calls in the turn after them).
func (c *Client) request(req provider.Request) (*generateRequest, error) {
	contents, err := c.contents(req.Messages)
	if err != nil {
		return nil, err
	}
	body := &generateRequest{Contents: contents}
	if len(req.Tools) > 0 {
		decls := make([]functionDeclaration, 0, len(req.Tools))
		for _, t := range req.Tools {
			// parametersJsonSchema takes a plain JSON Schema, where
			// parameters would need the OpenAPI subset.
			d := functionDeclaration{Name: t.Name, Description: t.Description}
			if t.Parameters != nil { // not a typed nil in the interface: that is sent as null
				d.ParametersJSONSchema = t.Parameters
			}
			decls = append(decls, d)
		}
		body.Tools = []tool{{FunctionDeclarations: decls}}
	}
	if req.System != "" {
		body.SystemInstruction = &content{Parts: []part{{Text: req.System}}}
	}
	// No cap by default: the model's own limit applies (Gemini 2.5's
	// thinking counts against it).
	body.GenerationConfig.MaxOutputTokens = cmp.Or(req.MaxTokens, c.maxTokens)
	if req.Schema != nil && c.structured {
		// responseJsonSchema takes a plain JSON Schema, where responseSchema
		// would need it converted to the OpenAPI subset.
		body.GenerationConfig.ResponseMIMEType = "application/json"
		body.GenerationConfig.ResponseJSONSchema = req.Schema.JSON
	}
	return body, nil
}

// contents converts the messages; see request.
func (c *Client) contents(msgs []provider.Message) ([]content, error) {
	contents := make([]content, 0, len(msgs))
	names := map[string]string{} // call id -> function name
	afterTools := false          // the last content holds function responses
	for _, m := range msgs {
		switch m.Role {
		case provider.RoleUser:
			if afterTools {
				last := &contents[len(contents)-1]
				last.Parts = append(last.Parts, part{Text: m.Content})
			} else {
				contents = append(contents, content{Role: "user", Parts: []part{{Text: m.Content}}})
			}
			afterTools = false
		case provider.RoleAssistant:
			contents = append(contents, c.modelTurn(m, names))
			afterTools = false
		case provider.RoleTool:
			p, err := c.functionResponse(m, names)
			if err != nil {
				return nil, err
			}
			if afterTools {
				last := &contents[len(contents)-1]
				last.Parts = append(last.Parts, p)
			} else {
				contents = append(contents, content{Role: "user", Parts: []part{p}})
			}
			afterTools = true
		default:
			return nil, &provider.Error{Provider: c.name, Kind: provider.KindBadRequest,
				Message: fmt.Sprintf("message role %q is not user, assistant or tool", m.Role)}
		}
	}
	return contents, nil
}

// modelTurn is an assistant message: its text, then a functionCall part per
// tool call, each with its thought signature. It records the calls' names.
func (c *Client) modelTurn(m provider.Message, names map[string]string) content {
	if len(m.ToolCalls) == 0 {
		return content{Role: "model", Parts: []part{{Text: m.Content}}}
	}
	turn := content{Role: "model"}
	if m.Content != "" {
		turn.Parts = append(turn.Parts, part{Text: m.Content})
	}
	for i, tc := range m.ToolCalls {
		names[tc.ID] = tc.Name
		fc := &functionCall{Name: tc.Name, Args: args(tc.Input)}
		if !strings.HasPrefix(tc.ID, generatedID) {
			fc.ID = tc.ID
		}
		p := part{FunctionCall: fc}
		if sig, known := c.sigs.get(tc.ID); known {
			p.ThoughtSignature = sig
		} else if i == 0 {
			// Only the first of parallel calls carries one.
			p.ThoughtSignature = skipSignature
		}
		turn.Parts = append(turn.Parts, p)
	}
	return turn
}

// functionResponse is a tool message as a functionResponse part, named
// after the call it answers.
func (c *Client) functionResponse(m provider.Message, names map[string]string) (part, error) {
	if m.ToolCallID == "" {
		return part{}, &provider.Error{Provider: c.name, Kind: provider.KindBadRequest,
			Message: "tool message without a tool_call_id"}
	}
	name, ok := names[m.ToolCallID]
	if !ok {
		return part{}, &provider.Error{Provider: c.name, Kind: provider.KindBadRequest,
			Message: fmt.Sprintf("tool message for call %q, which no assistant message made", m.ToolCallID)}
	}
	fr := &functionResponse{Name: name, Response: map[string]any{"output": m.Content}}
	if !strings.HasPrefix(m.ToolCallID, generatedID) {
		fr.ID = m.ToolCallID
	}
	return part{FunctionResponse: fr}, nil
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

// failure maps a failed request or read to a *provider.Error: an HTTP
// error answer by its status and its body (statusError).
func (c *Client) failure(ctx context.Context, err error) error {
	return c.errs.Failure(ctx, err, func(se *provider.HTTPStatusError) error { return c.statusError(se.Status, se.Body) })
}

// statusError maps an HTTP error answer: the Gemini API's error body when it
// is one, else whatever the server (or a proxy) said.
func (c *Client) statusError(status int, body []byte) error {
	var eb errorBody
	if json.Unmarshal(body, &eb) != nil || eb.Error == nil {
		return c.errs.FromStatus(status, provider.BodyMessage(body), nil)
	}
	if modelMissing(status, eb.Error) {
		return c.errs.ModelNotFound(status, eb.Error.Message, eb.Error)
	}
	return c.statusOf(status, eb.Error)
}

// chunkError is the error a stream event carries instead of a response.
func (c *Client) chunkError(chunk generateResponse) error {
	if chunk.Error == nil {
		return nil
	}
	return c.statusOf(0, chunk.Error)
}

// statusOf classifies the API's error object; status is the HTTP status, or
// 0 inside a stream, where the object's code (or status name) says it.
func (c *Client) statusOf(status int, e *rpcStatus) *provider.Error {
	if status == 0 {
		status = e.Code
	}
	if status == 0 {
		status = grpcStatus(e.Status)
	}
	pe := c.errs.FromStatus(status, e.Message, e)
	if keyInvalid(e) {
		// The Gemini API answers a bad key with 400 INVALID_ARGUMENT.
		pe.Kind, pe.EnvVar = provider.KindAuth, c.errs.KeyEnv
	}
	pe.RetryAfter = retryDelay(e)
	return pe
}

// retryDelay is the wait a RESOURCE_EXHAUSTED error asks for in its
// google.rpc.RetryInfo detail ("retryDelay": "38s"); the Gemini API sends
// no Retry-After header.
func retryDelay(e *rpcStatus) time.Duration {
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
func keyInvalid(e *rpcStatus) bool {
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
