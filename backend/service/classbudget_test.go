package service

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/loopforge/loopforge/backend/access"
	"github.com/loopforge/loopforge/backend/config"
	"github.com/loopforge/loopforge/backend/event"
	"github.com/loopforge/loopforge/backend/provider"
)

// startTogether has each of ctxs start one run at the same instant (a
// barrier all goroutines wait on) and returns the runs admitted and the
// refusals.
func startTogether(t *testing.T, svc *Service, ctxs []context.Context, iterations int) (started []RunInfo, refused []error) {
	t.Helper()
	var (
		mu    sync.Mutex
		ready sync.WaitGroup
		done  sync.WaitGroup
		start = make(chan struct{})
	)
	for _, ctx := range ctxs {
		ready.Add(1)
		done.Add(1)
		go func() {
			defer done.Done()
			ready.Done()
			<-start
			info, err := svc.StartRun(ctx, RunRequest{Prompt: "p", Provider: "fake", MaxIterations: iterations})
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				refused = append(refused, err)
			} else {
				started = append(started, info)
			}
		}()
	}
	ready.Wait()
	close(start)
	done.Wait()
	return started, refused
}

// TestParallelStartsCannotPassABudget: N runs started at the same instant
// against a budget that holds fewer: only those whose hold fits start, the
// others are refused with the budget's reason, and what the class spent
// stays within the budget. Without the holds every start would see the
// budget untouched and all would run (2,500 tokens of a 1,000 budget).
func TestParallelStartsCannotPassABudget(t *testing.T) {
	for _, tc := range []struct {
		name   string
		limits ClassLimits
		limit  string
		oneCtx bool // one student starting every run, else one run per student
	}{
		{"class budget, ten students", ClassLimits{TokensForClass: 1000, TokensPerIteration: 300}, "tokens_for_class", false},
		{"student budget, ten runs of one student", ClassLimits{TokensPerStudent: 1000, TokensPerIteration: 300}, "tokens_per_student", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			gate := make(chan struct{})
			m := &echoModel{answers: []string{"print(1)"}, gate: gate, usage: provider.Usage{InputTokens: 150, OutputTokens: 100}}
			g := newGateExec()
			svc := classService(t, m, g)
			l := tc.limits
			l.MaxIterations = 1
			v := openClass(t, svc, l)
			var ctxs []context.Context
			one, _ := joinAs(t, svc, v.JoinCode, "Ana")
			for i := range 10 {
				if tc.oneCtx {
					ctxs = append(ctxs, one)
					continue
				}
				ctx, _ := joinAs(t, svc, v.JoinCode, fmt.Sprintf("Student %d", i))
				ctxs = append(ctxs, ctx)
			}
			started, refused := startTogether(t, svc, ctxs, 1)
			if len(started) != 3 || len(refused) != 7 {
				t.Fatalf("%d started, %d refused; want 3 and 7 (1,000 holds three runs of 300)", len(started), len(refused))
			}
			for _, err := range refused {
				wantQuota(t, err, tc.limit)
			}
			if u := mustView(t, svc).Usage; u.BudgetTokens+u.BudgetHeld > 1000 {
				t.Errorf("while the runs wait: %d used + %d held > 1,000", u.BudgetTokens, u.BudgetHeld)
			}
			close(gate)
			for range started {
				g.release <- struct{}{}
			}
			for _, info := range started {
				r, err := svc.Wait(context.Background(), info.RunID)
				if err != nil || r.Status != event.RunStatusSuccess {
					t.Fatalf("run %s: %v %v", info.RunID, r, err)
				}
			}
			u := mustView(t, svc).Usage
			if u.Tokens != 750 || u.BudgetTokens != 750 || u.BudgetHeld != 0 {
				t.Errorf("after the runs: %d tokens, %d counted, %d held; want 750, 750, 0", u.Tokens, u.BudgetTokens, u.BudgetHeld)
			}
		})
	}
}

