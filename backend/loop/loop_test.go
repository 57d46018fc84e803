package loop

import (
	"context"
	"errors"
	"iter"
	"maps"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loopforge/loopforge/backend/event"
	"github.com/loopforge/loopforge/backend/provider"
	"github.com/loopforge/loopforge/backend/sandbox"
)

// scripted answers each call with the next scripted reply, streamed in small
// chunks, and records every request it saw.
type scripted struct {
	mu         sync.Mutex
	replies    []reply
	requests   []provider.Request
	structured bool
}

type reply struct {
	text    string
	err     error
	notices []string // yielded before anything else (a provider's retries)
	// cut: text streams, then err ends the call carrying what arrived
	// (as an HTTP provider's broken-off answer does).
	cut bool
	// model answered; fallbackFrom, when set, is the model asked for.
	model, fallbackFrom string
}

func (s *scripted) Capabilities() provider.Capabilities {
	return provider.Capabilities{StructuredOutput: s.structured}
}

func (s *scripted) Stream(ctx context.Context, req provider.Request) iter.Seq2[provider.Delta, error] {
	s.mu.Lock()
	s.requests = append(s.requests, req)
	var r reply
	if len(s.replies) > 0 {
		r, s.replies = s.replies[0], s.replies[1:]
	} else {
		r = reply{err: errors.New("script exhausted")}
	}
	s.mu.Unlock()
	return func(yield func(provider.Delta, error) bool) {
		for _, n := range r.notices {
			if !yield(provider.Delta{Notice: n}, nil) {
				return
			}
		}
		if r.err != nil && !r.cut {
			yield(provider.Delta{}, r.err)
			return
		}
		for i := 0; i < len(r.text); i += 7 {
			if !yield(provider.Delta{Text: r.text[i:min(i+7, len(r.text))]}, nil) {
				return
			}
		}
		usage := provider.Usage{InputTokens: 10, OutputTokens: 5}
		if r.cut {
			yield(provider.Delta{}, provider.WithPartial(r.err, &provider.Response{Content: r.text, Usage: usage}))
			return
		}
		yield(provider.Delta{Done: &provider.Response{Content: r.text, Usage: usage, Model: r.model, FallbackFrom: r.fallbackFrom}}, nil)
	}
}

// fakeExec "runs" code by looking up its first line in a table of results.
type fakeExec struct {
	mu    sync.Mutex
	codes []string
	by    map[string]sandbox.Result
}

func (f *fakeExec) Run(_ context.Context, req sandbox.Request) (sandbox.Result, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.codes = append(f.codes, req.Code)
	first, _, _ := strings.Cut(req.Code, "\n")
	if r, ok := f.by[first]; ok {
		return r, nil
	}
	return sandbox.Result{Status: sandbox.StatusOK, Isolation: "fake"}, nil
}

var (
	okRun  = sandbox.Result{Status: sandbox.StatusOK, Stdout: "hello\n"}
	badRun = sandbox.Result{Status: sandbox.StatusError, ExitCode: 1, Stderr: "Traceback (most recent call last):\nValueError: boom\n"}
)

func fenced(code string) string { return "Here you go.\n```python\n" + code + "\n```\n" }

type recorder struct{ events []event.Event }

func (r *recorder) emit(e event.Event) error { r.events = append(r.events, e); return nil }

func (r *recorder) kinds() []event.Kind {
	var ks []event.Kind
	for _, e := range r.events {
		if e.Type != event.Token {
			ks = append(ks, e.Type)
		}
	}
	return ks
}

func (r *recorder) tokens(phase event.Phase) string {
	var b strings.Builder
	for _, e := range r.events {
		if e.Type == event.Token {
			var p event.TokenPayload
			_ = e.Decode(&p)
			if p.Phase == phase {
				b.WriteString(p.Text)
			}
		}
	}
	return b.String()
}

