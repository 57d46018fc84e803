package loop

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/loopforge/loopforge/backend/event"
	"github.com/loopforge/loopforge/backend/sandbox"
)

func TestMain(m *testing.M) {
	sandbox.RunChildIfRequested() // the test binary doubles as the sandbox shim
	os.Exit(m.Run())
}

// instant answers at once with a trivial program.
func instant() *scripted {
	return &scripted{replies: []reply{{text: fenced("print(1)")}}}
}

// BenchmarkIteration measures the loop's own cost for one successful
// iteration: prompt rendering, streaming, extraction, events. No sandbox.
func BenchmarkIteration(b *testing.B) {
	emit := func(event.Event) error { return nil }
	x := &fakeExec{}
	for b.Loop() {
		out := Run(context.Background(), instant(), x, emit, Settings{MaxIterations: 1}, Input{Prompt: "p"})
		if out.Status != event.RunStatusSuccess {
			b.Fatal(out.Err)
		}
	}
}

// BenchmarkIterationSandbox is the same iteration with the real sandbox
// running the code; the difference to BenchmarkIteration is the sandbox's share.
func BenchmarkIterationSandbox(b *testing.B) {
	r, err := sandbox.NewRunner(sandbox.Options{})
	if err != nil {
		b.Skip(err)
	}
	emit := func(event.Event) error { return nil }
	for b.Loop() {
		out := Run(context.Background(), instant(), r, emit, Settings{MaxIterations: 1, Limits: sandbox.DefaultLimits()}, Input{Prompt: "p"})
		if out.Status != event.RunStatusSuccess {
			b.Fatal(out.Err)
		}
	}
}

// TestRealSandboxIteration runs one failing and one fixed program through the
// real sandbox, so the loop's use of it is covered end to end.
func TestRealSandboxIteration(t *testing.T) {
	r, err := sandbox.NewRunner(sandbox.Options{})
	if errors.Is(err, sandbox.ErrNoInterpreter) {
		t.Skipf("no sandbox here: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	m := &scripted{replies: []reply{{text: fenced("x = input()")}, {text: fenced("print('no input needed')")}}}
	rec := &recorder{}
	out := Run(context.Background(), m, r, rec.emit, Settings{MaxIterations: 3, Limits: sandbox.DefaultLimits()}, Input{Prompt: "p"})
	if out.Status != event.RunStatusSuccess || out.Iterations != 2 {
		t.Fatalf("%s after %d: %v", out.Status, out.Iterations, out.Err)
	}
	var first event.ExecPayload
	for _, e := range rec.events {
		if e.Type == event.ExecFinished {
			_ = e.Decode(&first)
			break
		}
	}
	if first.Status != "error" || first.Isolation == "" {
		t.Fatalf("input() should fail with EOFError: %+v", first)
	}
	if len(first.Protections) != len(event.Protections()) {
		t.Fatalf("the execution event should carry the five protection ticks: %+v", first.Protections)
	}
	for _, name := range event.Protections() {
		if _, ok := first.Protections[string(name)]; !ok {
			t.Errorf("no %s tick in %+v", name, first.Protections)
		}
	}
	// How it ended, as data for the UI's words, and in English for the CLI.
	if o := first.Outcome; o == nil || o.Code != string(event.OutcomeExit) || o.Params["exit"] != "1" ||
		!strings.Contains(o.Params["detail"], "EOFError") || first.Description != "exit 1: "+o.Params["detail"] {
		t.Fatalf("outcome %+v, description %q", first.Outcome, first.Description)
	}
	// Each missing protection has a note, and its English is the warning.
	if len(first.Notes) != len(first.Warnings) {
		t.Fatalf("notes %+v, warnings %q", first.Notes, first.Warnings)
	}
	for i, n := range first.Notes {
		if sandbox.English(n) != first.Warnings[i] {
			t.Errorf("note %+v: English %q, warning %q", n, sandbox.English(n), first.Warnings[i])
		}
	}
}
