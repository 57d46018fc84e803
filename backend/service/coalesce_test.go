package service

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/loopforge/loopforge/backend/event"
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

// sameStream fails unless got is want (type and payload, in order) numbered
// from first on, for runID.
func sameStream(t *testing.T, what string, got, want []event.Event, runID string, first int64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d events, want %d", what, len(got), len(want))
	}
	for i, e := range got {
		w := want[i]
		if e.Seq != first+int64(i) || e.RunID != runID || e.Type != w.Type || string(e.Payload) != string(w.Payload) {
			t.Fatalf("%s: event %d is #%d %s %s %s; want #%d %s %s", what, i, e.Seq, e.RunID, e.Type, e.Payload, first+int64(i), w.Type, w.Payload)
		}
	}
}

// tokenText concatenates the text of the token events, per iteration and
// phase, in order.
func tokenText(t *testing.T, evs []event.Event) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, e := range evs {
		if e.Type != event.Token {
			continue
		}
		var p event.TokenPayload
		if err := e.Decode(&p); err != nil {
			t.Fatal(err)
		}
		out[fmt.Sprintf("%d/%s", p.Iteration, p.Phase)] += p.Text
	}
	return out
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
	sameStream(t, "stored", stored, live, info.RunID, 1)
	var gen event.GeneratedPayload
	for _, e := range live {
		if e.Type == event.Generated {
			_ = e.Decode(&gen)
		}
	}
	if got := tokenText(t, stored)["1/generate"]; got == "" || got != gen.Content {
		t.Fatalf("tokens render %d bytes, the answer has %d", len(got), len(gen.Content))
	}
}
