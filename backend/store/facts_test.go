package store

import (
	"context"
	"testing"
)

func TestRunFacts(t *testing.T) {
	s := openTest(t)
	ctx := context.Background()
	sess := &Session{Prompt: "p"}
	if err := s.CreateSession(ctx, sess); err != nil {
		t.Fatal(err)
	}
	done := &Run{SessionID: sess.ID, Provider: "a", Model: "m", Status: "success", Iterations: 2, DurationMS: 900, InputTokens: 10, OutputTokens: 4, CostUSD: 0.5}
	running := &Run{SessionID: sess.ID, Provider: "b"}
	for _, r := range []*Run{done, running} {
		if err := s.CreateRun(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	for n, st := range []string{"timeout", "ok"} {
		if err := s.PutIteration(ctx, Iteration{RunID: done.ID, N: n + 1, ExecStatus: st}); err != nil {
			t.Fatal(err)
		}
	}
	facts, err := s.RunFacts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := RunFact{Provider: "a", Model: "m", Status: "success", Iterations: 2, DurationMS: 900, InputTokens: 10, OutputTokens: 4, CostUSD: 0.5, ExecTimeouts: 1}
	if len(facts) != 1 || facts[0] != want {
		t.Fatalf("%+v", facts)
	}
}