func mustView(t *testing.T, svc *Service) ClassView {
	t.Helper()
	v, err := svc.ClassView(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestStreamCrossingTheBudgetStops: a student's answer streams past the
// token budget; the run stops at the piece that crossed it (no more text,
// no complete answer), with the budget as its reason to the student and
// on the wall, and the student's count ends within one piece of the
// budget. The fake OpenAI server has 500 pieces of 10 tokens to send.
func TestStreamCrossingTheBudgetStops(t *testing.T) {
	const pieces, budget = 500, 1000
	var requests atomic.Int32
	svc, _ := openAIService(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		w.Header().Set("Content-Type", "text/event-stream")
		piece, _ := json.Marshal(strings.Repeat("x", 39) + "\n") // 40 bytes: 10 tokens by the meter's measure
		for range pieces {
			if _, err := fmt.Fprintf(w, "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"content\":%s},\"finish_reason\":null}]}\n\n", piece); err != nil {
				return
			}
			w.(http.Flusher).Flush()
		}
		fmt.Fprint(w, "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}],\"usage\":{\"prompt_tokens\":200,\"completion_tokens\":5000,\"total_tokens\":5200}}\n\ndata: [DONE]\n\n")
	}))
	v := openClass(t, svc, ClassLimits{TokensPerStudent: budget, TokensPerIteration: 100})
	ana, _ := joinAs(t, svc, v.JoinCode, "Ana")
	info, err := svc.StartRun(ana, RunRequest{Prompt: "p", Provider: "openai", MaxIterations: 1})
	if err != nil {
		t.Fatal(err)
	}
	r, _ := svc.Wait(context.Background(), info.RunID)
	if r.Status != event.RunStatusError || r.ErrorCode != string(CodeQuotaTokens) {
		t.Fatalf("the run: %s %s %q", r.Status, r.ErrorCode, r.Error)
	}
	tokens := 0
	var fin event.RunFinishedPayload
	for _, e := range collect(t, svc, info.RunID, 0) {
		switch e.Type {
		case event.Token:
			tokens++
		case event.Generated:
			t.Error("the answer was completed past the budget")
		case event.RunFinished:
			_ = e.Decode(&fin)
		}
	}
	if tokens == 0 || tokens >= pieces {
		t.Errorf("%d of %d pieces reached the run; want it stopped part-way", tokens, pieces)
	}
	if fin.ErrorKind != event.ErrorQuota || fin.ErrorCode != string(CodeQuotaTokens) {
		t.Errorf("run_finished: %+v", fin)
	}
	u := mustStudentView(t, svc, ana).Usage
	if u.BudgetTokens <= budget || u.BudgetTokens > budget+10 || u.BudgetHeld != 0 {
		t.Errorf("the student's count: %d (held %d); want just past %d, by at most one piece (10)", u.BudgetTokens, u.BudgetHeld, budget)
	}
	if n := requests.Load(); n != 1 {
		t.Errorf("%d requests to the model; want 1", n)
	}
	wall, _ := svc.Wall(context.Background())
	if c := wall[0].Current; c == nil || c.ErrorCode != string(CodeQuotaTokens) || c.Status != event.RunStatusError {
		t.Errorf("the wall: %+v", c)
	}
	_, err = svc.StartRun(ana, RunRequest{Prompt: "p", Provider: "openai", MaxIterations: 1})
	wantQuota(t, err, "tokens_per_student")
}

