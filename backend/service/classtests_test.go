package service

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/loopforge/loopforge/backend/event"
	"github.com/loopforge/loopforge/backend/sandbox"
)

// Prompt problems in class (issue 25 item 4): the assignment's tests judge
// a student's run on the server, its hidden tests never reach the student,
// the wall shows each student's best, and the export grades it.

// promptProblem has a visible test and a hidden one whose input and
// expected output are unmistakable strings.
const promptProblem = `tests:
  - {name: small, stdin: "2 3", expected: "5"}
  - {name: edge, stdin: "1000 2345", expected: "3345", hidden: true}
`

const (
	sumProgram   = "a, b = map(int, input().split())\nprint(a + b)"
	smallProgram = "a, b = map(int, input().split())\nprint(a + b if a < 100 else 0)"
)

func needSandbox(t *testing.T) {
	t.Helper()
	if _, err := sandbox.NewRunner(sandbox.Options{}); err != nil {
		t.Skipf("no sandbox here: %v", err)
	}
}

func waitRun(t *testing.T, svc *Service, runID string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := svc.Wait(ctx, runID); err != nil {
		t.Fatal(err)
	}
}

func codeOf(err error) Code { return Explain(err).Code }

// The assignment's tests judge each student's run, though the student sent
// none and cannot send their own instead; what the student reads of the
// class, their run's events, session and exports hold the hidden test's
// name and verdict only; the wall has each student's best.
func TestAssignmentTestsJudgeAStudentsRun(t *testing.T) {
	needSandbox(t)
	svc := classService(t, &echoModel{answers: []string{sumProgram, smallProgram}}, nil)
	v := openClass(t, svc, ClassLimits{MaxStudentTests: 5})
	ana, _ := joinAs(t, svc, v.JoinCode, "Ana")
	joao, _ := joinAs(t, svc, v.JoinCode, "João")
	if _, err := svc.Assign(context.Background(), Assignment{Title: "Soma", Prompt: "Read two integers and print their sum.",
		Tests: promptProblem, PromptOnly: true}); err != nil {
		t.Fatal(err)
	}

	// What the student reads of the assignment.
	mine, err := svc.ClassView(ana)
	if err != nil {
		t.Fatal(err)
	}
	a := mine.Assignment
	if a == nil || a.HiddenTests != 1 || !strings.Contains(a.Tests, "small") || strings.Contains(a.Tests, "edge") || !a.PromptOnly {
		t.Fatalf("the student's assignment: %+v", a)
	}
	theirs, _ := svc.ClassView(context.Background())
	if !strings.Contains(theirs.Assignment.Tests, "3345") || theirs.Assignment.HiddenTests != 1 {
		t.Fatalf("the instructor's assignment: %+v", theirs.Assignment)
	}

	// A student's own tests do not replace the assignment's.
	own := "tests:\n  - {stdin: '1 1', expected: '2'}\n"
	_, err = svc.StartRun(ana, RunRequest{Prompt: "sum", Provider: "fake", Tests: own})
	if codeOf(err) != CodeStudentTestsSet || Classify(err) != ClassForbidden {
		t.Fatalf("a student's own tests under an assignment's: %v (%s)", err, codeOf(err))
	}

	first, err := svc.StartRun(ana, RunRequest{Prompt: "Sum two numbers read from one line.", Provider: "fake", MaxIterations: 1})
	if err != nil {
		t.Fatal(err)
	}
	waitRun(t, svc, first.RunID)
	second, err := svc.StartRun(joao, RunRequest{Prompt: "sum", Provider: "fake", MaxIterations: 1})
	if err != nil {
		t.Fatal(err)
	}
	waitRun(t, svc, second.RunID)

	for _, c := range []struct {
		who          context.Context
		info         RunInfo
		passed       int
		status       event.RunStatus
		name         string
		promptLength int
	}{{ana, first, 2, event.RunStatusSuccess, "Ana", 35}, {joao, second, 1, event.RunStatusLimitReached, "João", 3}} {
		d, err := svc.Session(c.who, c.info.SessionID)
		if err != nil {
			t.Fatal(err)
		}
		r := d.Runs[0]
		if r.TestsPassed != c.passed || r.TestsTotal != 2 || r.Status != c.status {
			t.Errorf("%s's run: %d/%d %s", c.name, r.TestsPassed, r.TestsTotal, r.Status)
		}
		// Everything this student receives of the run.
		var seen strings.Builder
		seen.WriteString(r.Tests)
		ctx, cancel := context.WithTimeout(c.who, time.Minute)
		if err := svc.Follow(ctx, c.info.RunID, 0, func(e event.Event) error { seen.Write(e.Payload); return nil }); err != nil {
			t.Fatal(err)
		}
		cancel()
		for _, format := range []string{"json", "html", "md"} {
			_, data, err := svc.Export(c.who, c.info.SessionID, format, "", "", "UTC")
			if err != nil {
				t.Fatalf("%s: %v", format, err)
			}
			seen.Write(data)
		}
		view, _ := svc.ClassView(c.who)
		b, _ := json.Marshal(view)
		seen.Write(b)
		for _, secret := range []string{"2345", "3345"} {
			if strings.Contains(seen.String(), secret) {
				t.Errorf("%s received %q of the hidden test", c.name, secret)
			}
		}
		if !strings.Contains(seen.String(), "edge") {
			t.Errorf("%s lost the hidden test's name and verdict", c.name)
		}
	}

	wall, err := svc.Wall(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []WallBest{{RunID: first.RunID, TestsPassed: 2, TestsTotal: 2, Success: true, Iterations: 1, PromptChars: 35, Runs: 1},
		{RunID: second.RunID, TestsPassed: 1, TestsTotal: 2, Iterations: 1, PromptChars: 3, Runs: 1}} {
		if got := wall[i].Best; got == nil || *got != want {
			t.Errorf("%s's best on the wall: %+v, want %+v", wall[i].Name, got, want)
		}
	}
	if c := wall[1].Current; c == nil || c.TestsPassed != 1 || c.TestsTotal != 2 {
		t.Errorf("João's current run on the wall: %+v", c)
	}

	// The learning path has the tests per iteration.
	path, err := svc.LearningPath(context.Background(), "", wall[1].StudentID)
	if err != nil {
		t.Fatal(err)
	}
	if it := path.Runs[0].Iterations[0]; it.TestsPassed != 1 || it.TestsTotal != 2 {
		t.Errorf("João's path: iteration 1 passed %d/%d", it.TestsPassed, it.TestsTotal)
	}

	// A new assignment starts the bests over.
	if _, err := svc.Assign(context.Background(), Assignment{Prompt: "Next one."}); err != nil {
		t.Fatal(err)
	}
	if wall, _ := svc.Wall(context.Background()); wall[0].Best != nil {
		t.Errorf("a best survived a new assignment: %+v", wall[0].Best)
	}
}

// An assignment's tests are checked when it is pushed: a suite that cannot
// be read, assertion tests on a shell program, and a prompt problem with no
// tests are refused with their codes.
func TestAssignmentTestsAreChecked(t *testing.T) {
	svc := classService(t, &echoModel{answers: []string{"print(1)"}}, nil)
	openClass(t, svc, ClassLimits{})
	for _, c := range []struct {
		a    Assignment
		code Code
	}{
		{Assignment{Prompt: "x", Tests: "tests:\n  - {stdin: 1, expect: 2}\n"}, CodeTests},
		{Assignment{Prompt: "x", Language: "sh", Tests: "tests:\n  - {assert: 'assert f() == 1'}\n"}, CodeTests},
		{Assignment{Prompt: "x", PromptOnly: true}, CodeAssignNoTests},
	} {
		_, err := svc.Assign(context.Background(), c.a)
		if codeOf(err) != c.code || !errors.Is(err, ErrInvalidRequest) {
			t.Errorf("%+v: %v (%s), want %s", c.a, err, codeOf(err), c.code)
		}
	}
	if v, _ := svc.ClassView(context.Background()); v.Assignment != nil {
		t.Errorf("a refused assignment was kept: %+v", v.Assignment)
	}
}

// A student's own tests are capped by the class (each is one more
// execution per iteration): more than MaxStudentTests is refused before
// anything runs, and 0 refuses any.
func TestStudentTestCap(t *testing.T) {
	svc := classService(t, &echoModel{answers: []string{"print(1)"}}, nil)
	v := openClass(t, svc, ClassLimits{MaxStudentTests: 2})
	ana, _ := joinAs(t, svc, v.JoinCode, "Ana")
	three := "tests:\n  - {expected: '1'}\n  - {expected: '1'}\n  - {expected: '1'}\n"
	_, err := svc.StartRun(ana, RunRequest{Prompt: "p", Provider: "fake", Tests: three})
	p := Explain(err)
	if p.Code != CodeStudentTests || p.Params["max"] != "2" || p.Params["count"] != "3" || Classify(err) != ClassForbidden {
		t.Fatalf("3 tests over a cap of 2: %v %+v", err, p)
	}
	if _, err := svc.SetClassLimits(context.Background(), ClassLimits{MaxStudentTests: 0}); err != nil {
		t.Fatal(err)
	}
	one := "tests:\n  - {expected: '1'}\n"
	if _, err := svc.StartRun(ana, RunRequest{Prompt: "p", Provider: "fake", Tests: one}); codeOf(err) != CodeStudentTests {
		t.Fatalf("a test with none allowed: %v", err)
	}
	if u, _ := svc.ClassView(ana); u.Usage.Runs != 0 {
		t.Errorf("a refused run was counted: %+v", u.Usage)
	}
	if d := DefaultClassLimits(); d.MaxStudentTests != DefaultMaxStudentTests || DefaultMaxStudentTests == 0 {
		t.Errorf("a new class's cap: %d", d.MaxStudentTests)
	}
}

// The grade sheet: a row per student and assignment (a student with no run
// included, names as typed), the best run's tests, attempts and time; the
// per-test results a row per student, assignment and test of the best run.
// Both parsed back as a gradebook would, alone and in the zip.
func TestGradeSheet(t *testing.T) {
	needSandbox(t)
	svc := classService(t, &echoModel{answers: []string{smallProgram, sumProgram, smallProgram}}, nil)
	v := openClass(t, svc, ClassLimits{MaxStudentTests: 5})
	ana, _ := joinAs(t, svc, v.JoinCode, "Ana")
	joao, _ := joinAs(t, svc, v.JoinCode, "João, o \"Jo\"")
	joinAs(t, svc, v.JoinCode, "Carla")
	if _, err := svc.Assign(context.Background(), Assignment{Title: "Soma", Prompt: "Sum.", Tests: promptProblem, PromptOnly: true}); err != nil {
		t.Fatal(err)
	}
	var anaBest string
	for i, who := range []context.Context{ana, ana, joao} {
		info, err := svc.StartRun(who, RunRequest{Prompt: "sum", Provider: "fake", MaxIterations: 1})
		if err != nil {
			t.Fatal(err)
		}
		waitRun(t, svc, info.RunID)
		if i == 1 {
			anaBest = info.RunID
		}
	}

	_, data, err := svc.ExportClass(context.Background(), "", "grades", "en", "UTC")
	if err != nil {
		t.Fatal(err)
	}
	grades := readCSV(t, data)
	if want := []string{"student", "assignment", "tests passed", "tests total", "score (%)", "attempts",
		"seconds (first run to best)", "best run status", "best run id"}; strings.Join(grades[0], "|") != strings.Join(want, "|") {
		t.Fatalf("grade sheet header: %q", grades[0])
	}
	if len(grades) != 4 {
		t.Fatalf("grade sheet: %d rows, want a header and 3: %q", len(grades), grades)
	}
	check := func(row []string, student, passed, score, attempts, run string) {
		t.Helper()
		got := []string{row[0], row[1], row[2], row[3], row[4], row[5]}
		want := []string{student, "Soma", passed, "2", score, attempts}
		if strings.Join(got, "|") != strings.Join(want, "|") || (run != "" && row[8] != run) {
			t.Errorf("grade row %q, want %q (run %s)", row, want, run)
		}
	}
	check(grades[1], "Ana", "2", "100.0", "2", anaBest)
	check(grades[2], "João, o \"Jo\"", "1", "50.0", "1", "")
	check(grades[3], "Carla", "0", "0.0", "0", "")
	if grades[1][6] == "" || grades[3][6] != "" || grades[3][8] != "" {
		t.Errorf("time to best: Ana %q, Carla %q", grades[1][6], grades[3][6])
	}

	_, data, err = svc.ExportClass(context.Background(), "", "grade-tests", "pt", "UTC")
	if err != nil {
		t.Fatal(err)
	}
	tests := readCSV(t, data)
	if strings.Join(tests[0], "|") != "aluno|tarefa|id da melhor execução|teste|nome do teste|teste oculto|veredito" {
		t.Fatalf("per-test header (pt): %q", tests[0])
	}
	got := []string{}
	for _, r := range tests[1:] {
		got = append(got, strings.Join([]string{r[0], r[3], r[4], r[5], r[6]}, "|"))
	}
	want := []string{"Ana|1|small|false|passed", "Ana|2|edge|true|passed",
		"João, o \"Jo\"|1|small|false|passed", "João, o \"Jo\"|2|edge|true|wrong_answer"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("per-test rows:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	_, data, err = svc.ExportClass(context.Background(), "", "zip", "en", "UTC")
	if err != nil {
		t.Fatal(err)
	}
	z, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	found := map[string]int{}
	for _, f := range z.File {
		if f.Name == "grades.csv" || f.Name == "grade-tests.csv" {
			rc, _ := f.Open()
			b, _ := io.ReadAll(rc)
			rc.Close()
			found[f.Name] = len(readCSV(t, b))
		}
	}
	if found["grades.csv"] != 4 || found["grade-tests.csv"] != 5 {
		t.Errorf("the zip's grade sheets: %v", found)
	}
	if _, _, err := svc.ExportClass(ana, "", "grades", "en", "UTC"); codeOf(err) != CodeStudentOnly {
		t.Errorf("a student's grade sheet: %v", err)
	}
}

func readCSV(t *testing.T, b []byte) [][]string {
	t.Helper()
	rows, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil {
		t.Fatalf("not CSV: %v\n%s", err, b)
	}
	return rows
}

// A resumed class's wall has each student's best on the assignment in
// force again, read from the history (runs since it was given).
func TestResumedClassKeepsTheBests(t *testing.T) {
	needSandbox(t)
	home := t.TempDir()
	svc := unclosedService(t, &echoModel{answers: []string{smallProgram}}, nil, home)
	v := openClass(t, svc, ClassLimits{MaxStudentTests: 5})
	ana, _ := joinAs(t, svc, v.JoinCode, "Ana")
	// A run before the assignment is not on it.
	before, err := svc.StartRun(ana, RunRequest{Prompt: "warm up", Provider: "fake", MaxIterations: 1})
	if err != nil {
		t.Fatal(err)
	}
	waitRun(t, svc, before.RunID)
	if _, err := svc.Assign(context.Background(), Assignment{Title: "Soma", Prompt: "Sum.", Tests: promptProblem}); err != nil {
		t.Fatal(err)
	}
	info, err := svc.StartRun(ana, RunRequest{Prompt: "sum them", Provider: "fake", MaxIterations: 1})
	if err != nil {
		t.Fatal(err)
	}
	waitRun(t, svc, info.RunID)
	if err := svc.EndClass(context.Background()); err != nil {
		t.Fatal(err)
	}
	svc.Close()

	again := classService(t, &echoModel{answers: []string{sumProgram}}, nil, home)
	if _, err := again.OpenClass(context.Background(), ClassOptions{Resume: v.ID}); err != nil {
		t.Fatal(err)
	}
	wall, err := again.Wall(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := WallBest{RunID: info.RunID, TestsPassed: 1, TestsTotal: 2, Iterations: 1, PromptChars: 8, Runs: 1}
	if len(wall) != 1 || wall[0].Best == nil || *wall[0].Best != want {
		t.Fatalf("the resumed wall's best: %+v, want %+v", wall[0].Best, want)
	}
}