func run(t *testing.T, m *scripted, x *fakeExec, s Settings) (Outcome, *recorder) {
	t.Helper()
	rec := &recorder{}
	if s.MaxIterations == 0 {
		s.MaxIterations = 5
	}
	out := Run(context.Background(), m, x, rec.emit, s, Input{Prompt: "print hello"})
	return out, rec
}

func TestSuccessFirstTry(t *testing.T) {
	m := &scripted{replies: []reply{{text: fenced("print('hello')")}}}
	x := &fakeExec{by: map[string]sandbox.Result{"print('hello')": okRun}}
	out, rec := run(t, m, x, Settings{Reflect: true})
	if out.Status != event.RunStatusSuccess || out.Iterations != 1 {
		t.Fatalf("got %s after %d iterations, want success after 1", out.Status, out.Iterations)
	}
	if out.FinalCode != "print('hello')\n" {
		t.Fatalf("final code %q", out.FinalCode)
	}
	if len(m.requests) != 1 || len(x.codes) != 1 {
		t.Fatalf("%d provider calls, %d executions; want 1 and 1 (stop at once)", len(m.requests), len(x.codes))
	}
	want := []event.Kind{event.IterationStarted, event.Generated, event.ExecStarted, event.ExecFinished, event.IterationDone}
	if got := rec.kinds(); !equalKinds(got, want) {
		t.Fatalf("events %v, want %v", got, want)
	}
	if rec.tokens(event.PhaseGenerate) != fenced("print('hello')") {
		t.Fatalf("streamed tokens do not add up to the answer: %q", rec.tokens(event.PhaseGenerate))
	}
	if out.Usage.InputTokens != 10 || out.Usage.OutputTokens != 5 {
		t.Fatalf("usage %+v", out.Usage)
	}
	if n := len(out.Messages); n != 2 || out.Messages[1].Role != provider.RoleAssistant {
		t.Fatalf("thread %+v", out.Messages)
	}
}

func TestFailReflectFix(t *testing.T) {
	m := &scripted{replies: []reply{
		{text: fenced("raise ValueError('boom')")},
		{text: "The code raises ValueError on purpose; remove the raise."},
		{text: fenced("print('fixed')")},
	}}
	x := &fakeExec{by: map[string]sandbox.Result{"raise ValueError('boom')": badRun}}
	out, rec := run(t, m, x, Settings{Reflect: true})
	if out.Status != event.RunStatusSuccess || out.Iterations != 2 {
		t.Fatalf("got %s after %d, want success after 2", out.Status, out.Iterations)
	}
	if len(m.requests) != 3 {
		t.Fatalf("%d provider calls, want 3 (generate, reflect, generate)", len(m.requests))
	}
	reflectReq := m.requests[1]
	if !strings.Contains(reflectReq.Messages[0].Content, "raise ValueError('boom')") ||
		!strings.Contains(reflectReq.Messages[0].Content, "ValueError: boom") {
		t.Fatalf("reflection request lacks the code or the error:\n%s", reflectReq.Messages[0].Content)
	}
	second := m.requests[2]
	last := second.Messages[len(second.Messages)-1].Content
	if !strings.Contains(last, "remove the raise") || !strings.Contains(last, "ValueError: boom") {
		t.Fatalf("second generation lacks the reflection or the error:\n%s", last)
	}
	// The stored thread keeps the error report but never the reflection.
	for _, msg := range out.Messages {
		if strings.Contains(msg.Content, "remove the raise") {
			t.Fatalf("reflection leaked into the thread: %q", msg.Content)
		}
	}
	if got := len(out.Messages); got != 4 {
		t.Fatalf("thread has %d messages, want 4 (prompt, answer, error report, answer)", got)
	}
	if rec.tokens(event.PhaseReflect) != "The code raises ValueError on purpose; remove the raise." {
		t.Fatalf("reflection tokens %q", rec.tokens(event.PhaseReflect))
	}
	want := []event.Kind{
		event.IterationStarted, event.Generated, event.ExecStarted, event.ExecFinished, event.IterationDone, event.Reflection,
		event.IterationStarted, event.Generated, event.ExecStarted, event.ExecFinished, event.IterationDone,
	}
	if got := rec.kinds(); !equalKinds(got, want) {
		t.Fatalf("events %v\nwant %v", got, want)
	}
}

