package service

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"io"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/loopforge/loopforge/backend/access"
	"github.com/loopforge/loopforge/backend/event"
	"github.com/loopforge/loopforge/backend/provider"
	"github.com/loopforge/loopforge/backend/store"
)

// pathClass is a class where two students have worked, with the fake
// model and the real sandbox: Ana's first run, on the assignment
// "Exercício 1", fails once (division by zero), is reflected on and then
// works; Bo's run works at once; after the assignment is cleared, Ana runs
// once more, with no assignment. Every call reports 10 tokens in, 5 out.
type pathClass struct {
	svc               *Service
	ana, bo           context.Context
	anaID, boID       string
	anaFirst, anaFree RunInfo
	boRun             RunInfo
}

const (
	anaName = "Ana Lúcia"
	boName  = `Bo "B", Jr`
)

func newPathClass(t *testing.T) *pathClass {
	t.Helper()
	m := &echoModel{answers: []string{"print(1/0)", "print('olá')"}, usage: provider.Usage{InputTokens: 10, OutputTokens: 5}}
	svc := classService(t, m, nil)
	v := openClass(t, svc, ClassLimits{})
	if _, err := svc.Assign(context.Background(), Assignment{Title: "Exercício 1", Prompt: "Imprima olá"}); err != nil {
		t.Fatal(err)
	}
	pc := &pathClass{svc: svc}
	pc.ana, _ = joinAs(t, svc, v.JoinCode, anaName)
	pc.bo, _ = joinAs(t, svc, v.JoinCode, boName)
	pc.anaID, pc.boID = access.From(pc.ana).StudentID, access.From(pc.bo).StudentID
	// One at a time: the model's answers go in order.
	pc.anaFirst = pc.run(t, pc.ana, "Imprima olá — Ana")
	pc.boRun = pc.run(t, pc.bo, "Imprima olá — Bo")
	if _, err := svc.Assign(context.Background(), Assignment{}); err != nil {
		t.Fatal(err)
	}
	pc.anaFree = pc.run(t, pc.ana, "Livre — Ana")
	return pc
}

func (pc *pathClass) run(t *testing.T, ctx context.Context, prompt string) RunInfo {
	t.Helper()
	info, err := pc.svc.StartRun(ctx, RunRequest{Prompt: prompt, Provider: "fake", MaxIterations: 3})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pc.svc.Wait(context.Background(), info.RunID); err != nil {
		t.Fatal(err)
	}
	return info
}

