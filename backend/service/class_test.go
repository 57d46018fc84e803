package service

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"io"
	"maps"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loopforge/loopforge/backend/access"
	"github.com/loopforge/loopforge/backend/config"
	"github.com/loopforge/loopforge/backend/event"
	"github.com/loopforge/loopforge/backend/loop"
	"github.com/loopforge/loopforge/backend/provider"
	"github.com/loopforge/loopforge/backend/sandbox"
)

// gateExec stands in for the sandbox where a test must hold an execution:
// each Run says it started, then waits for release (or its ctx).
type gateExec struct {
	started chan struct{}
	release chan struct{}
}

func newGateExec() *gateExec {
	return &gateExec{started: make(chan struct{}, 64), release: make(chan struct{}, 64)}
}

func (g *gateExec) Run(ctx context.Context, _ sandbox.Request) (sandbox.Result, error) {
	g.started <- struct{}{}
	select {
	case <-g.release:
		return sandbox.Result{Status: sandbox.StatusOK}, nil
	case <-ctx.Done():
		return sandbox.Result{Status: sandbox.StatusKilled, ExitCode: -1}, nil
	}
}

// classService is a service (not yet in class mode) whose profile "fake"
// is m; exec nil = the real sandbox.
func classService(t *testing.T, m *echoModel, exec loop.Executor, cfgDir ...string) *Service {
	t.Helper()
	svc := unclosedService(t, m, exec, cfgDir...)
	t.Cleanup(func() { svc.Close() })
	return svc
}

