package service

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/loopforge/loopforge/backend/event"
	"github.com/loopforge/loopforge/backend/provider"
)

// newCompareService has three fake providers: "fast" succeeds at once,
// "fixer" fails once then succeeds, "never" always fails.
func newCompareService(t *testing.T) *Service {
	t.Helper()
	svc := newService(t, &echoModel{answers: []string{"print(1)"}})
	models := map[string]*echoModel{
		"fast":  {answers: []string{"print('fast')"}},
		"fixer": {answers: []string{"print(1/0)", "print('fixed')\nprint('two lines')"}},
		"never": {answers: []string{"raise SystemExit(3)"}},
	}
	for name, m := range models {
		svc.conf().Profiles[name] = provider.Profile{Name: name, Kind: "fake-" + name, Model: name + "-model"}
		svc.reg["fake-"+name] = func(provider.Profile) (provider.Provider, error) { return namedModel{m}, nil }
	}
	return svc
}

func TestCompareThreeProviders(t *testing.T) {
	svc := newCompareService(t)
	ctx := context.Background()
	info, err := svc.StartCompare(ctx, CompareRequest{
		RunRequest: RunRequest{Prompt: "p", MaxIterations: 3}, Providers: []string{"fast", "fixer", "never"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(info.Runs) != 3 {
		t.Fatalf("%d runs", len(info.Runs))
	}
	for _, r := range info.Runs {
		if _, err := svc.Wait(ctx, r.RunID); err != nil {
			t.Fatal(err)
		}
	}
	rows, err := svc.Comparison(ctx, info.SessionID)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		provider   string
		status     event.RunStatus
		iterations int
		toSuccess  int // 0 = none
		exit       int
		loc        int
	}{
		{"fast", event.RunStatusSuccess, 1, 1, 0, 1},
		{"fixer", event.RunStatusSuccess, 2, 2, 0, 2},
		{"never", event.RunStatusLimitReached, 3, 0, 3, 1},
	}
	for i, w := range want {
		r := rows[i]
		if r.Provider != w.provider || r.Status != w.status || r.Iterations != w.iterations || r.LinesOfCode != w.loc {
			t.Errorf("row %d: %+v, want %+v", i, r, w)
		}
		if (w.toSuccess == 0) != (r.IterationsToSuccess == nil) || (r.IterationsToSuccess != nil && *r.IterationsToSuccess != w.toSuccess) {
			t.Errorf("row %d: iterations to success %v, want %d", i, r.IterationsToSuccess, w.toSuccess)
		}
		if r.FinalExitCode == nil || *r.FinalExitCode != w.exit {
			t.Errorf("row %d: final exit %v, want %d", i, r.FinalExitCode, w.exit)
		}
		if r.FirstTokenMS == nil || *r.FirstTokenMS < 0 || r.Model != w.provider+"-model" {
			t.Errorf("row %d: first token %v, model %q", i, r.FirstTokenMS, r.Model)
		}
	}
}

func TestCompareRefusesBeforeStartingAnything(t *testing.T) {
	svc := newCompareService(t)
	ctx := context.Background()
	for _, provs := range [][]string{{"fast"}, {"fast", "fast"}, {"fast", "skynet"}, {"fast", "openai"}} {
		_, err := svc.StartCompare(ctx, CompareRequest{RunRequest: RunRequest{Prompt: "p"}, Providers: provs})
		if err == nil {
			t.Fatalf("%v accepted", provs)
		}
	}
	if list, _ := svc.Sessions(ctx, "", 10); len(list) != 0 {
		t.Fatalf("a refused comparison left sessions: %+v", list)
	}
}

func TestCancelOneColumnLeavesOthersRunning(t *testing.T) {
	svc := newCompareService(t)
	gate := make(chan struct{})
	slow := &echoModel{answers: []string{"print('slow')"}, gate: gate}
	svc.conf().Profiles["slow"] = provider.Profile{Name: "slow", Kind: "fake-slow"}
	svc.reg["fake-slow"] = func(provider.Profile) (provider.Provider, error) { return namedModel{slow}, nil }
	ctx := context.Background()
	info, err := svc.StartCompare(ctx, CompareRequest{RunRequest: RunRequest{Prompt: "p"}, Providers: []string{"slow", "fast"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.Cancel(info.Runs[0].RunID); err != nil {
		t.Fatal(err)
	}
	wctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	r0, _ := svc.Wait(wctx, info.Runs[0].RunID)
	r1, err := svc.Wait(wctx, info.Runs[1].RunID)
	if err != nil || r0.Status != "cancelled" || r1.Status != "success" {
		t.Fatalf("cancelled column %+v; other column %+v %v", r0, r1, err)
	}
	close(gate)

	// Re-run the cancelled provider in the same session, on a fresh thread.
	again, err := svc.StartRun(ctx, RunRequest{SessionID: info.SessionID, Prompt: "p", Provider: "fast", Fresh: true})
	if err != nil {
		t.Fatal(err)
	}
	if r, err := svc.Wait(wctx, again.RunID); err != nil || r.Status != "success" {
		t.Fatalf("%+v %v", r, err)
	}
	msgs, _ := svc.store.ListMessages(ctx, again.RunID)
	if len(msgs) != 2 {
		t.Fatalf("a fresh re-run should start a new thread: %d messages", len(msgs))
	}
	if _, err := svc.Comparison(ctx, "nope"); err == nil || errors.Is(err, context.Canceled) {
		t.Fatalf("unknown session: %v", err)
	}
}
