package clitest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/loopforge/loopforge/backend/provider"
)

// ModelServer is a fake model API for driving the real CLIs offline. It
// speaks the three streaming wire formats they use, answering every model
// turn with Answer split into a few chunks:
//
//   - POST .../responses: OpenAI Responses API server-sent events (codex);
//   - POST .../v1/messages: Anthropic Messages API events (claude), or one
//     JSON message when the request does not stream;
//   - POST .../models/M:streamGenerateContent: Gemini SSE (gemini); the
//     helper calls :generateContent (JSON answers to routing/next-speaker
//     schemas) and :countTokens get plausible JSON.
//
// Every request is recorded; anything else is answered 404 (and recorded).
type ModelServer struct {
	*httptest.Server
	Answer string
	// Hang makes model turns wait until the client goes away.
	Hang atomic.Bool

	mu       sync.Mutex
	requests []ModelRequest
}

// ModelRequest is one request the server received.
type ModelRequest struct {
	Method, Path string
	Header       http.Header
	Body         []byte
}

// Usage the server reports for every turn.
const (
	FakeInputTokens  = 1234
	FakeOutputTokens = 56
)

// NewModelServer starts a server answering answer; it is closed with the
// test.
func NewModelServer(t testing.TB, answer string) *ModelServer {
	t.Helper()
	s := &ModelServer{Answer: answer}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

// Requests returns what the server received so far.
func (s *ModelServer) Requests() []ModelRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]ModelRequest(nil), s.requests...)
}

func (s *ModelServer) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	s.requests = append(s.requests, ModelRequest{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: body})
	s.mu.Unlock()
	var req struct {
		Model  string `json:"model"`
		Stream bool   `json:"stream"`
	}
	_ = json.Unmarshal(body, &req)
	p := r.URL.Path
	if s.Hang.Load() && (strings.HasSuffix(p, "/responses") || strings.HasSuffix(p, "/v1/messages") || strings.Contains(p, "GenerateContent") || strings.HasSuffix(p, ":generateContent")) {
		<-r.Context().Done()
		return
	}
	switch {
	case r.Method == http.MethodPost && strings.HasSuffix(p, "/responses"):
		s.responses(w, req.Model)
	case r.Method == http.MethodPost && strings.HasSuffix(p, "/v1/messages") && req.Stream:
		s.messagesSSE(w, req.Model)
	case r.Method == http.MethodPost && strings.HasSuffix(p, "/v1/messages"):
		s.messageJSON(w, req.Model)
	case r.Method == http.MethodPost && strings.HasSuffix(p, ":streamGenerateContent"):
		s.geminiSSE(w, geminiModel(p))
	case r.Method == http.MethodPost && strings.HasSuffix(p, ":generateContent"):
		s.geminiJSON(w, geminiModel(p))
	case r.Method == http.MethodPost && strings.HasSuffix(p, ":countTokens"):
		writeJSON(w, map[string]any{"totalTokens": FakeInputTokens})
	default:
		http.NotFound(w, r)
	}
}

// chunks splits the answer into a few deltas.
func (s *ModelServer) chunks() []string {
	a := []rune(s.Answer)
	n := max(1, len(a)/4)
	var out []string
	for len(a) > 0 {
		k := min(n, len(a))
		out = append(out, string(a[:k]))
		a = a[k:]
	}
	return out
}

func sse(w http.ResponseWriter) func(event string, data any) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	fl, _ := w.(http.Flusher)
	return func(event string, data any) {
		b, _ := json.Marshal(data)
		if event != "" {
			fmt.Fprintf(w, "event: %s\n", event)
		}
		fmt.Fprintf(w, "data: %s\n\n", b)
		if fl != nil {
			fl.Flush()
		}
	}
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

// --- OpenAI Responses API (codex) -------------------------------------------

func (s *ModelServer) responses(w http.ResponseWriter, model string) {
	send := sse(w)
	const respID, msgID = "resp_fake_1", "msg_fake_1"
	send("response.created", map[string]any{"type": "response.created",
		"response": map[string]any{"id": respID, "object": "response", "model": model, "status": "in_progress", "output": []any{}}})
	send("response.output_item.added", map[string]any{"type": "response.output_item.added", "output_index": 0,
		"item": map[string]any{"type": "message", "id": msgID, "role": "assistant", "status": "in_progress", "content": []any{}}})
	send("response.content_part.added", map[string]any{"type": "response.content_part.added", "item_id": msgID,
		"output_index": 0, "content_index": 0, "part": map[string]any{"type": "output_text", "text": "", "annotations": []any{}}})
	for _, c := range s.chunks() {
		send("response.output_text.delta", map[string]any{"type": "response.output_text.delta", "item_id": msgID,
			"output_index": 0, "content_index": 0, "delta": c})
	}
	send("response.output_text.done", map[string]any{"type": "response.output_text.done", "item_id": msgID,
		"output_index": 0, "content_index": 0, "text": s.Answer})
	item := map[string]any{"type": "message", "id": msgID, "role": "assistant", "status": "completed",
		"content": []any{map[string]any{"type": "output_text", "text": s.Answer, "annotations": []any{}}}}
	send("response.output_item.done", map[string]any{"type": "response.output_item.done", "output_index": 0, "item": item})
	send("response.completed", map[string]any{"type": "response.completed", "response": map[string]any{
		"id": respID, "object": "response", "model": model, "status": "completed", "output": []any{item},
		"usage": map[string]any{"input_tokens": FakeInputTokens, "input_tokens_details": map[string]any{"cached_tokens": 0},
			"output_tokens": FakeOutputTokens, "output_tokens_details": map[string]any{"reasoning_tokens": 0},
			"total_tokens": FakeInputTokens + FakeOutputTokens}}})
}

