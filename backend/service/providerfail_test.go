package service

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/loopforge/loopforge/backend/config"
	"github.com/loopforge/loopforge/backend/event"
	"github.com/loopforge/loopforge/backend/provider"
	"github.com/loopforge/loopforge/backend/store"
)

// How a run records what a real provider's stream did when it did not end
// with an answer: the Anthropic Messages wire format, from a local server.

// anthropicEvents writes events the way the Messages API streams them.
func anthropicEvents(w http.ResponseWriter, evs ...string) {
	w.Header().Set("Content-Type", "text/event-stream")
	for _, e := range evs {
		var head struct{ Type string }
		_ = json.Unmarshal([]byte(e), &head)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", head.Type, e)
		w.(http.Flusher).Flush()
	}
}

const (
	msgStart = `{"type":"message_start","message":{"id":"msg_01","type":"message","role":"assistant","model":"claude-test-1",` +
		`"content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":120,"output_tokens":1}}}`
	textStart = `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`
	msgEnd    = `{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":30}}`
	msgStop   = `{"type":"message_stop"}`
)

func anthropicText(s string) string {
	return fmt.Sprintf(`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":%q}}`, s)
}

// anthropicService is a Service whose "anthropic" profile talks to h; it
// also returns how many requests reached h.
func anthropicService(t *testing.T, h http.HandlerFunc) (*Service, *atomic.Int32) {
	t.Helper()
	var requests atomic.Int32
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		h(w, r)
	}))
	t.Cleanup(ts.Close)
	env := map[string]string{"LOOPFORGE_HOME": t.TempDir(), "ANTHROPIC_API_KEY": "sk-ant-test"}
	cfg, err := config.Load(config.Options{LookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok }})
	if err != nil {
		t.Fatal(err)
	}
	p := cfg.Profiles["anthropic"]
	p.BaseURL, p.Model = ts.URL, "claude-test"
	cfg.Profiles["anthropic"] = p
	svc, err := New(context.Background(), Options{Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Close() })
	return svc, &requests
}

// finished returns a run's events and its run_finished payload.
func finished(t *testing.T, svc *Service, runID string) ([]event.Event, event.RunFinishedPayload) {
	t.Helper()
	evs := collect(t, svc, runID, 0)
	var fin event.RunFinishedPayload
	if last := evs[len(evs)-1]; last.Type != event.RunFinished || last.Decode(&fin) != nil {
		t.Fatalf("last event %s", last.Type)
	}
	return evs, fin
}

func storedRun(t *testing.T, svc *Service, sessionID string) store.Run {
	t.Helper()
	d, err := svc.Session(context.Background(), sessionID)
	if err != nil || len(d.Runs) != 1 {
		t.Fatalf("session: %v, %d runs", err, len(d.Runs))
	}
	return d.Runs[0]
}

func TestServerDyingMidAnswerIsAnInterruptionWithItsTokens(t *testing.T) {
	const streamed = "Here is the program:\n```python\nprint("
	svc, requests := anthropicService(t, func(w http.ResponseWriter, _ *http.Request) {
		anthropicEvents(w, msgStart, textStart, anthropicText("Here is the program:\n"), anthropicText("```python\nprint("))
		panic(http.ErrAbortHandler) // the model server dies mid-answer
	})
	ctx := context.Background()
	info, err := svc.StartRun(ctx, RunRequest{Prompt: "print 42", Provider: "anthropic", MaxIterations: 3})
	if err != nil {
		t.Fatal(err)
	}
	run, err := svc.Wait(ctx, info.RunID)
	if run == nil || run.Status != event.RunStatusError || !errors.Is(err, provider.ErrInterrupted) {
		t.Fatalf("run %+v, err %v: want a run ended by an interrupted answer", run, err)
	}
	if errors.Is(err, provider.ErrProtocol) || strings.Contains(run.Error, "format") || requests.Load() != 1 {
		t.Errorf("error %q after %d requests: a cut connection is not a format error, and text streamed is not asked again", run.Error, requests.Load())
	}
	if Classify(err) != ClassProvider {
		t.Errorf("class %s, want provider", Classify(err))
	}

	// Everything counted before the cut is kept: the run_finished event,
	// the stored run, and the text that streamed.
	evs, fin := finished(t, svc, info.RunID)
	if fin.InputTokens != 120 || fin.OutputTokens != 1 || fin.ErrorCode != string(CodeProviderBroke) ||
		fin.ErrorParams["received"] != fmt.Sprint(len(streamed)) || fin.ErrorParams["url"] == "" {
		t.Errorf("run_finished %+v: want the 120 input tokens message_start counted and the code %s", fin, CodeProviderBroke)
	}
	var text strings.Builder
	for _, e := range evs {
		if e.Type == event.Token {
			var p event.TokenPayload
			_ = e.Decode(&p)
			text.WriteString(p.Text)
		}
	}
	if text.String() != streamed {
		t.Errorf("stored tokens %q, want %q", text.String(), streamed)
	}
	r := storedRun(t, svc, info.SessionID)
	if r.InputTokens != 120 || r.OutputTokens != 1 || r.ErrorCode != string(CodeProviderBroke) {
		t.Errorf("stored run: %d in, %d out, code %q", r.InputTokens, r.OutputTokens, r.ErrorCode)
	}
}