// TestLearningPath: the instructor reads Ana's path: her two runs in
// order, each with its prompt and assignment, the failed iteration's error
// and reflection, every call's tokens (the reflection's included), and the
// time to a working program; none of Bo's work.
func TestLearningPath(t *testing.T) {
	pc := newPathClass(t)
	p, err := pc.svc.LearningPath(context.Background(), "", pc.anaID)
	if err != nil {
		t.Fatal(err)
	}
	if p.Name != anaName || p.StudentID != pc.anaID || len(p.Runs) != 2 {
		t.Fatalf("Ana's path: %s %s, %d runs", p.Name, p.StudentID, len(p.Runs))
	}
	first, free := p.Runs[0], p.Runs[1]
	if first.RunID != pc.anaFirst.RunID || free.RunID != pc.anaFree.RunID {
		t.Fatalf("runs out of order: %s, %s", first.RunID, free.RunID)
	}
	if first.Prompt != "Imprima olá — Ana" || first.Assignment != "Exercício 1" || first.Status != event.RunStatusSuccess {
		t.Errorf("the first run: %q on %q, %s", first.Prompt, first.Assignment, first.Status)
	}
	if free.Prompt != "Livre — Ana" || free.Assignment != "" {
		t.Errorf("the run after the assignment was cleared: %q on %q", free.Prompt, free.Assignment)
	}
	if len(first.Iterations) != 2 {
		t.Fatalf("the first run's iterations: %+v", first.Iterations)
	}
	failed, worked := first.Iterations[0], first.Iterations[1]
	if failed.Status != "error" || failed.ErrorKind != string(event.ExecStatusError) || !strings.Contains(failed.Error, "ZeroDivisionError") ||
		failed.Reflection != "It failed; fix it." || strings.TrimSpace(failed.Code) != "print(1/0)" {
		t.Errorf("the failed iteration: %+v", failed)
	}
	if worked.Status != "success" || worked.ErrorKind != "" || worked.Error != "" || strings.TrimSpace(worked.Code) != "print('olá')" {
		t.Errorf("the iteration that worked: %+v", worked)
	}
	// Generation and reflection in the first iteration; generation only in the second.
	if failed.InputTokens != 20 || failed.OutputTokens != 10 || worked.InputTokens != 10 || worked.OutputTokens != 5 {
		t.Errorf("tokens: %d/%d then %d/%d", failed.InputTokens, failed.OutputTokens, worked.InputTokens, worked.OutputTokens)
	}
	if first.InputTokens != failed.InputTokens+worked.InputTokens || first.OutputTokens != failed.OutputTokens+worked.OutputTokens {
		t.Errorf("the run's tokens %d/%d are not its iterations'", first.InputTokens, first.OutputTokens)
	}
	if p.InputTokens != first.InputTokens+free.InputTokens || p.OutputTokens != first.OutputTokens+free.OutputTokens {
		t.Errorf("the path's tokens: %d/%d", p.InputTokens, p.OutputTokens)
	}
	if failed.StartedAt.IsZero() || !worked.StartedAt.After(failed.StartedAt) || failed.DurationMS <= 0 ||
		worked.DurationMS <= 0 || worked.DurationMS > first.EndedAt.Sub(first.StartedAt).Milliseconds() {
		t.Errorf("iteration times: %v +%dms, %v +%dms", failed.StartedAt, failed.DurationMS, worked.StartedAt, worked.DurationMS)
	}
	runMS := first.EndedAt.Sub(first.StartedAt).Milliseconds()
	if first.WorkingAfterMS <= failed.DurationMS || first.WorkingAfterMS > runMS {
		t.Errorf("time to a working program %dms (the first iteration took %dms, the run %dms)", first.WorkingAfterMS, failed.DurationMS, runMS)
	}
	if len(p.Assignments) != 2 || p.Assignments[0].Assignment != "Exercício 1" || p.Assignments[0].Runs != 1 ||
		p.Assignments[0].WorkingAfterMS != first.WorkingAfterMS || p.Assignments[1].Assignment != "" || p.Assignments[1].WorkingAfterMS <= 0 {
		t.Errorf("per assignment: %+v", p.Assignments)
	}

	bo, err := pc.svc.LearningPath(context.Background(), "", pc.boID)
	if err != nil {
		t.Fatal(err)
	}
	if len(bo.Runs) != 1 || bo.Runs[0].RunID != pc.boRun.RunID || bo.Runs[0].Prompt != "Imprima olá — Bo" || len(bo.Runs[0].Iterations) != 1 {
		t.Errorf("Bo's path: %+v", bo.Runs)
	}
	// The stored class reads the same by its id.
	again, err := pc.svc.LearningPath(context.Background(), p.ClassID, pc.anaID)
	if err != nil || len(again.Runs) != 2 {
		t.Errorf("by the class's id: %d runs, %v", len(again.Runs), err)
	}
	if _, err := pc.svc.LearningPath(context.Background(), "", "nobody"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("an unknown student: %v", err)
	}
}

// TestLearningPathIsTheInstructors: a student is refused another student's
// path and their own alike (the instructor's operation), with the code the
// faces word.
func TestLearningPathIsTheInstructors(t *testing.T) {
	pc := newPathClass(t)
	for _, c := range []struct {
		name    string
		ctx     context.Context
		student string
	}{{"Bo asking for Ana's", pc.bo, pc.anaID}, {"Ana asking for her own", pc.ana, pc.anaID}, {"Ana asking for Bo's", pc.ana, pc.boID}} {
		p, err := pc.svc.LearningPath(c.ctx, "", c.student)
		if !errors.Is(err, ErrForbidden) || Classify(err) != ClassForbidden || len(p.Runs) != 0 {
			t.Errorf("%s: %d runs, %v", c.name, len(p.Runs), err)
		}
		wantCode(t, err, CodeStudentOnly, map[string]string{"operation": "LearningPath"})
	}
}

