package store

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/loopforge/loopforge/backend/event"
)

// TestUpgradeFrom0004 opens a history written at schema 0004
// (testdata/history-0004.db, made with that schema's store) and checks
// that migration 0008 (classes) keeps every session outside any class, and that
// classes, students and class sessions can then be written and read.
func TestUpgradeFrom0004(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("testdata", "history-0004.db"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "history.db")
	if err := os.WriteFile(path, src, 0o600); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()

	list, err := s.ListSessions(ctx, ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	wantKind := map[string]event.Mode{"sess-script": event.ModeScript, "sess-workspace": event.ModeWorkspace, "sess-compare": event.ModeScript}
	if len(list) != len(wantKind) {
		t.Fatalf("%d sessions, want %d", len(list), len(wantKind))
	}
	runs := 0
	for _, sum := range list {
		runs += len(sum.Runs)
		if sum.Kind != wantKind[sum.ID] || sum.ClassID != "" || sum.StudentID != "" || sum.StudentName != "" {
			t.Errorf("session %s after the upgrade: %+v", sum.ID, sum)
		}
		o, err := s.SessionOwner(ctx, sum.ID)
		if err != nil || o.ClassID != "" || o.StudentID != "" {
			t.Errorf("owner of %s: %+v, %v", sum.ID, o, err)
		}
	}
	if runs != 5 {
		t.Errorf("%d runs, want 5", runs)
	}
	if got, err := s.GetRun(ctx, "run-script"); err != nil || got.FinalCode != "print(1)" || got.InputTokens != 100 {
		t.Errorf("run-script: %+v, %v", got, err)
	}
	if cs, err := s.ListClasses(ctx); err != nil || len(cs) != 0 {
		t.Errorf("classes after the upgrade: %v, %v", cs, err)
	}

	// The new tables work on the upgraded file.
	c := &Class{Name: "Turma A"}
	if err := s.CreateClass(ctx, c); err != nil {
		t.Fatal(err)
	}
	st := &Student{ClassID: c.ID, Name: "Ana", TokenHash: "h1"}
	if err := s.AddStudent(ctx, st); err != nil {
		t.Fatal(err)
	}
	sess := &Session{Title: "t", Mode: "script", ClassID: c.ID, StudentID: st.ID}
	if err := s.CreateSession(ctx, sess); err != nil {
		t.Fatal(err)
	}
	mine, err := s.ListSessions(ctx, ListOptions{StudentID: st.ID})
	if err != nil || len(mine) != 1 || mine[0].StudentName != "Ana" || mine[0].ClassID != c.ID {
		t.Errorf("the student's sessions: %+v, %v", mine, err)
	}
}

func TestClassesAndStudents(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "h.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	c := &Class{Name: "A", Limits: `{"max_iterations":3}`}
	if err := s.CreateClass(ctx, c); err != nil {
		t.Fatal(err)
	}
	ana := &Student{ClassID: c.ID, Name: "Ana", TokenHash: "ha"}
	bo := &Student{ClassID: c.ID, Name: "Bo", TokenHash: "hb"}
	for _, st := range []*Student{ana, bo} {
		if err := s.AddStudent(ctx, st); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.AddStudent(ctx, &Student{ClassID: c.ID, Name: "X", TokenHash: "ha"}); !errors.Is(err, ErrDuplicate) {
		t.Errorf("a token hash twice: %v", err)
	}
	if err := s.AddStudent(ctx, &Student{ClassID: "nope", Name: "X", TokenHash: "hx"}); !errors.Is(err, ErrNotFound) {
		t.Errorf("a student of no class: %v", err)
	}
	for _, st := range []*Student{ana, bo} {
		sess := &Session{Title: st.Name, ClassID: c.ID, StudentID: st.ID}
		if err := s.CreateSession(ctx, sess); err != nil {
			t.Fatal(err)
		}
		if err := s.CreateRun(ctx, &Run{SessionID: sess.ID, Provider: "fake"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.CreateSession(ctx, &Session{Title: "mine"}); err != nil {
		t.Fatal(err)
	}

	at := time.Now()
	if err := s.RemoveStudent(ctx, bo.ID, at); err != nil {
		t.Fatal(err)
	}
	got, err := s.StudentByTokenHash(ctx, "hb")
	if err != nil || got.RemovedAt == nil || got.Name != "Bo" {
		t.Errorf("removed student: %+v, %v", got, err)
	}
	if _, err := s.StudentByTokenHash(ctx, "zz"); !errors.Is(err, ErrNotFound) {
		t.Errorf("unknown token: %v", err)
	}
	sts, err := s.ListStudents(ctx, c.ID)
	if err != nil || len(sts) != 2 || sts[0].ID != ana.ID || sts[0].RemovedAt != nil {
		t.Errorf("students: %+v, %v", sts, err)
	}

	c.Paused, c.Spotlight, c.Assignment = true, "run1", `{"prompt":"p"}`
	end := now()
	c.EndedAt = &end
	if err := s.UpdateClass(ctx, c); err != nil {
		t.Fatal(err)
	}
	back, err := s.GetClass(ctx, c.ID)
	if err != nil || !back.Paused || back.Spotlight != "run1" || back.Limits != `{"max_iterations":3}` || back.EndedAt == nil || !back.EndedAt.Equal(end) {
		t.Errorf("class read back: %+v, %v", back, err)
	}
	list, err := s.ListClasses(ctx)
	if err != nil || len(list) != 1 || list[0].Students != 2 || list[0].Runs != 2 {
		t.Errorf("classes: %+v, %v", list, err)
	}
	css, err := s.ClassSessions(ctx, c.ID)
	if err != nil || len(css) != 2 || css[0].StudentID != ana.ID {
		t.Errorf("class sessions: %+v, %v", css, err)
	}
	runs, err := s.ClassRuns(ctx, c.ID)
	if err != nil || len(runs) != 2 {
		t.Errorf("class runs: %+v, %v", runs, err)
	}
	o, err := s.RunOwner(ctx, runs[1].ID)
	if err != nil || o.StudentID != bo.ID || o.ClassID != c.ID {
		t.Errorf("run owner: %+v, %v", o, err)
	}
	if _, err := s.RunOwner(ctx, "nope"); !errors.Is(err, ErrNotFound) {
		t.Errorf("owner of no run: %v", err)
	}
	all, _ := s.ListSessions(ctx, ListOptions{})
	onlyClass, _ := s.ListSessions(ctx, ListOptions{ClassID: c.ID})
	if len(all) != 3 || len(onlyClass) != 2 {
		t.Errorf("%d sessions in all, %d in the class", len(all), len(onlyClass))
	}
	if q, _ := s.ListSessions(ctx, ListOptions{Query: "ana", StudentID: ana.ID}); len(q) != 1 {
		t.Errorf("query within a student's sessions: %+v", q)
	}
}
