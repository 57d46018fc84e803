package loop

import (
	"bytes"
	"context"
	"errors"
	"iter"
	"log/slog"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loopforge/loopforge/backend/event"
	"github.com/loopforge/loopforge/backend/provider"
	"github.com/loopforge/loopforge/backend/sandbox"
	"github.com/loopforge/loopforge/backend/testwait"
)

// preparingExec is a fakeExec that also prepares: it records what it was
// asked to prepare, what each prepared sandbox ran and whether it was
// closed unused.
type preparingExec struct {
	fakeExec
	fail     error         // Prepare's error, if any
	prepared chan struct{} // gets a value at each Prepare

	mu    sync.Mutex
	preps []*fakePrepared
}

type fakePrepared struct {
	x      *preparingExec
	req    sandbox.Request
	ran    []sandbox.Request
	closed bool
}

func newPreparingExec() *preparingExec {
	return &preparingExec{fakeExec: fakeExec{by: map[string]sandbox.Result{}}, prepared: make(chan struct{}, 16)}
}

func (x *preparingExec) Prepare(_ context.Context, req sandbox.Request) (sandbox.Prepared, error) {
	defer func() { x.prepared <- struct{}{} }()
	if x.fail != nil {
		return nil, x.fail
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	p := &fakePrepared{x: x, req: req}
	x.preps = append(x.preps, p)
	return p, nil
}

func (p *fakePrepared) Run(ctx context.Context, req sandbox.Request) (sandbox.Result, error) {
	p.x.mu.Lock()
	p.ran = append(p.ran, req)
	p.x.mu.Unlock()
	return p.x.fakeExec.Run(ctx, req)
}

func (p *fakePrepared) Close() {
	p.x.mu.Lock()
	defer p.x.mu.Unlock()
	p.closed = true
}

// waitingModel is a scripted model that does not answer until the
// executor has been asked to prepare (once per answer: no reflections):
// the preparation overlaps the generation.
type waitingModel struct {
	*scripted
	prepared <-chan struct{}
}

func (m waitingModel) Stream(ctx context.Context, req provider.Request) iter.Seq2[provider.Delta, error] {
	inner := m.scripted.Stream(ctx, req)
	return func(yield func(provider.Delta, error) bool) {
		select {
		case <-m.prepared:
		case <-time.After(time.Minute):
			yield(provider.Delta{}, errors.New("the executor was never asked to prepare while the model generated"))
			return
		}
		inner(yield)
	}
}

// TestLoopPreparesWhileGenerating: each generation starts preparing its
// execution's sandbox, and the code is handed to the prepared sandbox;
// nothing runs cold and nothing is discarded.
func TestLoopPreparesWhileGenerating(t *testing.T) {
	x := newPreparingExec()
	x.by["raise ValueError('boom')"] = badRun
	m := waitingModel{scripted: &scripted{replies: []reply{
		{text: fenced("raise ValueError('boom')")},
		{text: fenced("print('fixed')")},
	}}, prepared: x.prepared}
	set := Settings{MaxIterations: 3, Stdin: "some input", Limits: sandbox.Limits{Timeout: time.Minute}}
	out := Run(context.Background(), m, x, (&recorder{}).emit, set, Input{Prompt: "print hello"})
	if out.Status != event.RunStatusSuccess || out.Iterations != 2 {
		t.Fatalf("%s after %d iterations (%v)", out.Status, out.Iterations, out.Err)
	}
	if len(x.preps) != 2 || len(x.codes) != 2 {
		t.Fatalf("%d prepared, %d executions; want 2 and 2", len(x.preps), len(x.codes))
	}
	for i, p := range x.preps {
		if len(p.ran) != 1 || p.closed {
			t.Fatalf("prepared %d: ran %d times, closed %v", i, len(p.ran), p.closed)
		}
		got := p.ran[0]
		if p.req.Code != "" || got.Code == "" || got.Language != p.req.Language || got.Limits != p.req.Limits ||
			!bytes.Equal(got.Stdin, p.req.Stdin) || string(got.Stdin) != "some input" || got.LiveStdout == nil {
			t.Errorf("prepared %+v, ran %+v", p.req, got)
		}
	}
}

// TestLoopKeepsPreparedAcrossAnAnswerWithoutCode: an answer without code
// leaves the sandbox for the next generation; one at the limit discards
// it.
func TestLoopKeepsPreparedAcrossAnAnswerWithoutCode(t *testing.T) {
	x := newPreparingExec()
	m := &scripted{replies: []reply{{text: "no code here"}, {text: fenced("print('hello')")}}}
	out, _ := runWith(t, m, x, Settings{MaxIterations: 2})
	if out.Status != event.RunStatusSuccess || len(x.preps) != 1 || len(x.preps[0].ran) != 1 {
		t.Fatalf("%s; %d prepared", out.Status, len(x.preps))
	}

	x = newPreparingExec()
	m = &scripted{replies: []reply{{text: "no code here"}}}
	out, _ = runWith(t, m, x, Settings{MaxIterations: 1})
	if out.Status != event.RunStatusLimitReached || len(x.preps) != 1 || !x.preps[0].closed || len(x.preps[0].ran) != 0 {
		t.Fatalf("%s; prepared %+v", out.Status, x.preps)
	}
}

// TestLoopDiscardsPreparedOnError: a model error ends the run; the sandbox
// prepared for its code is closed.
func TestLoopDiscardsPreparedOnError(t *testing.T) {
	x := newPreparingExec()
	m := &scripted{replies: []reply{{err: &provider.Error{Kind: provider.KindAuth, Message: "bad key"}}}}
	out, _ := runWith(t, m, x, Settings{MaxIterations: 2})
	if out.Status != event.RunStatusError || len(x.preps) != 1 || !x.preps[0].closed {
		t.Fatalf("%s; prepared %+v", out.Status, x.preps)
	}
}

// TestLoopPrepareFailureRunsCold: when preparing fails, the code runs cold
// and the reason is logged.
func TestLoopPrepareFailureRunsCold(t *testing.T) {
	x := newPreparingExec()
	x.fail = errors.New("no room for a sandbox")
	var log bytes.Buffer
	m := &scripted{replies: []reply{{text: fenced("print('hello')")}}}
	out, _ := runWith(t, m, x, Settings{MaxIterations: 1, Log: slog.New(slog.NewTextHandler(&log, nil))})
	if out.Status != event.RunStatusSuccess || len(x.codes) != 1 {
		t.Fatalf("%s; %d executions", out.Status, len(x.codes))
	}
	if !strings.Contains(log.String(), "running cold") || !strings.Contains(log.String(), "no room for a sandbox") {
		t.Errorf("log: %s", log.String())
	}
}

// TestLoopNoWarmStartIsQuiet: where the sandbox has no warm start
// (Windows, macOS), every execution runs cold without a word in the log.
func TestLoopNoWarmStartIsQuiet(t *testing.T) {
	x := newPreparingExec()
	x.fail = sandbox.ErrNoWarmStart
	var log bytes.Buffer
	m := &scripted{replies: []reply{{text: fenced("print('hello')")}}}
	out, _ := runWith(t, m, x, Settings{MaxIterations: 1, Log: slog.New(slog.NewTextHandler(&log, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	if out.Status != event.RunStatusSuccess || len(x.codes) != 1 {
		t.Fatalf("%s; %d executions", out.Status, len(x.codes))
	}
	if log.Len() != 0 {
		t.Errorf("log: %s", log.String())
	}
}

func runWith(t *testing.T, m Model, x Executor, s Settings) (Outcome, *recorder) {
	t.Helper()
	rec := &recorder{}
	return Run(context.Background(), m, x, rec.emit, s, Input{Prompt: "print hello"}), rec
}

// TestLoopWarmSandbox: with the real sandbox, every execution of a run is
// warm, its output is streamed live, and a run stopped while the model
// writes leaves no prepared sandbox behind.
func TestLoopWarmSandbox(t *testing.T) {
	root := t.TempDir()
	if runtime.GOOS != "linux" {
		t.Skip("the warm start is Linux's (sandbox.ErrNoWarmStart elsewhere)")
	}
	r, err := sandbox.NewRunner(sandbox.Options{TempRoot: root})
	if err != nil {
		t.Skipf("no sandbox here: %v", err)
	}
	m := &scripted{replies: []reply{
		{text: fenced("print('first')\nraise ValueError('boom')")},
		{text: fenced("print('second')")},
	}}
	rec := newLiveRecorder("")
	out := Run(context.Background(), m, r, rec.emit, Settings{MaxIterations: 3}, Input{Prompt: "p"})
	if out.Status != event.RunStatusSuccess || out.Iterations != 2 {
		t.Fatalf("%s after %d (%v)", out.Status, out.Iterations, out.Err)
	}
	if s := r.WarmStats(); s != (sandbox.WarmStats{Prepared: 2, Used: 2}) {
		t.Errorf("warm stats %+v", s)
	}
	var live []string
	for _, e := range rec.snapshot() {
		if e.Type == event.ExecOutput {
			var p event.ExecOutputPayload
			_ = e.Decode(&p)
			live = append(live, p.Text)
		}
	}
	if got := strings.Join(live, ""); !strings.Contains(got, "first\n") || !strings.Contains(got, "second\n") {
		t.Errorf("live output %q", got)
	}

	// Stopped while the model writes: the prepared sandbox goes too.
	ctx, cancel := context.WithCancel(context.Background())
	blocked := &blockingModel{started: make(chan struct{})}
	done := make(chan Outcome, 1)
	go func() { done <- Run(ctx, blocked, r, rec.emit, Settings{MaxIterations: 3}, Input{Prompt: "p"}) }()
	<-blocked.started
	testwait.Until(t, "the sandbox of the blocked generation to be prepared", time.Minute, func() bool { return r.WarmStats().Prepared == 3 })
	cancel()
	if out := <-done; out.Status != event.RunStatusCancelled {
		t.Fatalf("%s (%v)", out.Status, out.Err)
	}
	if s := r.WarmStats(); s.Prepared != 3 || s.Discarded != 1 {
		t.Errorf("warm stats %+v", s)
	}
	r.Wait() // the removals go on after a run's end
	if entries, _ := os.ReadDir(root); len(entries) != 0 {
		t.Errorf("left in the temp root: %v", entries)
	}
}

// blockingModel answers nothing until its context ends.
type blockingModel struct{ started chan struct{} }

func (blockingModel) Capabilities() provider.Capabilities { return provider.Capabilities{} }

func (m *blockingModel) Stream(ctx context.Context, _ provider.Request) iter.Seq2[provider.Delta, error] {
	return func(yield func(provider.Delta, error) bool) {
		close(m.started)
		<-ctx.Done()
		yield(provider.Delta{}, ctx.Err())
	}
}