// TestAttemptsCSV: the class export's attempts.csv parses back with
// encoding/csv: a heading and one row per run and iteration, students in
// join order with their names as typed (accents, quotes and a comma), each
// row's values matching the runs made.
func TestAttemptsCSV(t *testing.T) {
	pc := newPathClass(t)
	name, data, err := pc.svc.ExportClass(context.Background(), "", "attempts", "", "UTC")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(name, "-attempts.csv") || !utf8.Valid(data) {
		t.Fatalf("the file: %s (valid UTF-8: %v)", name, utf8.Valid(data))
	}
	records, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
	if err != nil {
		t.Fatalf("attempts.csv does not parse: %v\n%s", err, data)
	}
	wantHead := []string{"student", "assignment", "run id", "started", "run status", "iteration", "iteration status",
		"error kind", "error", "tokens in", "tokens out", "seconds", "seconds to a working program"}
	if strings.Join(records[0], "|") != strings.Join(wantHead, "|") {
		t.Fatalf("heading: %q", records[0])
	}
	rows := records[1:]
	type want struct {
		student, assignment, run, runStatus, iteration, status, kind, tokensIn, tokensOut string
	}
	wants := []want{
		{anaName, "Exercício 1", pc.anaFirst.RunID, "success", "1", "error", "error", "20", "10"},
		{anaName, "Exercício 1", pc.anaFirst.RunID, "success", "2", "success", "", "10", "5"},
		{anaName, "", pc.anaFree.RunID, "success", "1", "success", "", "10", "5"},
		{boName, "Exercício 1", pc.boRun.RunID, "success", "1", "success", "", "10", "5"},
	}
	if len(rows) != len(wants) {
		t.Fatalf("%d rows, want %d:\n%s", len(rows), len(wants), data)
	}
	for i, w := range wants {
		r := rows[i]
		if len(r) != len(wantHead) {
			t.Fatalf("row %d has %d fields: %q", i, len(r), r)
		}
		got := want{r[0], r[1], r[2], r[4], r[5], r[6], r[7], r[9], r[10]}
		if got != w {
			t.Errorf("row %d:\n got %+v\nwant %+v", i, got, w)
		}
		run, err := pc.svc.store.GetRun(context.Background(), w.run)
		if err != nil {
			t.Fatal(err)
		}
		if started, err := time.Parse(time.RFC3339, r[3]); err != nil || !started.Equal(run.StartedAt.Truncate(time.Second)) {
			t.Errorf("row %d started %q, the run started %v (%v)", i, r[3], run.StartedAt, err)
		}
		// An iteration lies within its run's start and finish (the
		// run's DurationMS is timed by another clock reading); the CSV
		// rounds to a tenth of a second (50 ms), and the event times and the
		// stored finish are separate readings of the clock (a few ms).
		span := run.FinishedAt.Sub(run.StartedAt).Milliseconds()
		if secs, err := strconv.ParseFloat(r[11], 64); err != nil || secs < 0 || secs*1000 > float64(span)+100 {
			t.Errorf("row %d: %q seconds (the run took %dms from start to finish): %v", i, r[11], span, err)
		}
		// Every (student, assignment) here reached a working program: a
		// time, never blank (a run forked from the zygote may take under
		// the 50 ms that round to 0.0).
		if secs, err := strconv.ParseFloat(r[12], 64); err != nil || secs < 0 {
			t.Errorf("row %d: %q seconds to a working program: %v", i, r[12], err)
		}
	}
	if !strings.Contains(rows[0][8], "ZeroDivisionError") || rows[1][8] != "" {
		t.Errorf("the errors: %q, %q", rows[0][8], rows[1][8])
	}
	if rows[0][12] != rows[1][12] {
		t.Errorf("one time to a working program per student and assignment: %q, %q", rows[0][12], rows[1][12])
	}

	// The zip carries the same file; in Portuguese the headings and statuses change, not the values.
	_, zipped, err := pc.svc.ExportClass(context.Background(), "", "zip", "", "UTC")
	if err != nil {
		t.Fatal(err)
	}
	if got := zipFile(t, zipped, "attempts.csv"); got != string(data) {
		t.Errorf("the zip's attempts.csv differs:\n%s", got)
	}
	_, pt, err := pc.svc.ExportClass(context.Background(), "", "attempts", "pt-BR", "America/Sao_Paulo")
	if err != nil {
		t.Fatal(err)
	}
	ptRecords, err := csv.NewReader(bytes.NewReader(pt)).ReadAll()
	if err != nil || len(ptRecords) != len(records) || ptRecords[0][0] != "aluno" || ptRecords[1][6] != "erro" || ptRecords[2][6] != "sucesso" ||
		ptRecords[1][0] != anaName || ptRecords[1][9] != "20" || !strings.HasSuffix(ptRecords[1][3], "-03:00") {
		t.Errorf("in Portuguese (%v):\n%s", err, pt)
	}
	if _, _, err := pc.svc.ExportClass(pc.ana, "", "attempts", "", ""); !errors.Is(err, ErrForbidden) {
		t.Errorf("a student's attempts export: %v", err)
	}
}

