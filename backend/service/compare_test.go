package service

import (
	"context"
	"errors"
	"slices"
	"strings"
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

// threadOfRun is the stored thread of a run, as role: content lines.
func threadOfRun(t *testing.T, svc *Service, runID string) []string {
	t.Helper()
	msgs, err := svc.store.ListMessages(context.Background(), runID)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]string, len(msgs))
	for i, m := range msgs {
		out[i] = m.Role + ": " + m.Content
	}
	return out
}

// A follow-up on a comparison goes on with every provider asked, each in
// its own thread: its own first answer, never another provider's.
func TestCompareFollowUpContinuesEachProvidersThread(t *testing.T) {
	svc := newCompareService(t)
	ctx := context.Background()
	providers := []string{"fast", "fixer", "never"}
	first, err := svc.StartCompare(ctx, CompareRequest{RunRequest: RunRequest{Prompt: "one", MaxIterations: 1}, Providers: providers})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range first.Runs {
		if _, err := svc.Wait(ctx, r.RunID); err != nil {
			t.Fatal(err)
		}
	}
	next, err := svc.StartCompare(ctx, CompareRequest{
		RunRequest: RunRequest{Prompt: "two", MaxIterations: 1, SessionID: first.SessionID}, Providers: providers})
	if err != nil {
		t.Fatal(err)
	}
	if next.SessionID != first.SessionID || len(next.Runs) != 3 {
		t.Fatalf("follow-up: %+v, want 3 runs in session %s", next, first.SessionID)
	}
	// What each provider answered first (fixer's first answer is its failing one: one iteration).
	answered := map[string]string{"fast": "print('fast')", "fixer": "print(1/0)", "never": "raise SystemExit(3)"}
	for i, r := range next.Runs {
		if r.Provider != providers[i] {
			t.Fatalf("run %d is %s, want %s", i, r.Provider, providers[i])
		}
		if _, err := svc.Wait(ctx, r.RunID); err != nil {
			t.Fatal(err)
		}
		thread := threadOfRun(t, svc, r.RunID)
		at := slices.Index(thread, "user: two")
		if len(thread) < 4 || thread[0] != "user: one" || at < 2 {
			t.Fatalf("%s's thread: %q", r.Provider, thread)
		}
		before := strings.Join(thread[:at], "\n")
		for p, code := range answered {
			if has := strings.Contains(before, code); has != (p == r.Provider) {
				t.Errorf("%s's thread holds %s's answer: %v (%q)", r.Provider, p, has, before)
			}
		}
	}
	d, err := svc.Session(ctx, first.SessionID)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Runs) != 6 || d.Runs[3].Prompt != "two" {
		t.Fatalf("session runs: %d, want 6", len(d.Runs))
	}

	// One provider continued alone (the last run is never's): its own thread, not never's.
	one, err := svc.StartRun(ctx, RunRequest{Prompt: "three", Provider: "fast", MaxIterations: 1, SessionID: first.SessionID})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Wait(ctx, one.RunID); err != nil {
		t.Fatal(err)
	}
	thread := threadOfRun(t, svc, one.RunID)
	if !slices.Contains(thread, "user: two") || !slices.Contains(thread, "user: three") || strings.Contains(strings.Join(thread, "\n"), "SystemExit") {
		t.Fatalf("fast's thread after a follow-up of its own: %q", thread)
	}
}

func TestCompareFollowUpRefusesASingleRunSession(t *testing.T) {
	svc := newCompareService(t)
	ctx := context.Background()
	single, err := svc.StartRun(ctx, RunRequest{Prompt: "one", Provider: "fast", MaxIterations: 1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Wait(ctx, single.RunID); err != nil {
		t.Fatal(err)
	}
	_, err = svc.StartCompare(ctx, CompareRequest{
		RunRequest: RunRequest{Prompt: "two", SessionID: single.SessionID}, Providers: []string{"fast", "never"}})
	var se *Error
	if !errors.As(err, &se) || se.Code != CodeCompareSession || !errors.Is(err, ErrInvalidRequest) {
		t.Fatalf("err = %v, want %s", err, CodeCompareSession)
	}
	d, _ := svc.Session(ctx, single.SessionID)
	if len(d.Runs) != 1 {
		t.Fatalf("a refused follow-up started runs: %d", len(d.Runs))
	}
}
