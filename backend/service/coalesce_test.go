package service

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/loopforge/loopforge/backend/event"
	"github.com/loopforge/loopforge/backend/event/eventtest"
	"github.com/loopforge/loopforge/backend/testwait"
)

// waitFor polls cond until it holds; it fails the test only if that takes
// absurdly long (nothing here is timed).
func waitFor(tb testing.TB, what string, cond func() bool) {
	tb.Helper()
	testwait.Until(tb, what, 30*time.Second, cond)
}

// lastSeq is the highest seq stored for the run, 0 if none yet.
func lastSeq(tb testing.TB, s *Service, runID string) int64 {
	tb.Helper()
	evs, err := s.store.EventsAfter(context.Background(), runID, 0, 0)
	if err != nil {
		tb.Fatal(err)
	}
	if len(evs) == 0 {
		return 0
	}
	return evs[len(evs)-1].Seq
}

// Through the loop: many small deltas, followed live and replayed, render
// the same text as the model's answer.
func TestStreamedAnswerIsIdenticalLiveAndReplayed(t *testing.T) {
	var prog strings.Builder
	for i := range 300 {
		fmt.Fprintf(&prog, "x%d = %d\n", i, i)
	}
	prog.WriteString("print('ok')")
	svc := newService(t, &echoModel{answers: []string{prog.String()}})
	ctx := context.Background()
	info, err := svc.StartRun(ctx, RunRequest{Prompt: "count", Provider: "fake"})
	if err != nil {
		t.Fatal(err)
	}
	live := collect(t, svc, info.RunID, 0)
	stored, err := svc.store.EventsAfter(ctx, info.RunID, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	eventtest.SameStream(t, "stored", stored, live, info.RunID, 1)
	var gen event.GeneratedPayload
	for _, e := range live {
		if e.Type == event.Generated {
			_ = e.Decode(&gen)
		}
	}
	if got := eventtest.TokenText(t, stored)["1/generate"]; got == "" || got != gen.Content {
		t.Fatalf("tokens render %d bytes, the answer has %d", len(got), len(gen.Content))
	}
}