func zipFile(t *testing.T, data []byte, name string) string {
	t.Helper()
	z, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range z.File {
		if f.Name == name {
			rc, err := f.Open()
			if err != nil {
				t.Fatal(err)
			}
			defer rc.Close()
			b, err := io.ReadAll(rc)
			if err != nil {
				t.Fatal(err)
			}
			return string(b)
		}
	}
	t.Fatalf("no %s in the zip", name)
	return ""
}

// TestPathRunEnds: iterations a run did not finish — stopped in its second
// iteration, still going, an answer without usable code — read as such,
// timed from the events.
func TestPathRunEnds(t *testing.T) {
	t0 := time.Date(2026, 11, 27, 13, 0, 0, 0, time.UTC)
	ev := func(kind event.Kind, at time.Duration, payload any) event.Event {
		e := event.New(kind, payload)
		e.TS = t0.Add(at)
		return e
	}
	evs := []event.Event{
		ev(event.IterationStarted, 0, event.IterationPayload{Iteration: 1}),
		ev(event.Generated, 500*time.Millisecond, event.GeneratedPayload{Iteration: 1, InputTokens: 7, OutputTokens: 3}),
		ev(event.IterationDone, time.Second, event.IterationDonePayload{Iteration: 1, Status: "error"}),
		ev(event.Reflection, 1500*time.Millisecond, event.ReflectionPayload{Iteration: 1, InputTokens: 2, OutputTokens: 1}),
		ev(event.IterationStarted, 2*time.Second, event.IterationPayload{Iteration: 2}),
		ev(event.RunFinished, 3*time.Second, struct{}{}),
	}
	its := []store.Iteration{{N: 1, Status: "error", Summary: "unusable answer: no code block\nmore"}}
	end := t0.Add(3 * time.Second)
	stopped := pathRun(store.Run{ID: "r", Status: event.RunStatusCancelled, Error: "stopped on request\ndetail", StartedAt: t0, FinishedAt: &end}, its, evs)
	if len(stopped.Iterations) != 2 {
		t.Fatalf("iterations: %+v", stopped.Iterations)
	}
	first, second := stopped.Iterations[0], stopped.Iterations[1]
	if first.Status != "error" || first.ErrorKind != "format" || first.Error != "unusable answer: no code block" ||
		first.InputTokens != 9 || first.OutputTokens != 4 || first.DurationMS != 2000 {
		t.Errorf("the answer without code: %+v", first)
	}
	if second.Status != "cancelled" || second.ErrorKind != "cancelled" || second.Error != "stopped on request" || second.DurationMS != 1000 {
		t.Errorf("the iteration the run was stopped in: %+v", second)
	}
	if stopped.WorkingAfterMS != 0 {
		t.Errorf("no program worked, yet %dms to a working one", stopped.WorkingAfterMS)
	}

	going := pathRun(store.Run{ID: "r", Status: event.RunStatusRunning, StartedAt: t0}, its, evs[:5])
	if last := going.Iterations[1]; last.Status != "running" || last.ErrorKind != "" || last.DurationMS != 0 {
		t.Errorf("the iteration going on: %+v", last)
	}
	if going.Iterations[0].DurationMS != 2000 {
		t.Errorf("the finished iteration of a running run: %+v", going.Iterations[0])
	}
}