func TestAlwaysFailingStopsAtLimit(t *testing.T) {
	for _, reflect := range []bool{true, false} {
		var replies []reply
		for range 10 {
			replies = append(replies, reply{text: fenced("raise ValueError('boom')")})
			if reflect {
				replies = append(replies, reply{text: "try harder"})
			}
		}
		m := &scripted{replies: replies}
		x := &fakeExec{by: map[string]sandbox.Result{"raise ValueError('boom')": badRun}}
		out, _ := run(t, m, x, Settings{MaxIterations: 3, Reflect: reflect})
		if out.Status != event.RunStatusLimitReached || out.Iterations != 3 || len(x.codes) != 3 {
			t.Fatalf("reflect=%v: %s after %d iterations, %d executions; want limit_reached after exactly 3",
				reflect, out.Status, out.Iterations, len(x.codes))
		}
		wantCalls := 3
		if reflect {
			wantCalls = 5 // no reflection after the last failure
		}
		if len(m.requests) != wantCalls {
			t.Fatalf("reflect=%v: %d provider calls, want %d", reflect, len(m.requests), wantCalls)
		}
	}
}

func TestNoReflectSendsErrorStraightBack(t *testing.T) {
	m := &scripted{replies: []reply{{text: fenced("raise ValueError('boom')")}, {text: fenced("print(1)")}}}
	x := &fakeExec{by: map[string]sandbox.Result{"raise ValueError('boom')": badRun}}
	out, rec := run(t, m, x, Settings{Reflect: false})
	if out.Status != event.RunStatusSuccess || out.Iterations != 2 || len(m.requests) != 2 {
		t.Fatalf("%s after %d with %d calls", out.Status, out.Iterations, len(m.requests))
	}
	last := m.requests[1].Messages[len(m.requests[1].Messages)-1].Content
	if !strings.Contains(last, "ValueError: boom") || strings.Contains(last, "analysis") {
		t.Fatalf("second request should carry the raw error only:\n%s", last)
	}
	for _, k := range rec.kinds() {
		if k == event.Reflection {
			t.Fatal("a reflection event was emitted with reflection off")
		}
	}
}

func TestEmptyReflectionContinuesWithHistory(t *testing.T) {
	m := &scripted{replies: []reply{{text: fenced("raise ValueError('boom')")}, {text: "   "}, {text: fenced("print(1)")}}}
	x := &fakeExec{by: map[string]sandbox.Result{"raise ValueError('boom')": badRun}}
	out, rec := run(t, m, x, Settings{Reflect: true})
	if out.Status != event.RunStatusSuccess || out.Iterations != 2 {
		t.Fatalf("%s after %d", out.Status, out.Iterations)
	}
	last := m.requests[2].Messages[len(m.requests[2].Messages)-1].Content
	if strings.Contains(last, "analysis") || !strings.Contains(last, "ValueError: boom") {
		t.Fatalf("with an empty reflection the request should hold the error report only:\n%s", last)
	}
	var warned bool
	for _, e := range rec.events {
		if e.Type == event.Log {
			warned = true
		}
	}
	if !warned {
		t.Fatal("no notice that the reflection was empty")
	}
}

