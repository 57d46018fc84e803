package service

import (
	"context"
	"math"
	"testing"

	"github.com/loopforge/loopforge/backend/event"
	"github.com/loopforge/loopforge/backend/provider"
)

func TestSummarizeRepeats(t *testing.T) {
	row := func(p string, st event.RunStatus, iters int, cost float64, passed, total int) ComparisonRow {
		return ComparisonRow{Provider: p, Model: p + "-m", Status: st, Iterations: iters, WallMS: int64(1000 * iters),
			CostUSD: cost, TestsPassed: passed, TestsTotal: total}
	}
	samples := []RepeatSample{
		{row("a", event.RunStatusSuccess, 1, 0.01, 2, 2), true},
		{row("b", event.RunStatusLimitReached, 3, 0, 1, 2), true},
		{row("a", event.RunStatusSuccess, 3, 0.03, 2, 2), true},
		{row("b", event.RunStatusSuccess, 2, 0, 2, 2), true},
		{row("a", event.RunStatusSuccess, 2, 0.02, 2, 2), false},
	}
	gs := SummarizeRepeats(samples)
	if len(gs) != 3 || gs[0].Provider != "a" || !gs[0].Reflect || gs[1].Provider != "b" || gs[2].Reflect {
		t.Fatalf("groups %+v", gs)
	}
	a, b, off := gs[0], gs[1], gs[2]
	if a.Runs != 2 || !a.PassAll || a.PassAt1 != 1 || a.IterationsToGreen.Mean != 2 || a.IterationsToGreen.SD != 1 ||
		math.Abs(a.CostUSD.Mean-0.02) > 1e-12 || a.TestsPassed.Mean != 1 || a.Model != "a-m" {
		t.Errorf("a with reflection: %+v", a)
	}
	if b.Runs != 2 || b.PassAll || b.PassAt1 != 0.5 || b.IterationsToGreen.N != 1 || b.IterationsToGreen.Mean != 2 ||
		b.CostUSD.N != 0 || b.TestsPassed.Mean != 0.75 {
		t.Errorf("b: %+v", b)
	}
	if off.Runs != 1 || !off.PassAll || off.IterationsToGreen.SD != 0 {
		t.Errorf("a without reflection: %+v", off)
	}
}

// TestCloseStopsARepeat: closing the service while a repeat's round runs
// cancels that round and starts no other, and Close returns (it waits for
// the repeat as for every run).
func TestCloseStopsARepeat(t *testing.T) {
	m := &echoModel{answers: []string{"print(1)"}, gate: make(chan struct{})} // answers nothing until cancelled
	svc := unclosedService(t, m, nil)
	svc.conf().Profiles["fake2"] = provider.Profile{Name: "fake2", Kind: "fake"}
	st, err := svc.StartRepeat(context.Background(), RepeatRequest{CompareRequest: CompareRequest{
		RunRequest: RunRequest{Prompt: "p", MaxIterations: 1}, Providers: []string{"fake", "fake2"}}, Repeat: 3})
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.Close(); err != nil {
		t.Fatal(err)
	}
	end, err := svc.RepeatStatus(context.Background(), st.ID, st.Version)
	if err != nil {
		t.Fatal(err)
	}
	if end.State != RepeatCancelled || len(end.Sessions) != 1 || end.RunsDone != 2 {
		t.Errorf("after Close: %+v", end)
	}
}
