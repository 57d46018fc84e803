package service

import (
	"context"
	"testing"

	"github.com/loopforge/loopforge/backend/store"
)

func TestAggregateKnownHistory(t *testing.T) {
	facts := []store.RunFact{
		{Provider: "a", Model: "m1", Status: "success", Iterations: 1, DurationMS: 100, InputTokens: 10, OutputTokens: 5, CostUSD: 0.01},
		{Provider: "a", Model: "m1", Status: "success", Iterations: 3, DurationMS: 300, InputTokens: 30, OutputTokens: 15, CostUSD: 0.03},
		{Provider: "a", Model: "m1", Status: "limit_reached", Iterations: 5, DurationMS: 1000, ExecTimeouts: 2},
		{Provider: "a", Model: "m2", Status: "cancelled", Iterations: 1, DurationMS: 50},
		{Provider: "b", Model: "x", Status: "error", Iterations: 1, DurationMS: 10},
	}
	st := aggregate(facts)
	tot := st.Total
	if tot.Runs != 5 || tot.Successes != 2 || tot.Failures != 2 || tot.Cancelled != 1 || tot.ExecTimeouts != 2 {
		t.Fatalf("total %+v", tot)
	}
	if tot.AvgMS != 292 || tot.MedianMS != 100 || tot.AvgIterationsToSuccess != 2 || tot.SuccessRate != 0.4 {
		t.Fatalf("total averages %+v", tot)
	}
	if tot.InputTokens != 40 || tot.OutputTokens != 20 || tot.CostUSD < 0.0399 || tot.CostUSD > 0.0401 {
		t.Fatalf("total usage %+v", tot)
	}
	if len(st.Groups) != 3 || st.Groups[0].Model != "m1" || st.Groups[1].Model != "m2" || st.Groups[2].Provider != "b" {
		t.Fatalf("groups %+v", st.Groups)
	}
	m1 := st.Groups[0]
	if m1.Runs != 3 || m1.MedianMS != 300 || m1.AvgMS != 466 || m1.AvgIterationsToSuccess != 2 {
		t.Fatalf("a/m1 %+v", m1)
	}
	if empty := aggregate(nil); empty.Total.Runs != 0 || len(empty.Groups) != 0 {
		t.Fatalf("empty %+v", empty)
	}
}

func TestStatsFromRealRuns(t *testing.T) {
	svc := newCompareService(t)
	ctx := context.Background()
	info, err := svc.StartCompare(ctx, CompareRequest{RunRequest: RunRequest{Prompt: "p", MaxIterations: 2}, Providers: []string{"fast", "never"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range info.Runs {
		_, _ = svc.Wait(ctx, r.RunID)
	}
	st, err := svc.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Total.Runs != 2 || st.Total.Successes != 1 || st.Total.Failures != 1 || len(st.Groups) != 2 {
		t.Fatalf("%+v", st)
	}
}