func TestRefusalEndsTheRunWithTheProvidersExplanation(t *testing.T) {
	refusal := `{"type":"message_delta","delta":{"stop_reason":"refusal","stop_sequence":null,"stop_details":{"type":"refusal",` +
		`"category":"cyber","explanation":"This request was declined under the Usage Policy."}},"usage":{"output_tokens":4}}`
	svc, requests := anthropicService(t, func(w http.ResponseWriter, _ *http.Request) {
		anthropicEvents(w, msgStart, refusal, msgStop)
	})
	ctx := context.Background()
	info, err := svc.StartRun(ctx, RunRequest{Prompt: "write malware", Provider: "anthropic", MaxIterations: 3})
	if err != nil {
		t.Fatal(err)
	}
	run, err := svc.Wait(ctx, info.RunID)
	if run == nil || run.Status != event.RunStatusError || !errors.Is(err, provider.ErrRefused) || run.Iterations != 1 {
		t.Fatalf("run %+v, err %v: want one iteration ended by a refusal", run, err)
	}
	if requests.Load() != 1 {
		t.Errorf("%d requests: a refusal is not asked again as an answer without code", requests.Load())
	}
	evs, fin := finished(t, svc, info.RunID)
	want := map[string]string{"provider": "anthropic", "category": "cyber", "message": "This request was declined under the Usage Policy."}
	for k, v := range want {
		if fin.ErrorParams[k] != v {
			t.Errorf("run_finished params %v, want %s=%q", fin.ErrorParams, k, v)
		}
	}
	if fin.ErrorCode != string(CodeProviderRefused) || fin.InputTokens != 120 || fin.OutputTokens != 4 {
		t.Errorf("run_finished %+v", fin)
	}
	for _, e := range evs {
		if e.Type == event.Generated {
			var g event.GeneratedPayload
			_ = e.Decode(&g)
			t.Errorf("a refusal recorded as an answer (format error %q)", g.FormatError)
		}
	}
	if r := storedRun(t, svc, info.SessionID); r.ErrorCode != string(CodeProviderRefused) || r.ErrorParams["category"] != "cyber" {
		t.Errorf("stored run: code %q params %v", r.ErrorCode, r.ErrorParams)
	}
}

func TestFallbackModelIsStoredAndShown(t *testing.T) {
	fallback := `{"type":"content_block_start","index":0,"content_block":{"type":"fallback","from":{"model":"claude-test-1"},"to":{"model":"claude-spare-2"}}}`
	svc, _ := anthropicService(t, func(w http.ResponseWriter, _ *http.Request) {
		anthropicEvents(w, msgStart, fallback, `{"type":"content_block_stop","index":0}`,
			`{"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}`,
			`{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"`+"```python\\nprint(42)\\n```"+`"}}`,
			`{"type":"content_block_stop","index":1}`, msgEnd, msgStop)
	})
	ctx := context.Background()
	info, err := svc.StartRun(ctx, RunRequest{Prompt: "print 42", Provider: "anthropic", MaxIterations: 1})
	if err != nil {
		t.Fatal(err)
	}
	if run, err := svc.Wait(ctx, info.RunID); run == nil || run.Status != event.RunStatusSuccess {
		t.Fatalf("run %+v, err %v", run, err)
	}
	if info.Model != "claude-test" {
		t.Errorf("the run started with model %q", info.Model)
	}
	evs, fin := finished(t, svc, info.RunID)
	if fin.Model != "claude-spare-2" {
		t.Errorf("run_finished model %q, want the fallback model", fin.Model)
	}
	var notice *event.LogPayload
	for _, e := range evs {
		if e.Type == event.Log {
			var l event.LogPayload
			_ = e.Decode(&l)
			if l.Code == event.NoticeFallback {
				notice = &l
			}
		}
	}
	if notice == nil || notice.Params["from"] != "claude-test-1" || notice.Params["to"] != "claude-spare-2" {
		t.Errorf("fallback notice %+v", notice)
	}
	if r := storedRun(t, svc, info.SessionID); r.Model != "claude-spare-2" {
		t.Errorf("stored model %q, want the model that answered", r.Model)
	}
}

