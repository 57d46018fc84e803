package cli

import (
	"bytes"
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