func TestUnusableOutputIsAFailedIterationWithExactFeedback(t *testing.T) {
	m := &scripted{replies: []reply{{text: "I think you should use a list."}, {text: fenced("print(1)")}}}
	x := &fakeExec{}
	out, rec := run(t, m, x, Settings{Reflect: true})
	if out.Status != event.RunStatusSuccess || out.Iterations != 2 || len(x.codes) != 1 {
		t.Fatalf("%s after %d, %d executions", out.Status, out.Iterations, len(x.codes))
	}
	if len(m.requests) != 2 {
		t.Fatalf("%d calls: a format error must not trigger a reflection", len(m.requests))
	}
	last := m.requests[1].Messages[len(m.requests[1].Messages)-1].Content
	if !strings.Contains(last, "no fenced code block marked python") || !strings.Contains(last, "```python fenced code block") {
		t.Fatalf("feedback does not say what was wrong:\n%s", last)
	}
	var g event.GeneratedPayload
	for _, e := range rec.events {
		if e.Type == event.Generated {
			_ = e.Decode(&g)
			break
		}
	}
	if g.FormatError == "" || g.FormatCode != FormatNoBlock || g.FormatParams["fence"] != "python" {
		t.Fatalf("the first generated event carries no format error and code: %+v", g)
	}
}

func TestStructuredOutput(t *testing.T) {
	m := &scripted{structured: true, replies: []reply{
		{text: `{"explanation": "x", "code": ""}`},
		{text: `{"explanation": "prints", "code": "print('json')"}`},
	}}
	x := &fakeExec{}
	out, _ := run(t, m, x, Settings{})
	if out.Status != event.RunStatusSuccess || out.FinalCode != "print('json')\n" || out.Iterations != 2 {
		t.Fatalf("%s %d %q", out.Status, out.Iterations, out.FinalCode)
	}
	if m.requests[0].Schema == nil {
		t.Fatal("structured provider was not sent a schema")
	}
	if !strings.Contains(m.requests[1].Messages[2].Content, `empty "code" field`) {
		t.Fatalf("feedback: %s", m.requests[1].Messages[2].Content)
	}
}

func TestProviderErrorEndsRun(t *testing.T) {
	perr := &provider.Error{Provider: "x", Kind: provider.KindAuth, Status: 401}
	m := &scripted{replies: []reply{{err: perr}}}
	out, _ := run(t, m, &fakeExec{}, Settings{})
	if out.Status != event.RunStatusError || !errors.Is(out.Err, provider.ErrAuth) {
		t.Fatalf("%s %v", out.Status, out.Err)
	}
}

func TestCancelledContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	m := &scripted{replies: []reply{{err: context.Canceled}}}
	out := Run(ctx, m, &fakeExec{}, func(event.Event) error { return nil }, Settings{MaxIterations: 5}, Input{Prompt: "x"})
	if out.Status != event.RunStatusCancelled {
		t.Fatalf("%s %v", out.Status, out.Err)
	}
}

func TestEmitFailureAborts(t *testing.T) {
	m := &scripted{replies: []reply{{text: fenced("print(1)")}}}
	boom := errors.New("disk full")
	out := Run(context.Background(), m, &fakeExec{}, func(event.Event) error { return boom }, Settings{MaxIterations: 5}, Input{Prompt: "x"})
	if out.Status != event.RunStatusError || !errors.Is(out.Err, boom) {
		t.Fatalf("%s %v", out.Status, out.Err)
	}
}

func TestInvalidSettings(t *testing.T) {
	for _, s := range []Settings{{MaxIterations: 0}, {MaxIterations: 1, Language: "cobol"}} {
		out := Run(context.Background(), &scripted{}, &fakeExec{}, func(event.Event) error { return nil }, s, Input{Prompt: "x"})
		if out.Status != event.RunStatusError || !errors.Is(out.Err, ErrInvalidSettings) {
			t.Fatalf("%+v: %s %v", s, out.Status, out.Err)
		}
	}
}

