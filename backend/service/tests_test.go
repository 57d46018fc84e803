package service

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/loopforge/loopforge/backend/config"
	"github.com/loopforge/loopforge/backend/event"
	"github.com/loopforge/loopforge/backend/judge"
	"github.com/loopforge/loopforge/backend/sandbox"
	"github.com/loopforge/loopforge/backend/store"
)

// A hidden test's input, expected output and the program's answer to it
// reach the instructor and the history, never a student: not in the
// student's live events (the websocket's source), not in its session
// view, not in its exports.
func TestHiddenTestsNeverReachAStudent(t *testing.T) {
	if _, err := sandbox.NewRunner(sandbox.Options{}); err != nil {
		t.Skipf("no sandbox here: %v", err)
	}
	svc := classService(t, &echoModel{answers: []string{"a, b = map(int, input().split())\nprint(a * b, 'SECRET-ACTUAL')"}}, nil)
	v := openClass(t, svc, ClassLimits{MaxStudentTests: 2})
	ana, _ := joinAs(t, svc, v.JoinCode, "Ana")
	suite, err := judge.Parse([]byte(`tests:
  - {name: shown, stdin: "2 2", expected: "4 SECRET-ACTUAL"}
  - {name: edge, stdin: "SECRET-IN 3", expected: "SECRET-EXPECTED", hidden: true}
`))
	if err != nil {
		t.Fatal(err)
	}
	info, err := svc.StartRun(ana, RunRequest{Prompt: "multiply", Provider: "fake", MaxIterations: 1, Tests: suite.YAML()})
	if err != nil {
		t.Fatal(err)
	}
	var student, instructor strings.Builder
	ctx, cancel := context.WithTimeout(ana, time.Minute)
	defer cancel()
	var tested event.TestsPayload
	if err := svc.Follow(ctx, info.RunID, 0, func(e event.Event) error {
		student.Write(e.Payload)
		if e.Type == event.Tested {
			return e.Decode(&tested)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for _, e := range collect(t, svc, info.RunID, 0) {
		instructor.Write(e.Payload)
	}
	if tested.Total != 2 || len(tested.Results) != 2 || !tested.Results[1].Redacted || tested.Results[1].Verdict != event.VerdictRuntimeError {
		t.Fatalf("the student's tested event: %+v", tested)
	}
	if !strings.Contains(student.String(), "4 SECRET-ACTUAL") {
		t.Errorf("the student lost the visible test's evidence")
	}
	if !strings.Contains(instructor.String(), "SECRET-EXPECTED") {
		t.Errorf("the instructor's events lack the hidden test's evidence")
	}

	d, err := svc.Session(ana, info.SessionID)
	if err != nil {
		t.Fatal(err)
	}
	seen := student.String() + d.Runs[0].Tests
	for _, format := range []string{"json", "html", "md"} {
		_, data, err := svc.Export(ana, info.SessionID, format, "", "", "UTC")
		if err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		seen += string(data)
	}
	for _, secret := range []string{"SECRET-IN", "SECRET-EXPECTED", "ValueError"} {
		if strings.Contains(seen, secret) {
			t.Errorf("a student saw %q of the hidden test", secret)
		}
	}
	if !strings.Contains(d.Runs[0].Tests, "shown") || d.Runs[0].TestsPassed != 1 || d.Runs[0].TestsTotal != 2 {
		t.Errorf("the student's run: tests %q, %d/%d", d.Runs[0].Tests, d.Runs[0].TestsPassed, d.Runs[0].TestsTotal)
	}
}

// The built-in exercises come with tests; a student's list has only the
// visible ones.
func TestPresetsCarryTestsAndHideHiddenOnesFromStudents(t *testing.T) {
	svc := classService(t, &echoModel{answers: []string{"print(1)"}}, nil)
	find := func(ps []config.Preset, id string) config.Preset {
		for _, p := range ps {
			if p.ID == id {
				return p
			}
		}
		t.Fatalf("no preset %s", id)
		return config.Preset{}
	}
	mine := find(svc.PresetsFor(context.Background()), "soma-pt")
	if mine.Suite().Hidden() != 2 || len(mine.Tests) != 4 {
		t.Fatalf("instructor's soma-pt: %+v", mine.Tests)
	}
	if ds := find(svc.PresetsFor(context.Background()), "data-structures-pt"); ds.Prompt == "" || len(ds.Tests) == 0 {
		t.Errorf("the seed's preset: %+v", ds)
	}
	v := openClass(t, svc, ClassLimits{})
	ana, _ := joinAs(t, svc, v.JoinCode, "Ana")
	theirs := find(svc.PresetsFor(ana), "soma-pt")
	if len(theirs.Tests) != 2 || theirs.Suite().Hidden() != 0 {
		t.Errorf("a student's soma-pt: %+v", theirs.Tests)
	}
	if again := find(svc.PresetsFor(context.Background()), "soma-pt"); len(again.Tests) != 4 {
		t.Errorf("the student's list changed the instructor's: %+v", again.Tests)
	}
}

// --retry goes on with the run's own tests.
func TestRetryKeepsTheRunsTests(t *testing.T) {
	svc := newService(t, &echoModel{answers: []string{"print(1)"}})
	ctx := context.Background()
	sess := &store.Session{Title: "sum", Prompt: "sum", Mode: "script", Kind: event.ModeScript}
	if err := svc.store.CreateSession(ctx, sess); err != nil {
		t.Fatal(err)
	}
	lost := &store.Run{SessionID: sess.ID, Provider: "fake", Prompt: "sum", Status: event.RunStatusInterrupted, MaxIterations: 3,
		Language: "python", Tests: "tests:\n  - {stdin: '2 3', expected: '5'}\n  - {stdin: '1 1', expected: '2', hidden: true}\n"}
	if err := svc.store.CreateRun(ctx, lost); err != nil {
		t.Fatal(err)
	}
	req := RunRequest{Retry: lost.ID}
	if _, err := svc.retry(ctx, &req); err != nil {
		t.Fatal(err)
	}
	if req.Tests != lost.Tests {
		t.Fatalf("the retry's tests: %q, want the run's %q", req.Tests, lost.Tests)
	}
}
