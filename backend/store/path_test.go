package store

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/loopforge/loopforge/backend/event"
)

// TestClassAssignments: a class's assignments come back oldest first (a
// cleared one as an empty prompt), another class's are not mixed in, and
// an assignment of no class is refused.
func TestClassAssignments(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	a, b := &Class{Name: "A"}, &Class{Name: "B"}
	for _, c := range []*Class{a, b} {
		if err := s.CreateClass(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	t0 := time.Date(2026, 11, 27, 13, 0, 0, 0, time.UTC)
	for i, x := range []ClassAssignment{
		{ClassID: a.ID, SetAt: t0.Add(2 * time.Minute), Prompt: ""},
		{ClassID: a.ID, SetAt: t0, Title: "Exercício 1", Prompt: "Imprima olá"},
		{ClassID: b.ID, SetAt: t0.Add(time.Minute), Title: "other", Prompt: "x"},
	} {
		if err := s.AddClassAssignment(ctx, x); err != nil {
			t.Fatalf("assignment %d: %v", i, err)
		}
	}
	got, err := s.ClassAssignments(ctx, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Title != "Exercício 1" || !got[0].SetAt.Equal(t0) || got[1].Prompt != "" || !got[1].SetAt.Equal(t0.Add(2*time.Minute)) {
		t.Errorf("class A's assignments: %+v", got)
	}
	if err := s.AddClassAssignment(ctx, ClassAssignment{ClassID: "nope", Prompt: "x"}); !errors.Is(err, ErrNotFound) {
		t.Errorf("an assignment of no class: %v", err)
	}
}

// TestRunSteps: only the events that time iterations and carry usage come
// back, in order; the token deltas do not.
func TestRunSteps(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	sess := &Session{Title: "t"}
	if err := s.CreateSession(ctx, sess); err != nil {
		t.Fatal(err)
	}
	run := &Run{SessionID: sess.ID, Provider: "fake"}
	if err := s.CreateRun(ctx, run); err != nil {
		t.Fatal(err)
	}
	kinds := []event.Kind{event.RunStarted, event.IterationStarted, event.Token, event.Token, event.Generated,
		event.ExecStarted, event.ExecFinished, event.IterationDone, event.Reflection, event.IterationStarted, event.RunFinished}
	for i, k := range kinds {
		e := event.New(k, event.IterationPayload{Iteration: 1})
		e.RunID, e.Seq, e.TS = run.ID, int64(i+1), time.Now()
		if err := s.AppendEvent(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.RunSteps(ctx, run.ID)
	if err != nil {
		t.Fatal(err)
	}
	var seqs []int64
	for _, e := range got {
		seqs = append(seqs, e.Seq)
	}
	want := []int64{2, 5, 8, 9, 10, 11}
	if len(seqs) != len(want) {
		t.Fatalf("steps: %v, want seqs %v", seqs, want)
	}
	for i := range want {
		if seqs[i] != want[i] {
			t.Fatalf("steps: %v, want seqs %v", seqs, want)
		}
	}
}