func TestFollowUpKeepsHistory(t *testing.T) {
	m := &scripted{replies: []reply{{text: fenced("print(2)")}}}
	hist := []provider.Message{{Role: provider.RoleUser, Content: "first"}, {Role: provider.RoleAssistant, Content: "answer"}}
	out := Run(context.Background(), m, &fakeExec{}, func(event.Event) error { return nil },
		Settings{MaxIterations: 2}, Input{Prompt: "now print 2", History: hist})
	if out.Status != event.RunStatusSuccess {
		t.Fatal(out.Err)
	}
	got := m.requests[0].Messages
	if len(got) != 3 || got[0].Content != "first" || got[2].Content != "now print 2" {
		t.Fatalf("request thread %+v", got)
	}
	if len(out.Messages) != 4 {
		t.Fatalf("outcome thread has %d messages, want 4", len(out.Messages))
	}
}

func TestResumeGoesOnFromTheThread(t *testing.T) {
	// A run broke off in iteration 2: its thread ends with the report of
	// iteration 1's failure. Resumed, the first request is that thread as
	// it was; the task is not asked again, and reflection still names it.
	thread := []provider.Message{
		{Role: provider.RoleUser, Content: "print hello"},
		{Role: provider.RoleAssistant, Content: fenced("boom()")},
		{Role: provider.RoleUser, Content: "The program failed: ValueError: boom"},
	}
	m := &scripted{replies: []reply{{text: fenced("boom()")}, {text: "It raised."}, {text: fenced("print('hello')")}}}
	x := &fakeExec{by: map[string]sandbox.Result{"boom()": badRun, "print('hello')": okRun}}
	out := Run(context.Background(), m, x, func(event.Event) error { return nil },
		Settings{MaxIterations: 3, Reflect: true}, Input{Prompt: "print hello", History: thread, Resume: true})
	if out.Status != event.RunStatusSuccess {
		t.Fatalf("%s %v", out.Status, out.Err)
	}
	if got := m.requests[0].Messages; len(got) != 3 || got[2].Content != thread[2].Content {
		t.Fatalf("first request %+v, want the thread as it was", got)
	}
	if reflect := m.requests[1]; !strings.Contains(reflect.Messages[0].Content, "print hello") {
		t.Errorf("the reflection does not name the task: %q", reflect.Messages[0].Content)
	}
	if len(out.Messages) != 6 || out.Messages[3].Content != fenced("boom()") {
		t.Errorf("outcome thread %d messages", len(out.Messages))
	}
	// A thread that does not end with a question gets the task again.
	m = &scripted{replies: []reply{{text: fenced("print('hello')")}}}
	Run(context.Background(), m, x, func(event.Event) error { return nil },
		Settings{MaxIterations: 1}, Input{Prompt: "print hello", History: thread[:2], Resume: true})
	if got := m.requests[0].Messages; len(got) != 3 || got[2].Content != "print hello" {
		t.Errorf("request %+v", got)
	}
}

func equalKinds(a, b []event.Kind) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// sessionModel is a scripted model that keeps its own conversation, like a
// coding CLI: every answer carries a session id.
type sessionModel struct{ scripted }

func (s *sessionModel) Capabilities() provider.Capabilities {
	return provider.Capabilities{Sessions: true}
}

func (s *sessionModel) Stream(ctx context.Context, req provider.Request) iter.Seq2[provider.Delta, error] {
	inner := s.scripted.Stream(ctx, req)
	return func(yield func(provider.Delta, error) bool) {
		for d, err := range inner {
			if d.Done != nil {
				d.Done.SessionID = "cli-session-1"
				d.Done.Warnings = []string{"permission denied: Write"}
			}
			if !yield(d, err) {
				return
			}
		}
	}
}