func mustStudentView(t *testing.T, svc *Service, ctx context.Context) ClassView {
	t.Helper()
	v, err := svc.ClassView(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestBudgetHoldLowersIterations: a run whose iterations the budget left
// cannot all hold is lowered to those it can, and told so.
func TestBudgetHoldLowersIterations(t *testing.T) {
	g := newGateExec()
	svc := classService(t, &echoModel{answers: []string{"print(1)"}}, g)
	v := openClass(t, svc, ClassLimits{TokensPerStudent: 1000, TokensPerIteration: 300})
	ana, _ := joinAs(t, svc, v.JoinCode, "Ana")
	info, err := svc.StartRun(ana, RunRequest{Prompt: "p", Provider: "fake", MaxIterations: 5})
	if err != nil {
		t.Fatal(err)
	}
	if u := mustStudentView(t, svc, ana).Usage; u.BudgetHeld != 900 {
		t.Errorf("held %d; want 3 iterations of 300", u.BudgetHeld)
	}
	g.release <- struct{}{}
	r, _ := svc.Wait(context.Background(), info.RunID)
	if r.MaxIterations != 3 {
		t.Errorf("the run's iteration limit: %d; want 3", r.MaxIterations)
	}
	found := false
	for _, e := range collect(t, svc, info.RunID, 0) {
		var p event.LogPayload
		if e.Type == event.Log && e.Decode(&p) == nil && p.Code == event.NoticeBudgetIterations {
			found = p.Params["n"] == "3" && p.Params["asked"] == "5"
		}
	}
	if !found {
		t.Error("no budget_iterations notice (n 3, asked 5)")
	}
}

// budgetService is a class service with two profiles: "fake" (a priced
// model) and "local" (the budget profile), each its own model.
func budgetService(t *testing.T, priced, local *echoModel) *Service {
	t.Helper()
	home := t.TempDir()
	cfg, err := config.Load(config.Options{LookupEnv: func(k string) (string, bool) {
		if k == "LOOPFORGE_HOME" {
			return home, true
		}
		return "", false
	}})
	if err != nil {
		t.Fatal(err)
	}
	cfg.Profiles["fake"] = provider.Profile{Name: "fake", Kind: "fake"}
	cfg.Profiles["local"] = provider.Profile{Name: "local", Kind: "fake"}
	cfg.Order = append([]string{"fake", "local"}, cfg.Order...)
	reg := DefaultRegistry()
	reg["fake"] = func(p provider.Profile) (provider.Provider, error) {
		if p.Name == "local" {
			return namedModel{local}, nil
		}
		return namedModel{priced}, nil
	}
	svc, err := New(context.Background(), Options{Config: cfg, Registry: reg, Executor: &failExec{}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Close() })
	return svc
}

// TestBudgetProfileBeforeRefusing: a student whose budget has no room is
// moved to the class's budget profile instead of refused; the run and the
// wall say so, and the budget does not count its tokens. A comparison is
// refused (its providers would all become one).
func TestBudgetProfileBeforeRefusing(t *testing.T) {
	priced := &echoModel{answers: []string{"print(1)"}, usage: provider.Usage{InputTokens: 400, OutputTokens: 300}}
	local := &echoModel{answers: []string{"print(1)"}, usage: provider.Usage{InputTokens: 400, OutputTokens: 300}}
	svc := budgetService(t, priced, local)
	v := openClass(t, svc, ClassLimits{TokensPerStudent: 1000, TokensPerIteration: 500, MaxIterations: 1, BudgetProfile: "local"})
	ana, _ := joinAs(t, svc, v.JoinCode, "Ana")
	first, err := svc.StartRun(ana, RunRequest{Prompt: "p", Provider: "fake"})
	if err != nil {
		t.Fatal(err)
	}
	svc.Wait(context.Background(), first.RunID)
	// 700 spent, 300 left: no room for an iteration of 500.
	second, err := svc.StartRun(ana, RunRequest{Prompt: "p", Provider: "fake"})
	if err != nil {
		t.Fatalf("the run past the budget: %v; want it moved to the budget profile", err)
	}
	if second.Provider != "local" {
		t.Errorf("the run's provider: %s; want local", second.Provider)
	}
	r, _ := svc.Wait(context.Background(), second.RunID)
	if r.Provider != "local" || local.calls == 0 {
		t.Errorf("stored provider %s, local model called %d times", r.Provider, local.calls)
	}
	var notice *event.LogPayload
	for _, e := range collect(t, svc, second.RunID, 0) {
		var p event.LogPayload
		if e.Type == event.Log && e.Decode(&p) == nil && p.Code == event.NoticeBudgetSwitch {
			notice = &p
		}
	}
	if notice == nil || notice.Params["from"] != "fake" || notice.Params["to"] != "local" {
		t.Errorf("the switch notice: %+v", notice)
	}
	wall, _ := svc.Wall(context.Background())
	if c := wall[0].Current; c == nil || c.RunID != second.RunID || c.BudgetFrom != "fake" {
		t.Errorf("the wall: %+v", c)
	}
	u := mustStudentView(t, svc, ana).Usage
	if u.BudgetTokens != 700 || u.Tokens != 1400 {
		t.Errorf("usage: %d counted of %d; want 700 of 1,400 (the budget profile's not counted)", u.BudgetTokens, u.Tokens)
	}
	_, err = svc.StartCompare(ana, CompareRequest{RunRequest: RunRequest{Prompt: "p"}, Providers: []string{"fake", "local"}})
	wantQuota(t, err, "tokens_per_student")
	// Without a budget profile the same run is refused.
	if _, err := svc.SetClassLimits(context.Background(), ClassLimits{TokensPerStudent: 1000, TokensPerIteration: 500, MaxIterations: 1}); err != nil {
		t.Fatal(err)
	}
	_, err = svc.StartRun(ana, RunRequest{Prompt: "p", Provider: "fake"})
	wantQuota(t, err, "tokens_per_student")
	_, err = svc.SetClassLimits(context.Background(), ClassLimits{BudgetProfile: "nope"})
	wantCode(t, err, CodeUnknownProvider, map[string]string{"provider": "nope"})
}

// TestWindowStart: the budgets' windows, on a fixed clock.
func TestWindowStart(t *testing.T) {
	sp, err := time.LoadLocation("America/Sao_Paulo")
	if err != nil {
		t.Skip("no time zone data:", err)
	}
	now := time.Date(2026, 11, 27, 15, 4, 5, 0, sp) // a Friday
	opened := now.Add(-90 * time.Minute)
	for _, c := range []struct {
		window string
		want   time.Time
	}{
		{"", time.Time{}},
		{WindowClass, time.Time{}},
		{WindowSession, opened},
		{WindowDay, time.Date(2026, 11, 27, 0, 0, 0, 0, sp)},
		{WindowWeek, time.Date(2026, 11, 23, 0, 0, 0, 0, sp)}, // Monday
	} {
		if got := windowStart(c.window, now, opened); !got.Equal(c.want) {
			t.Errorf("%q: %v, want %v", c.window, got, c.want)
		}
	}
	monday := time.Date(2026, 11, 23, 0, 0, 0, 0, sp)
	if got := windowStart(WindowWeek, monday, opened); !got.Equal(monday) {
		t.Errorf("a week seen at its first instant: %v", got)
	}
	sunday := time.Date(2026, 11, 29, 23, 59, 0, 0, sp)
	if got := windowStart(WindowWeek, sunday, opened); !got.Equal(monday) {
		t.Errorf("a week seen on its Sunday: %v", got)
	}
}

// TestBudgetWindowSession: what a class spent before this session does
// not count against a budget per session; per class it does.
func TestBudgetWindowSession(t *testing.T) {
	home := t.TempDir()
	m := &echoModel{answers: []string{"print(1)"}, usage: provider.Usage{InputTokens: 600, OutputTokens: 300}}
	svc := unclosedService(t, m, &failExec{}, home)
	v := openClass(t, svc, ClassLimits{TokensPerStudent: 1000, TokensPerIteration: 500, MaxIterations: 1})
	ana, tok := joinAs(t, svc, v.JoinCode, "Ana")
	info := mustRun(t, svc, ana)
	svc.Wait(context.Background(), info.RunID)
	_, err := runTo(t, svc, ana)
	wantQuota(t, err, "tokens_per_student")
	if err := svc.EndClass(context.Background()); err != nil {
		t.Fatal(err)
	}
	svc.Close()

	again := classService(t, m, &failExec{}, home)
	if _, err := again.OpenClass(context.Background(), ClassOptions{Resume: v.ID}); err != nil {
		t.Fatal(err)
	}
	caller, err := again.Student(tok)
	if err != nil {
		t.Fatal(err)
	}
	ana = access.With(context.Background(), caller)
	_, err = runTo(t, again, ana)
	wantQuota(t, err, "tokens_per_student")
	if _, err := again.SetClassLimits(context.Background(), ClassLimits{TokensPerStudent: 1000, TokensPerIteration: 500, MaxIterations: 1, BudgetWindow: WindowSession}); err != nil {
		t.Fatal(err)
	}
	if u := mustStudentView(t, again, ana).Usage; u.BudgetTokens != 0 || u.Tokens != 900 {
		t.Errorf("this session's usage: %d counted of %d; want 0 of 900", u.BudgetTokens, u.Tokens)
	}
	if _, err := runTo(t, again, ana); err != nil {
		t.Errorf("a run in a new session: %v", err)
	}
	_, err = again.SetClassLimits(context.Background(), ClassLimits{BudgetWindow: "month"})
	wantCode(t, err, CodeBudgetWindow, map[string]string{"window": "month"})
	if !errors.Is(err, ErrInvalidRequest) {
		t.Errorf("an unknown window: %v", err)
	}
}