// --- Anthropic Messages API (claude) ----------------------------------------

func (s *ModelServer) messagesSSE(w http.ResponseWriter, model string) {
	send := sse(w)
	send("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": "msg_fake_1", "type": "message", "role": "assistant", "model": model, "content": []any{},
		"stop_reason": nil, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": FakeInputTokens, "output_tokens": 1, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}}})
	send("content_block_start", map[string]any{"type": "content_block_start", "index": 0,
		"content_block": map[string]any{"type": "text", "text": ""}})
	for _, c := range s.chunks() {
		send("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0,
			"delta": map[string]any{"type": "text_delta", "text": c}})
	}
	send("content_block_stop", map[string]any{"type": "content_block_stop", "index": 0})
	send("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": "end_turn", "stop_sequence": nil},
		"usage": map[string]any{"output_tokens": FakeOutputTokens}})
	send("message_stop", map[string]any{"type": "message_stop"})
}

func (s *ModelServer) messageJSON(w http.ResponseWriter, model string) {
	writeJSON(w, map[string]any{"id": "msg_fake_2", "type": "message", "role": "assistant", "model": model,
		"content":     []any{map[string]any{"type": "text", "text": s.Answer}},
		"stop_reason": "end_turn", "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": FakeInputTokens, "output_tokens": FakeOutputTokens}})
}

// --- Gemini API (gemini) -----------------------------------------------------

func geminiModel(path string) string {
	m := path[strings.LastIndex(path, "/")+1:]
	if i := strings.IndexByte(m, ':'); i >= 0 {
		m = m[:i]
	}
	return m
}

func (s *ModelServer) geminiSSE(w http.ResponseWriter, model string) {
	send := sse(w)
	cs := s.chunks()
	for i, c := range cs {
		cand := map[string]any{"content": map[string]any{"role": "model", "parts": []any{map[string]any{"text": c}}}, "index": 0}
		chunk := map[string]any{"candidates": []any{cand}, "modelVersion": model}
		if i == len(cs)-1 {
			cand["finishReason"] = "STOP"
			chunk["usageMetadata"] = map[string]any{"promptTokenCount": FakeInputTokens,
				"candidatesTokenCount": FakeOutputTokens, "totalTokenCount": FakeInputTokens + FakeOutputTokens}
		}
		send("", chunk)
	}
}

// geminiJSON answers gemini's helper calls (model routing, next speaker,
// loop checks) with an object that satisfies the schemas seen so far.
func (s *ModelServer) geminiJSON(w http.ResponseWriter, model string) {
	text := `{"next_speaker":"user","reasoning":"The answer is complete.","complexity_reasoning":"simple","complexity_score":1}`
	writeJSON(w, map[string]any{
		"candidates": []any{map[string]any{"content": map[string]any{"role": "model",
			"parts": []any{map[string]any{"text": text}}}, "finishReason": "STOP", "index": 0}},
		"usageMetadata": map[string]any{"promptTokenCount": 10, "candidatesTokenCount": 10, "totalTokenCount": 20},
		"modelVersion":  model,
	})
}

// CheckTimeoutStopsCLI makes one call to p while srv hangs, with a short
// per-call timeout, and checks that it ends as a timeout with a partial
// result and that nothing is left running in its workdir.
func CheckTimeoutStopsCLI(t *testing.T, p provider.Provider, srv *ModelServer) {
	t.Helper()
	srv.Hang.Store(true)
	defer srv.Hang.Store(false)
	wd := t.TempDir()
	req := provider.Request{Workdir: wd, Timeout: 5 * time.Second,
		Messages: []provider.Message{{Role: provider.RoleUser, Content: "Say hi slowly"}}}
	_, _, err := Collect(p.Stream(context.Background(), req))
	if !errors.Is(err, provider.ErrTimeout) {
		t.Fatalf("err = %v", err)
	}
	if part := provider.PartialOf(err); part == nil || part.Status != provider.StatusPartial {
		t.Errorf("partial %+v", part)
	}
	if left := ProcessesIn(wd); len(left) > 0 {
		t.Errorf("processes left running in the workdir: %v", left)
	}
}