func TestSessionsAreResumedByLaterGenerations(t *testing.T) {
	m := &sessionModel{scripted{replies: []reply{{text: fenced("raise ValueError('boom')")}, {text: "reflect"}, {text: fenced("print(1)")}}}}
	x := &fakeExec{by: map[string]sandbox.Result{"raise ValueError('boom')": badRun}}
	rec := &recorder{}
	out := Run(context.Background(), m, x, rec.emit, Settings{MaxIterations: 3, Reflect: true}, Input{Prompt: "p"})
	if out.Status != event.RunStatusSuccess {
		t.Fatal(out.Err)
	}
	reqs := m.requests
	if reqs[0].SessionID != "" || reqs[1].SessionID != "" || reqs[2].SessionID != "cli-session-1" {
		t.Fatalf("session ids: first %q, reflection %q, second generation %q", reqs[0].SessionID, reqs[1].SessionID, reqs[2].SessionID)
	}
	if reqs[1].Mode != provider.ModeScript {
		t.Fatalf("reflection mode %q", reqs[1].Mode)
	}
	var warned int
	for _, e := range rec.events {
		var l event.LogPayload
		if e.Type == event.Log && e.Decode(&l) == nil && strings.Contains(l.Message, "permission denied") {
			warned++
		}
	}
	if warned != 3 {
		t.Fatalf("%d warnings surfaced, want one per call (3)", warned)
	}
}

func TestProviderNoticesBecomeLogEvents(t *testing.T) {
	const notice = "gemini-api: rate limited (HTTP 429), retrying in 4s (retry 1/3)"
	m := &scripted{replies: []reply{{notices: []string{notice}, text: fenced("print('hello')")}}}
	x := &fakeExec{by: map[string]sandbox.Result{"print('hello')": okRun}}
	out, rec := run(t, m, x, Settings{})
	if out.Status != event.RunStatusSuccess {
		t.Fatalf("status %s: %v", out.Status, out.Err)
	}
	var logs []event.LogPayload
	for _, e := range rec.events {
		if e.Type == event.Log {
			var l event.LogPayload
			_ = e.Decode(&l)
			logs = append(logs, l)
		}
	}
	if len(logs) != 1 || logs[0].Message != notice || logs[0].Level != "warn" {
		t.Errorf("log events %+v, want the provider's notice", logs)
	}
	if k := rec.kinds(); len(k) < 2 || k[0] != event.IterationStarted || k[1] != event.Log {
		t.Errorf("kinds %v: the notice must be recorded when it arrives, before the answer", k)
	}
	if got := rec.tokens(event.PhaseGenerate); strings.Contains(got, "retrying") {
		t.Errorf("the notice leaked into the answer: %q", got)
	}
	// A retry comes as data too, for the app to word; other notices are the
	// provider's own text.
	l := noticeOf(provider.Delta{Notice: notice, Retry: &provider.RetryNotice{Provider: "gemini-api", Reason: provider.ReasonRateLimit,
		Status: 429, Wait: 4 * time.Second, N: 1, Max: 3}})
	want := map[string]string{"provider": "gemini-api", "reason": "rate_limit", "status": "429", "wait_ms": "4000", "retry": "1", "max": "3"}
	if l.Code != event.NoticeRetry || !maps.Equal(l.Params, want) || l.Message != notice {
		t.Errorf("retry notice %+v", l)
	}
	if l := noticeOf(provider.Delta{Notice: "codex: update available"}); l.Code != "" || l.Message != "codex: update available" {
		t.Errorf("a provider's own notice %+v", l)
	}
}

func TestFailedCallKeepsItsTokens(t *testing.T) {
	// Iteration 1 fails to run (generation and reflection: 10+5 each);
	// iteration 2's answer breaks off after some text, having counted
	// 10+5 too. The run's usage has all three calls.
	cut := &provider.Error{Provider: "x", Kind: provider.KindInterrupted, Err: provider.ErrStreamCut}
	m := &scripted{replies: []reply{{text: fenced("boom()")}, {text: "It raised."}, {text: "Here you go.\n```py", err: cut, cut: true}}}
	x := &fakeExec{by: map[string]sandbox.Result{"boom()": badRun}}
	out, rec := run(t, m, x, Settings{Reflect: true})
	if out.Status != event.RunStatusError || !errors.Is(out.Err, provider.ErrInterrupted) {
		t.Fatalf("%s %v", out.Status, out.Err)
	}
	if out.Usage != (provider.Usage{InputTokens: 30, OutputTokens: 15}) {
		t.Errorf("usage %+v, want the broken-off call's tokens counted too", out.Usage)
	}
	if got := rec.tokens(event.PhaseGenerate); !strings.HasSuffix(got, "Here you go.\n```py") {
		t.Errorf("the text that streamed before the break was not shown: %q", got)
	}
	// A provider error without a partial answer adds nothing.
	m = &scripted{replies: []reply{{err: &provider.Error{Provider: "x", Kind: provider.KindAuth}}}}
	if out, _ := run(t, m, &fakeExec{}, Settings{}); out.Usage != (provider.Usage{}) {
		t.Errorf("usage %+v after a refused key", out.Usage)
	}
}

