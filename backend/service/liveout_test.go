package service

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/loopforge/loopforge/backend/event"
)

// errSeen ends a Follow once the test has seen what it waited for.
var errSeen = errors.New("seen")

// TestStopKeepsPartialOutput: what the code printed reaches a subscriber
// while it runs (the program cannot end by itself: it sleeps far past the
// test, which stops the run only after seeing the line), and after Stop the
// iteration keeps it — in the stored iteration, shown and exported from
// there, and in the stored events a replay reads.
func TestStopKeepsPartialOutput(t *testing.T) {
	svc := newService(t, &echoModel{answers: []string{"import time\nprint('partial line')\ntime.sleep(3600)"}})
	ctx := context.Background()
	info, err := svc.StartRun(ctx, RunRequest{Prompt: "print then wait", Provider: "fake", TimeoutSeconds: 2 * 3600})
	if err != nil {
		t.Fatal(err)
	}
	var live strings.Builder
	fctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	err = svc.Follow(fctx, info.RunID, 0, func(e event.Event) error {
		switch e.Type {
		case event.ExecFinished, event.RunFinished:
			t.Fatalf("%s arrived before the printed line", e.Type)
		case event.ExecOutput:
			var p event.ExecOutputPayload
			if err := e.Decode(&p); err != nil {
				return err
			}
			live.WriteString(p.Text)
			if strings.Contains(live.String(), "partial line\n") {
				return errSeen
			}
		}
		return nil
	})
	if !errors.Is(err, errSeen) {
		t.Fatalf("Follow: %v (live output %q)", err, live.String())
	}
	if err := svc.Cancel(info.RunID); err != nil {
		t.Fatal(err)
	}
	run, _ := svc.Wait(ctx, info.RunID)
	if run == nil || run.Status != event.RunStatusCancelled {
		t.Fatalf("run %+v", run)
	}

	d, err := svc.Session(ctx, info.SessionID)
	if err != nil {
		t.Fatal(err)
	}
	its := d.Iterations[info.RunID]
	if len(its) != 1 || its[0].Stdout != "partial line\n" || its[0].ExecStatus != "killed" {
		t.Fatalf("stored iterations %+v; want the printed line, killed", its)
	}
	// The replay: exec_output, then exec_finished with the same text.
	var kinds []event.Kind
	var replayed string
	for _, e := range collect(t, svc, info.RunID, 0) {
		switch e.Type {
		case event.ExecOutput:
			var p event.ExecOutputPayload
			_ = e.Decode(&p)
			replayed += p.Text
			kinds = append(kinds, e.Type)
		case event.ExecFinished, event.RunFinished:
			kinds = append(kinds, e.Type)
		}
	}
	if replayed != "partial line\n" || kinds[len(kinds)-2] != event.ExecFinished || kinds[0] != event.ExecOutput {
		t.Errorf("replayed output %q, events %v", replayed, kinds)
	}
}

// TestStdinReachesTheCodeAndIsStored: the request's stdin is what input()
// reads, and the run keeps it (stored run, run_started).
func TestStdinReachesTheCodeAndIsStored(t *testing.T) {
	svc := newService(t, &echoModel{answers: []string{"name = input()\nprint('hello', name)"}})
	ctx := context.Background()
	info, err := svc.StartRun(ctx, RunRequest{Prompt: "greet", Provider: "fake", Stdin: "Ada\n"})
	if err != nil {
		t.Fatal(err)
	}
	evs := collect(t, svc, info.RunID, 0)
	var started event.RunStartedPayload
	if err := evs[0].Decode(&started); err != nil || started.Stdin != "Ada\n" {
		t.Errorf("run_started stdin %q (%v)", started.Stdin, err)
	}
	run, err := svc.Wait(ctx, info.RunID)
	if err != nil || run.Status != event.RunStatusSuccess || run.Stdin != "Ada\n" {
		t.Fatalf("run %+v %v", run, err)
	}
	d, err := svc.Session(ctx, info.SessionID)
	if err != nil {
		t.Fatal(err)
	}
	if its := d.Iterations[info.RunID]; len(its) != 1 || its[0].Stdout != "hello Ada\n" {
		t.Errorf("iterations %+v", its)
	}
	if len(d.Runs) != 1 || d.Runs[0].Stdin != "Ada\n" {
		t.Errorf("stored runs %+v", d.Runs)
	}
}

func TestStdinIsBounded(t *testing.T) {
	svc := newService(t, &echoModel{answers: []string{"print(1)"}})
	ctx := context.Background()
	for name, req := range map[string]RunRequest{
		"too long":  {Prompt: "p", Provider: "fake", Stdin: strings.Repeat("x", 64<<10+1)},
		"workspace": {Prompt: "p", Provider: "fake", Stdin: "x", Mode: event.ModeWorkspace},
	} {
		if _, err := svc.StartRun(ctx, req); !errors.Is(err, ErrInvalidRequest) {
			t.Errorf("%s: %v, want ErrInvalidRequest", name, err)
		}
	}
	if list, _ := svc.Sessions(ctx, "", 10); len(list) != 0 {
		t.Errorf("a refused request wrote a session: %+v", list)
	}
	// The most it takes.
	info, err := svc.StartRun(ctx, RunRequest{Prompt: "p", Provider: "fake", Stdin: strings.Repeat("x", 64<<10)})
	if err != nil {
		t.Fatal(err)
	}
	if run, _ := svc.Wait(ctx, info.RunID); run == nil || run.Status != event.RunStatusSuccess {
		t.Errorf("run %+v", run)
	}
}