// unclosedService is classService for a test that closes it itself.
func unclosedService(t *testing.T, m *echoModel, exec loop.Executor, cfgDir ...string) *Service {
	t.Helper()
	home := t.TempDir()
	if len(cfgDir) > 0 {
		home = cfgDir[0]
	}
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
	cfg.Order = append([]string{"fake"}, cfg.Order...)
	reg := DefaultRegistry()
	reg["fake"] = func(provider.Profile) (provider.Provider, error) { return namedModel{m}, nil }
	o := Options{Config: cfg, Registry: reg}
	if exec != nil {
		o.Executor = exec
	}
	svc, err := New(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	return svc
}

func openClass(t *testing.T, svc *Service, l ClassLimits) ClassView {
	t.Helper()
	v, err := svc.OpenClass(context.Background(), ClassOptions{Name: "Turma A"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.SetClassLimits(context.Background(), l); err != nil {
		t.Fatal(err)
	}
	return v
}

// joinAs joins a student and returns a context speaking as it.
func joinAs(t *testing.T, svc *Service, code, name string) (context.Context, string) {
	t.Helper()
	me, tok, err := svc.Join(context.Background(), code, name)
	if err != nil {
		t.Fatal(err)
	}
	caller, err := svc.Student(tok)
	if err != nil || caller.StudentID != me.StudentID {
		t.Fatalf("the student's token: %+v, %v", caller, err)
	}
	return access.With(context.Background(), caller), tok
}

func runTo(t *testing.T, svc *Service, ctx context.Context) (RunInfo, error) {
	t.Helper()
	return svc.StartRun(ctx, RunRequest{Prompt: "p", Provider: "fake", MaxIterations: 1})
}

func mustRun(t *testing.T, svc *Service, ctx context.Context) RunInfo {
	t.Helper()
	info, err := runTo(t, svc, ctx)
	if err != nil {
		t.Fatal(err)
	}
	return info
}

func quotaOf(t *testing.T, err error, limit string) *QuotaError {
	t.Helper()
	q, ok := errors.AsType[*QuotaError](err)
	if !ok || q.Limit != limit || Classify(err) != ClassQuota {
		t.Fatalf("want a %s quota error, got %v", limit, err)
	}
	return q
}

// wantQuota: err is a quota error for limit.
func wantQuota(t *testing.T, err error, limit string) {
	t.Helper()
	_ = quotaOf(t, err, limit)
}

// wantCode: err names code and params for the faces to word (and its
// English stays whole).
func wantCode(t *testing.T, err error, code Code, params map[string]string) {
	t.Helper()
	p := Explain(err)
	if p.Code != code || !maps.Equal(p.Params, params) || err == nil || p.Message != firstLine(err) {
		t.Errorf("%v: code %s %v, want %s %v", err, p.Code, p.Params, code, params)
	}
}

func TestQuotaConcurrentRuns(t *testing.T) {
	m := &echoModel{answers: []string{"print(1)"}, gate: make(chan struct{})}
	svc := classService(t, m, newGateExec())
	v := openClass(t, svc, ClassLimits{ConcurrentRuns: 1})
	ana, _ := joinAs(t, svc, v.JoinCode, "Ana")
	first := mustRun(t, svc, ana)
	_, err := runTo(t, svc, ana)
	if q := quotaOf(t, err, "concurrent_runs"); q.Msg != "You already have 1 run going (the limit is 1)" {
		t.Errorf("message %q", q.Msg)
	}
	wantCode(t, err, CodeQuotaConcurrent, map[string]string{"going": "1", "limit": "1"})
	// A comparison counts each of its runs.
	if _, err := svc.StartCompare(ana, CompareRequest{RunRequest: RunRequest{Prompt: "p"}, Providers: []string{"fake", "gemini-api"}}); err == nil {
		t.Error("a comparison passed the limit")
	}
	// The instructor is not limited.
	if _, err := runTo(t, svc, context.Background()); err != nil {
		t.Errorf("the instructor's run: %v", err)
	}
	svc.Cancel(first.RunID)
	svc.Wait(context.Background(), first.RunID)
	if _, err := runTo(t, svc, ana); err != nil {
		t.Errorf("after the first ended: %v", err)
	}
}

func TestQuotaRunsPerHour(t *testing.T) {
	g := newGateExec()
	svc := classService(t, &echoModel{answers: []string{"print(1)"}}, g)
	v := openClass(t, svc, ClassLimits{RunsPerHour: 2})
	ana, _ := joinAs(t, svc, v.JoinCode, "Ana")
	var firstStart time.Time
	for i := range 2 {
		info := mustRun(t, svc, ana)
		g.release <- struct{}{}
		r, err := svc.Wait(context.Background(), info.RunID)
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			firstStart = r.StartedAt
		}
	}
	_, err := runTo(t, svc, ana)
	q := quotaOf(t, err, "runs_per_hour")
	if !q.RetryAt.Equal(firstStart.Add(time.Hour)) {
		t.Errorf("retry at %v, want %v", q.RetryAt, firstStart.Add(time.Hour))
	}
	want := "2 runs in the last hour is the limit; the next one is possible at " + firstStart.Add(time.Hour).Local().Format("15:04")
	if q.Msg != want {
		t.Errorf("message %q, want %q", q.Msg, want)
	}
	wantCode(t, err, CodeQuotaHourly, map[string]string{"limit": "2", "retry_at": firstStart.Add(time.Hour).UTC().Format(time.RFC3339)})
}

// TestQuotaTokensPerStudent: a run that uses up the budget mid-way is
// stopped (error, kind quota); the next is refused at the start.
func TestQuotaTokensPerStudent(t *testing.T) {
	g := newGateExec()
	m := &echoModel{answers: []string{"print(1)"}, usage: provider.Usage{InputTokens: 400, OutputTokens: 200}}
	svc := classService(t, m, g)
	v := openClass(t, svc, ClassLimits{TokensPerStudent: 1000, TokensPerIteration: 100})
	ana, _ := joinAs(t, svc, v.JoinCode, "Ana")
	first := mustRun(t, svc, ana)
	g.release <- struct{}{}
	if r, _ := svc.Wait(context.Background(), first.RunID); r.Status != event.RunStatusSuccess {
		t.Fatalf("first run: %s %s", r.Status, r.Error)
	}
	second := mustRun(t, svc, ana) // 600 + its hold of 100 < 1000: allowed; its answer brings 1200
	r, _ := svc.Wait(context.Background(), second.RunID)
	if r.Status != event.RunStatusError || r.Error != "Your token budget (1,000) is used up" {
		t.Fatalf("second run: %s %q", r.Status, r.Error)
	}
	evs := collect(t, svc, second.RunID, 0)
	var fin event.RunFinishedPayload
	_ = evs[len(evs)-1].Decode(&fin)
	if fin.Status != event.RunStatusError || fin.ErrorKind != event.ErrorQuota ||
		fin.ErrorCode != string(CodeQuotaTokens) || !maps.Equal(fin.ErrorParams, map[string]string{"limit": "1000"}) {
		t.Errorf("run_finished: %+v", fin)
	}
	_, err := runTo(t, svc, ana)
	if q := quotaOf(t, err, "tokens_per_student"); q.Msg != "Your token budget (1,000) is used up" {
		t.Errorf("message %q", q.Msg)
	}
	wantCode(t, err, CodeQuotaTokens, map[string]string{"limit": "1000"})
}

func TestQuotaClassTokensAndCost(t *testing.T) {
	g := newGateExec()
	m := &echoModel{answers: []string{"print(1)"}, usage: provider.Usage{InputTokens: 300, OutputTokens: 300, CostUSD: 0.3}}
	svc := classService(t, m, g)
	v := openClass(t, svc, ClassLimits{TokensForClass: 1000, CostPerStudentUSD: 0.5, TokensPerIteration: 100})
	ana, _ := joinAs(t, svc, v.JoinCode, "Ana")
	bo, _ := joinAs(t, svc, v.JoinCode, "Bo")
	for _, ctx := range []context.Context{ana, bo} {
		info := mustRun(t, svc, ctx)
		g.release <- struct{}{}
		svc.Wait(context.Background(), info.RunID)
	}
	_, err := runTo(t, svc, bo)
	if q := quotaOf(t, err, "tokens_for_class"); q.Msg != "The class token budget is used up" {
		t.Errorf("message %q", q.Msg)
	}
	wantCode(t, err, CodeQuotaClassTokens, map[string]string{"limit": "1000"})
	if _, err := svc.SetClassLimits(context.Background(), ClassLimits{CostPerStudentUSD: 0.5}); err != nil {
		t.Fatal(err)
	}
	info := mustRun(t, svc, ana) // 0.3 < 0.5
	g.release <- struct{}{}
	svc.Wait(context.Background(), info.RunID)
	_, err = runTo(t, svc, ana)
	if q := quotaOf(t, err, "cost_per_student_usd"); q.Msg != "Your cost budget ($0.50) is used up" {
		t.Errorf("message %q", q.Msg)
	}
	wantCode(t, err, CodeQuotaCost, map[string]string{"limit": "0.50"})
}

func TestPausedClass(t *testing.T) {
	g := newGateExec()
	svc := classService(t, &echoModel{answers: []string{"print(1)"}}, g)
	v := openClass(t, svc, ClassLimits{})
	ana, _ := joinAs(t, svc, v.JoinCode, "Ana")
	if _, err := svc.PauseClass(ana, true); !errors.Is(err, ErrForbidden) {
		t.Errorf("a student pausing the class: %v", err)
	} else {
		wantCode(t, err, CodeStudentOnly, map[string]string{"operation": ""})
	}
	if _, err := svc.PauseClass(context.Background(), true); err != nil {
		t.Fatal(err)
	}
	_, err := runTo(t, svc, ana)
	if !errors.Is(err, ErrClassPaused) || Classify(err) != ClassUnavailable || err.Error() != "The class is paused by the instructor" {
		t.Errorf("a run in a paused class: %v", err)
	}
	wantCode(t, err, CodeClassPaused, map[string]string{})
	info, err := runTo(t, svc, context.Background())
	if err != nil {
		t.Errorf("the instructor's run in a paused class: %v", err)
	} else {
		g.release <- struct{}{}
		svc.Wait(context.Background(), info.RunID)
	}
	if _, err := svc.PauseClass(context.Background(), false); err != nil {
		t.Fatal(err)
	}
	if _, err := runTo(t, svc, ana); err != nil {
		t.Errorf("after resuming: %v", err)
	}
}

// TestRunsQueueForTheSandbox: with one execution slot, a second run's
// execution waits: it says so (queued, ahead 1), the wall shows it, and it
// runs (ahead 0) once the first is done. A run cancelled while queued
// frees its place.
// TestClassRefusalsCarryCodes: every refusal a student or the instructor
// meets names its code and parameters (the app words them in its language).
func TestClassRefusalsCarryCodes(t *testing.T) {
	svc := classService(t, &echoModel{answers: []string{"print(1)"}}, newGateExec())
	_, _, err := svc.Join(context.Background(), "AAAAAA", "Ana")
	wantCode(t, err, CodeNoClass, map[string]string{})
	v := openClass(t, svc, ClassLimits{Providers: []string{"fake"}})
	_, err = svc.OpenClass(context.Background(), ClassOptions{Name: "again"})
	wantCode(t, err, CodeClassOpen, map[string]string{})
	_, _, err = svc.Join(context.Background(), "ZZZZZZ", "Ana")
	wantCode(t, err, CodeWrongCode, map[string]string{})
	_, _, err = svc.Join(context.Background(), v.JoinCode, strings.Repeat("a", 41))
	wantCode(t, err, CodeStudentName, map[string]string{"max": "40"})
	ana, _ := joinAs(t, svc, v.JoinCode, "Ana")
	for _, tc := range []struct {
		req    RunRequest
		code   Code
		params map[string]string
	}{
		{RunRequest{Model: "big"}, CodeStudentModel, map[string]string{}},
		{RunRequest{AllowNetwork: true}, CodeStudentNetwork, map[string]string{}},
		{RunRequest{Mode: event.ModeWorkspace}, CodeStudentWorkspace, map[string]string{}},
		{RunRequest{Validate: []string{"true"}}, CodeStudentTask, map[string]string{}},
		{RunRequest{Provider: "gemini-api"}, CodeStudentProvider, map[string]string{"provider": "gemini-api"}},
	} {
		tc.req.Prompt = "p"
		if tc.req.Provider == "" {
			tc.req.Provider = "fake"
		}
		_, err := svc.StartRun(ana, tc.req)
		wantCode(t, err, tc.code, tc.params)
	}
	_, err = svc.Classes(ana)
	wantCode(t, err, CodeStudentOnly, map[string]string{"operation": "Classes"})
	_, err = svc.SetClassLimits(context.Background(), ClassLimits{RunsPerHour: -1})
	wantCode(t, err, CodeLimitNegative, map[string]string{})
	_, err = svc.SetClassLimits(context.Background(), ClassLimits{Presets: []string{"nope"}})
	wantCode(t, err, CodeUnknownPreset, map[string]string{"preset": "nope"})
	_, err = svc.SetClassLimits(context.Background(), ClassLimits{Providers: []string{"skynet"}})
	wantCode(t, err, CodeUnknownProvider, map[string]string{"provider": "skynet"})
}

func TestRunsQueueForTheSandbox(t *testing.T) {
	g := newGateExec()
	svc := classService(t, &echoModel{answers: []string{"print(1)"}}, g)
	v := openClass(t, svc, ClassLimits{ConcurrentExecutions: 1})
	ana, _ := joinAs(t, svc, v.JoinCode, "Ana")
	bo, _ := joinAs(t, svc, v.JoinCode, "Bo")
	cy, _ := joinAs(t, svc, v.JoinCode, "Cy")
	first := mustRun(t, svc, ana)
	<-g.started
	second := mustRun(t, svc, bo)
	waitUntil(t, "Bo's run to queue", func() bool { _, w := svc.classOf().queue.stats(); return w == 1 })
	third := mustRun(t, svc, cy)
	waitUntil(t, "the wall to show Bo 1st and Cy 2nd in line", func() bool {
		w, _ := svc.Wall(context.Background())
		return w[1].Current.QueuePosition == 1 && w[2].Current.QueuePosition == 2
	})

	svc.Cancel(second.RunID) // leaves the line: Cy moves up
	if r, _ := svc.Wait(context.Background(), second.RunID); r.Status != event.RunStatusCancelled {
		t.Errorf("the run cancelled in the queue: %s", r.Status)
	}
	waitUntil(t, "Cy to move up", func() bool {
		w, _ := svc.Wall(context.Background())
		return w[2].Current.QueuePosition == 1
	})
	g.release <- struct{}{}
	<-g.started // Cy's turn
	g.release <- struct{}{}
	for _, id := range []string{first.RunID, third.RunID} {
		if r, _ := svc.Wait(context.Background(), id); r.Status != event.RunStatusSuccess {
			t.Errorf("run %s: %s", id, r.Status)
		}
	}
	var places []int
	for _, e := range collect(t, svc, third.RunID, 0) {
		if e.Type == event.Queued {
			var p event.QueuedPayload
			_ = e.Decode(&p)
			if p.Iteration != 1 {
				t.Errorf("queued for iteration %d", p.Iteration)
			}
			places = append(places, p.Ahead)
		}
	}
	if len(places) != 3 || places[0] != 2 || places[1] != 1 || places[2] != 0 {
		t.Errorf("Cy's queued events: %v, want [2 1 0]", places)
	}
	for _, e := range collect(t, svc, first.RunID, 0) {
		if e.Type == event.Queued {
			t.Error("a run served at once reported a queue place")
		}
	}
	if busy, waiting := svc.classOf().queue.stats(); busy != 0 || waiting != 0 {
		t.Errorf("queue at the end: %d busy, %d waiting", busy, waiting)
	}
}

// TestClassHistoryAndResume: an ended class is listed with its counts and
// reads back as it was; resumed in a new process, its students' tokens
// still work and the code is new.
func TestClassHistoryAndResume(t *testing.T) {
	home := t.TempDir()
	svc := unclosedService(t, &echoModel{answers: []string{"print('hi')"}}, nil, home)
	v := openClass(t, svc, ClassLimits{MaxIterations: 3})
	ana, tok := joinAs(t, svc, v.JoinCode, "Ana")
	info := mustRun(t, svc, ana)
	if r, _ := svc.Wait(context.Background(), info.RunID); r.Status != event.RunStatusSuccess {
		t.Fatalf("run: %s %s", r.Status, r.Error)
	}
	if err := svc.EndClass(context.Background()); err != nil {
		t.Fatal(err)
	}
	svc.Close()

	again := classService(t, &echoModel{answers: []string{"print('hi')"}}, nil, home)
	list, err := again.Classes(context.Background())
	if err != nil || len(list) != 1 || list[0].Students != 1 || list[0].Runs != 1 || list[0].EndedAt == nil {
		t.Fatalf("classes: %+v, %v", list, err)
	}
	d, err := again.ClassDetail(context.Background(), v.ID)
	if err != nil || d.Class.Limits.MaxIterations != 3 || d.Class.JoinCode != "" || len(d.Students) != 1 ||
		d.Students[0].Current == nil || d.Students[0].Current.RunID != info.RunID || d.Students[0].Usage.Runs != 1 ||
		len(d.Sessions) != 1 || d.Sessions[0].StudentName != "Ana" {
		t.Fatalf("class detail: %+v, %v", d, err)
	}
	if _, err := again.Student(tok); !errors.Is(err, ErrNotAStudent) {
		t.Errorf("a token before the class is resumed: %v", err)
	}
	v2, err := again.OpenClass(context.Background(), ClassOptions{Resume: v.ID})
	if err != nil || v2.ID != v.ID || v2.JoinCode == v.JoinCode || v2.Limits.MaxIterations != 3 || v2.Usage.Runs != 1 {
		t.Fatalf("resumed: %+v, %v", v2, err)
	}
	if c, err := again.Student(tok); err != nil || c.ClassID != v.ID {
		t.Errorf("Ana's token in the resumed class: %+v, %v", c, err)
	}
	if _, err := again.ClassDetail(access.With(context.Background(), access.Caller{Role: access.Student}), v.ID); !errors.Is(err, ErrForbidden) {
		t.Errorf("a student reading the class history: %v", err)
	}
}

func TestClassExport(t *testing.T) {
	svc := classService(t, &echoModel{answers: []string{"print('hi')"}}, nil)
	v := openClass(t, svc, ClassLimits{})
	ana, _ := joinAs(t, svc, v.JoinCode, "Ana Lima")
	joinAs(t, svc, v.JoinCode, "Bo")
	info := mustRun(t, svc, ana)
	svc.Wait(context.Background(), info.RunID)

	name, data, err := svc.ExportClass(context.Background(), "", "zip", "", "UTC")
	if err != nil || !strings.HasSuffix(name, ".zip") {
		t.Fatalf("zip: %s, %v", name, err)
	}
	z, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{}
	for _, f := range z.File {
		rc, _ := f.Open()
		b, _ := io.ReadAll(rc)
		rc.Close()
		files[f.Name] = string(b)
	}
	if strings.TrimSpace(files["ana-lima/01-p.py"]) != "print('hi')" {
		t.Errorf("zip files: %v", files)
	}
	wantCSV := "student,runs,successes,last status,iterations,provider,tokens,cost (USD)\n" +
		"Ana Lima,1,1,success,1,fake,0,0.0000\nBo,0,0,,0,,0,0.0000\n"
	if files["summary.csv"] != wantCSV {
		t.Errorf("summary.csv:\n%s\nwant:\n%s", files["summary.csv"], wantCSV)
	}
	if !strings.Contains(files["summary.md"], "| Ana Lima | 1 | 1 | success | 1 | fake | 0 | 0.0000 |") {
		t.Errorf("summary.md:\n%s", files["summary.md"])
	}
	if _, csv, err := svc.ExportClass(context.Background(), v.ID, "csv", "", ""); err != nil || string(csv) != wantCSV {
		t.Errorf("csv: %s %v", csv, err)
	}
	if _, _, err := svc.ExportClass(ana, "", "csv", "", ""); !errors.Is(err, ErrForbidden) {
		t.Errorf("a student's export of the class: %v", err)
	}
	if _, _, err := svc.ExportClass(context.Background(), "", "pdf", "", ""); Classify(err) != ClassInvalid {
		t.Errorf("an unknown format: %v", err)
	}
	// In Portuguese: the headings and statuses, and the cost with a decimal comma in the Markdown table.
	_, md, err := svc.ExportClass(context.Background(), "", "md", "pt-BR", "America/Sao_Paulo")
	if err != nil || !strings.Contains(string(md), "| aluno | execuções | sucessos | última situação |") ||
		!strings.Contains(string(md), "| Ana Lima | 1 | 1 | sucesso | 1 | fake | 0 | 0,0000 |") ||
		!strings.Contains(string(md), "2 alunos") || !strings.Contains(string(md), "UTC-03") {
		t.Errorf("the Portuguese summary (%v):\n%s", err, md)
	}
	if _, _, err := svc.ExportClass(context.Background(), "", "md", "fr", ""); Explain(err).Code != CodeExportLang {
		t.Errorf("an unknown language: %v", err)
	}
}

// The class export names its files as the single-session export does:
// accented letters are kept ("exercício-de-ana", not "exerc-cio-de-ana").
func TestClassExportKeepsAccentedNames(t *testing.T) {
	svc := classService(t, &echoModel{answers: []string{"print('olá')"}}, nil)
	if _, err := svc.OpenClass(context.Background(), ClassOptions{Name: "Turma Ação"}); err != nil {
		t.Fatal(err)
	}
	v, err := svc.SetClassLimits(context.Background(), ClassLimits{})
	if err != nil {
		t.Fatal(err)
	}
	joao, _ := joinAs(t, svc, v.JoinCode, "João Araújo")
	info, err := svc.StartRun(joao, RunRequest{Prompt: "Exercício de Ana", Provider: "fake", MaxIterations: 1})
	if err != nil {
		t.Fatal(err)
	}
	svc.Wait(context.Background(), info.RunID)

	name, data, err := svc.ExportClass(context.Background(), "", "zip", "", "UTC")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(name, "class-turma-ação-") {
		t.Errorf("the zip's name: %q", name)
	}
	z, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range z.File {
		names = append(names, f.Name)
	}
	if !slices.Contains(names, "joão-araújo/01-exercício-de-ana.py") {
		t.Errorf("the zip's files: %q", names)
	}
}

// Removing a student gives the class a new join code: the removed student
// knows the old one. Those still in the class keep their places.
func TestRemoveStudentRotatesTheCode(t *testing.T) {
	svc := classService(t, &echoModel{answers: []string{"print(1)"}}, newGateExec())
	v := openClass(t, svc, ClassLimits{})
	_, anaTok := joinAs(t, svc, v.JoinCode, "Ana")
	bo, _ := joinAs(t, svc, v.JoinCode, "Bo")
	if err := svc.RemoveStudent(context.Background(), access.From(bo).StudentID); err != nil {
		t.Fatal(err)
	}
	if _, _, err := svc.Join(context.Background(), v.JoinCode, "Bo again"); !errors.Is(err, ErrWrongCode) {
		t.Fatalf("joining with the old code after a removal: %v", err)
	}
	now, err := svc.ClassView(context.Background())
	if err != nil || now.JoinCode == v.JoinCode || now.JoinCode == "" {
		t.Fatalf("the code after a removal: %q (was %q), %v", now.JoinCode, v.JoinCode, err)
	}
	joinAs(t, svc, now.JoinCode, "Cy")
	if _, err := svc.Student(anaTok); err != nil {
		t.Errorf("Ana, still in the class: %v", err)
	}
}

// TestRotateJoinCode: the old code stops working, students already in keep
// their places, and a student cannot rotate it.
func TestRotateJoinCode(t *testing.T) {
	svc := classService(t, &echoModel{answers: []string{"print(1)"}}, newGateExec())
	v := openClass(t, svc, ClassLimits{})
	ana, anaTok := joinAs(t, svc, v.JoinCode, "Ana")
	if _, err := svc.RotateJoinCode(ana); !errors.Is(err, ErrForbidden) {
		t.Errorf("a student rotating the code: %v", err)
	}
	now, err := svc.RotateJoinCode(context.Background())
	if err != nil || now.JoinCode == v.JoinCode || now.JoinCode == "" {
		t.Fatalf("rotated: %q (was %q), %v", now.JoinCode, v.JoinCode, err)
	}
	if _, _, err := svc.Join(context.Background(), v.JoinCode, "Eve"); !errors.Is(err, ErrWrongCode) {
		t.Errorf("the old code: %v", err)
	}
	joinAs(t, svc, now.JoinCode, "Bo")
	if _, err := svc.Student(anaTok); err != nil {
		t.Errorf("Ana, still in the class: %v", err)
	}
}

// failExec fails every execution (so a run uses every iteration it may)
// and records each one's time limit.
type failExec struct {
	mu       sync.Mutex
	timeouts []time.Duration
}

func (f *failExec) Run(_ context.Context, req sandbox.Request) (sandbox.Result, error) {
	f.mu.Lock()
	f.timeouts = append(f.timeouts, req.Limits.Timeout)
	f.mu.Unlock()
	return sandbox.Result{Status: sandbox.StatusError, ExitCode: 1, Stderr: "boom"}, nil
}

// TestNewClassHasSafeLimits: a class opened without touching its limits
// already holds a student to DefaultClassLimits: a request for 50
// iterations and a day-long timeout runs 5 iterations of the configured
// timeout, an oversized prompt is refused, and the form's cap is the
// class's.
func TestNewClassHasSafeLimits(t *testing.T) {
	exec := &failExec{}
	svc := classService(t, &echoModel{answers: []string{"print(1)"}}, exec)
	v, err := svc.OpenClass(context.Background(), ClassOptions{Name: "Turma A"})
	if err != nil {
		t.Fatal(err)
	}
	def := DefaultClassLimits()
	if !reflect.DeepEqual(v.Limits, def) || def.MaxIterations == 0 || def.ConcurrentRuns == 0 || def.RunsPerHour == 0 ||
		def.TokensPerStudent == 0 || def.TokensForClass == 0 {
		t.Fatalf("a new class's limits: %+v, want %+v with every count set", v.Limits, def)
	}
	ana, _ := joinAs(t, svc, v.JoinCode, "Ana")
	if d := svc.DefaultsFor(ana); d.MaxIterationsLimit != def.MaxIterations || d.MaxIterations > def.MaxIterations {
		t.Errorf("a student's form defaults: %+v, want the cap %d", d, def.MaxIterations)
	}
	if d := svc.DefaultsFor(context.Background()); d.MaxIterationsLimit != config.MaxIterationsLimit {
		t.Errorf("the instructor's cap: %d, want %d", d.MaxIterationsLimit, config.MaxIterationsLimit)
	}
	info, err := svc.StartRun(ana, RunRequest{Prompt: "p", Provider: "fake", MaxIterations: config.MaxIterationsLimit, TimeoutSeconds: config.MaxTimeout.Seconds()})
	if err != nil {
		t.Fatal(err)
	}
	r, err := svc.Wait(context.Background(), info.RunID)
	if err != nil || r.MaxIterations != def.MaxIterations || r.Iterations != def.MaxIterations {
		t.Fatalf("a student's 50-iteration request: %+v, %v; want %d iterations", r, err, def.MaxIterations)
	}
	exec.mu.Lock()
	for _, d := range exec.timeouts {
		if d != svc.conf().Timeout {
			t.Errorf("an execution's time limit: %s, want the configured %s", d, svc.conf().Timeout)
		}
	}
	exec.mu.Unlock()
	_, err = svc.StartRun(ana, RunRequest{Prompt: strings.Repeat("x", StudentPromptBytes+1), Provider: "fake"})
	wantCode(t, err, CodeStudentPrompt, map[string]string{"max_kib": "16", "size_kib": "16"})
	if !errors.Is(err, ErrInvalidRequest) {
		t.Errorf("an oversized prompt: %v, want an invalid request", err)
	}
	// The instructor's own prompt is not capped.
	if _, err := svc.StartRun(context.Background(), RunRequest{Prompt: strings.Repeat("x", StudentPromptBytes+1), Provider: "fake", MaxIterations: 1}); err != nil {
		t.Errorf("the instructor's long prompt: %v", err)
	}
}

func TestClassLimitsSummary(t *testing.T) {
	for _, c := range []struct {
		l    ClassLimits
		want string
	}{
		{ClassLimits{}, "none"},
		{ClassLimits{Providers: []string{"ollama"}, CostPerStudentUSD: 0.5, TokensForClass: 1234567},
			"1,234,567 tokens for the class, US$0.50 a student, providers ollama"},
		{ClassLimits{RunsPerHour: 20, MaxStudentTests: 5, TokensPerStudent: 1000}, "20 runs an hour, 5 student tests a run, 1,000 tokens a student"},
	} {
		if got := c.l.Summary(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.l, got, c.want)
		}
	}
}

// TestResumeKeepsTheClassesLimits: --resume keeps what the instructor set,
// even "no limit", rather than the defaults of a new class.
func TestResumeKeepsTheClassesLimits(t *testing.T) {
	home := t.TempDir()
	svc := unclosedService(t, &echoModel{answers: []string{"print(1)"}}, newGateExec(), home)
	v := openClass(t, svc, ClassLimits{RunsPerHour: 7})
	if err := svc.EndClass(context.Background()); err != nil {
		t.Fatal(err)
	}
	svc.Close()
	again := classService(t, &echoModel{answers: []string{"print(1)"}}, newGateExec(), home)
	v2, err := again.OpenClass(context.Background(), ClassOptions{Resume: v.ID})
	if want := (ClassLimits{Providers: []string{}, Presets: []string{}, RunsPerHour: 7}); err != nil || !reflect.DeepEqual(v2.Limits, want) {
		t.Fatalf("resumed limits: %+v, %v; want %+v", v2.Limits, err, want)
	}
}

// waitExec is an executor whose clean-up goes on after its runs (as the
// sandbox's does): Wait says it was called and blocks until release.
type waitExec struct {
	gateExec
	waiting chan struct{}
	done    chan struct{}
}

func (w *waitExec) Wait() {
	close(w.waiting)
	<-w.done
}

// Close waits for the executor's clean-up (run directories and cgroups
// removed after Run returned), so that nothing is left when loopforge exits.
func TestCloseWaitsForTheExecutorsCleanup(t *testing.T) {
	exec := &waitExec{gateExec: *newGateExec(), waiting: make(chan struct{}), done: make(chan struct{})}
	svc := unclosedService(t, &echoModel{}, exec)
	closed := make(chan struct{})
	go func() {
		svc.Close()
		close(closed)
	}()
	select {
	case <-exec.waiting:
	case <-closed:
		t.Fatal("Close returned without waiting for the executor's clean-up")
	}
	select {
	case <-closed:
		t.Fatal("Close returned while the executor was still cleaning up")
	default:
	}
	close(exec.done)
	<-closed
}