func TestRefusalEndsRunAsTyped(t *testing.T) {
	// A refusal is not an answer without code: it ends the run at once,
	// typed, instead of a format error and another try.
	refused := &provider.Error{Provider: "x", Kind: provider.KindRefusal, Category: "cyber", Message: "declined"}
	m := &scripted{replies: []reply{{err: refused, cut: true}, {text: fenced("print('hello')")}}}
	out, rec := run(t, m, &fakeExec{}, Settings{MaxIterations: 3})
	if out.Status != event.RunStatusError || !errors.Is(out.Err, provider.ErrRefused) || out.Iterations != 1 {
		t.Fatalf("%s after %d iterations: %v", out.Status, out.Iterations, out.Err)
	}
	if len(m.requests) != 1 {
		t.Errorf("%d requests: a refusal must not be asked again", len(m.requests))
	}
	for _, e := range rec.events {
		if e.Type == event.Generated {
			t.Errorf("a refusal was recorded as an answer: %s", e.Payload)
		}
	}
	if out.Usage != (provider.Usage{InputTokens: 10, OutputTokens: 5}) {
		t.Errorf("usage %+v: the refusal's tokens count", out.Usage)
	}
}

func TestFallbackModelIsReported(t *testing.T) {
	m := &scripted{replies: []reply{
		{text: fenced("boom()"), model: "claude-spare-1", fallbackFrom: "claude-main-5"},
		{text: "It raised.", model: "claude-spare-1", fallbackFrom: "claude-main-5"},
		{text: fenced("print('hello')"), model: "claude-spare-1", fallbackFrom: "claude-main-5"},
	}}
	x := &fakeExec{by: map[string]sandbox.Result{"boom()": badRun, "print('hello')": okRun}}
	out, rec := run(t, m, x, Settings{Reflect: true})
	if out.Status != event.RunStatusSuccess || out.Model != "claude-spare-1" {
		t.Fatalf("%s, model %q", out.Status, out.Model)
	}
	var notices []event.LogPayload
	var models []string
	for _, e := range rec.events {
		switch e.Type {
		case event.Log:
			var l event.LogPayload
			_ = e.Decode(&l)
			notices = append(notices, l)
		case event.Generated:
			var g event.GeneratedPayload
			_ = e.Decode(&g)
			models = append(models, g.Model)
		}
	}
	want := map[string]string{"from": "claude-main-5", "to": "claude-spare-1"}
	if len(notices) != 3 || notices[0].Code != event.NoticeFallback || !maps.Equal(notices[0].Params, want) ||
		notices[0].Message != "claude-spare-1 answered instead of claude-main-5 (the provider's fallback)" {
		t.Errorf("notices %+v, want one per answer from the fallback model", notices)
	}
	if len(models) != 2 || models[0] != "claude-spare-1" || models[1] != "claude-spare-1" {
		t.Errorf("generated models %q", models)
	}
	// The model asked for answered: nothing to report.
	m = &scripted{replies: []reply{{text: fenced("print('hello')"), model: "claude-main-5"}}}
	if out, rec := run(t, m, x, Settings{}); out.Model != "" || len(rec.events) == 0 {
		t.Errorf("model %q without a fallback", out.Model)
	}
}
