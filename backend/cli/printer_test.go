package cli

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/loopforge/loopforge/backend/event"
	"github.com/loopforge/loopforge/backend/service"
)

func TestHumanPrinterShowsSandboxWarningsOnce(t *testing.T) {
	var out, errb bytes.Buffer
	p := newHumanPrinter(&out, &errb, service.RunInfo{})
	x := event.New(event.ExecFinished, event.ExecPayload{Iteration: 1, Status: "ok",
		Warnings: []string{"network is not isolated: install bubblewrap"}})
	for range 2 {
		if err := p.event(x); err != nil {
			t.Fatal(err)
		}
	}
	if n := strings.Count(errb.String(), "sandbox warning: network is not isolated"); n != 1 {
		t.Fatalf("warning shown %d times:\n%s", n, errb.String())
	}
	if out.Len() != 0 {
		t.Fatalf("warnings must not reach stdout (the final code): %q", out.String())
	}
}

// TestHumanPrinterShowsTheWorkingProgramsOutput: under "success" the
// terminal shows what the program printed (its last lines) and its
// pictures; stdout stays the final code alone.
func TestHumanPrinterShowsTheWorkingProgramsOutput(t *testing.T) {
	var out, errb bytes.Buffer
	p := newHumanPrinter(&out, &errb, service.RunInfo{})
	var many strings.Builder
	for i := range 20 {
		fmt.Fprintf(&many, "line %d\n", i)
	}
	for _, e := range []event.Event{
		event.New(event.RunStarted, event.RunStartedPayload{SessionID: "s1", MaxIterations: 5}),
		event.New(event.ExecFinished, event.ExecPayload{Iteration: 1, Status: "error", Stdout: "not shown\n"}),
		event.New(event.IterationDone, event.IterationDonePayload{Iteration: 1, Status: "error", Summary: "boom"}),
		event.New(event.ExecFinished, event.ExecPayload{Iteration: 2, Status: "ok", Stdout: many.String(),
			Images: []event.ImageRef{{Name: "figure-1.png"}}}),
		event.New(event.IterationDone, event.IterationDonePayload{Iteration: 2, Status: "success"}),
	} {
		if err := p.event(e); err != nil {
			t.Fatal(err)
		}
	}
	got := errb.String()
	for _, want := range []string{"iteration 2: success\n", "… 8 earlier lines (all of it: loopforge export s1 --format md)", "  │ line 8\n", "  │ line 19\n", "1 picture (in the app's History"} {
		if !strings.Contains(got, want) {
			t.Errorf("stderr lacks %q:\n%s", want, got)
		}
	}
	for _, not := range []string{"not shown", "│ line 7\n"} {
		if strings.Contains(got, not) {
			t.Errorf("stderr shows %q:\n%s", not, got)
		}
	}
	if out.Len() != 0 {
		t.Errorf("stdout: %q", out.String())
	}
}