func TestRetryGoesOnFromWhereTheRunStopped(t *testing.T) {
	// Call 1 answers with code that fails, call 2 reflects, call 3 (the
	// second iteration's answer) breaks off; tried again, call 4 must get
	// the thread as it stood when call 3 was sent.
	var bodies []map[string]any
	var mu sync.Mutex
	answer := func(text string) []string {
		return []string{msgStart, textStart, anthropicText(text), `{"type":"content_block_stop","index":0}`, msgEnd, msgStop}
	}
	svc, requests := anthropicService(t, func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		_ = json.NewDecoder(r.Body).Decode(&body)
		mu.Lock()
		bodies = append(bodies, body)
		n := len(bodies)
		mu.Unlock()
		switch n {
		case 1:
			anthropicEvents(w, answer("```python\nprint(1/0)\n```")...)
		case 2:
			anthropicEvents(w, answer("It divides by zero.")...)
		case 3:
			anthropicEvents(w, msgStart, textStart, anthropicText("```python\nprint(4"))
			panic(http.ErrAbortHandler)
		default:
			anthropicEvents(w, answer("```python\nprint(42)\n```")...)
		}
	})
	ctx := context.Background()
	first, err := svc.StartRun(ctx, RunRequest{Prompt: "print 42", Provider: "anthropic", MaxIterations: 3})
	if err != nil {
		t.Fatal(err)
	}
	if run, err := svc.Wait(ctx, first.RunID); run.Status != event.RunStatusError || run.Iterations != 2 || !errors.Is(err, provider.ErrInterrupted) {
		t.Fatalf("first run %s after %d iterations: %v", run.Status, run.Iterations, err)
	}

	again, err := svc.StartRun(ctx, RunRequest{Retry: first.RunID})
	if err != nil {
		t.Fatal(err)
	}
	run, err := svc.Wait(ctx, again.RunID)
	if err != nil || run.Status != event.RunStatusSuccess {
		t.Fatalf("the retry: %+v, %v", run, err)
	}
	if again.SessionID != first.SessionID || run.Prompt != "print 42" || run.Provider != "anthropic" || run.MaxIterations != 2 {
		t.Errorf("the retry: session %s (want %s), prompt %q, provider %s, %d iterations left (want 2)",
			again.SessionID, first.SessionID, run.Prompt, run.Provider, run.MaxIterations)
	}
	if requests.Load() != 4 {
		t.Fatalf("%d requests", requests.Load())
	}
	mu.Lock()
	third, fourth := bodies[2]["messages"], bodies[3]["messages"]
	mu.Unlock()
	if !reflect.DeepEqual(third, fourth) {
		t.Errorf("the retried request differs from the one that broke off:\n%v\n%v", third, fourth)
	}
	if !strings.Contains(fmt.Sprint(fourth), "It divides by zero.") {
		t.Errorf("the retried request lacks the reflection the broken one had")
	}
	if msgs, _ := fourth.([]any); len(msgs) != 3 {
		t.Errorf("retried request has %d messages, want the prompt, the first answer and its error report", len(msgs))
	}

	// A running run cannot be tried again; an unknown one is not found.
	if _, err := svc.StartRun(ctx, RunRequest{Retry: "no-such-run"}); Classify(err) != ClassNotFound {
		t.Errorf("unknown run: %v", err)
	}
}

func TestRetryOfARunThatStoredNoThread(t *testing.T) {
	// A run whose process went away stored no thread: trying it again asks
	// its prompt, after the thread it started from.
	svc, _ := anthropicService(t, func(w http.ResponseWriter, _ *http.Request) {
		anthropicEvents(w, msgStart, textStart, anthropicText("```python\nprint(42)\n```"), `{"type":"content_block_stop","index":0}`, msgEnd, msgStop)
	})
	ctx := context.Background()
	first, err := svc.StartRun(ctx, RunRequest{Prompt: "print 42", Provider: "anthropic", MaxIterations: 1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Wait(ctx, first.RunID); err != nil {
		t.Fatal(err)
	}
	lost := &store.Run{SessionID: first.SessionID, Provider: "anthropic", Model: "claude-test", Prompt: "now print 43",
		Status: event.RunStatusInterrupted, MaxIterations: 4, Reflect: true, Language: "python"}
	if err := svc.store.CreateRun(ctx, lost); err != nil {
		t.Fatal(err)
	}
	got, err := svc.retry(ctx, &RunRequest{Retry: lost.ID})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[0].Content != "print 42" || got[2].Role != provider.RoleUser || got[2].Content != "now print 43" {
		t.Errorf("thread %+v", got)
	}
}
