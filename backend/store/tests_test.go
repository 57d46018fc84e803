package store

import (
	"context"
	"testing"
	"time"

	"github.com/loopforge/loopforge/backend/event"
)

// A run keeps its tests and how its last program fared, and statistics
// read them.
func TestRunKeepsItsTests(t *testing.T) {
	s := openTest(t)
	ctx := context.Background()
	sess := &Session{Title: "sum", Prompt: "sum", Mode: "script"}
	if err := s.CreateSession(ctx, sess); err != nil {
		t.Fatal(err)
	}
	suite := "tests:\n  - expected: \"5\"\n    stdin: 2 3\n"
	r := &Run{SessionID: sess.ID, Provider: "p", Tests: suite}
	if err := s.CreateRun(ctx, r); err != nil {
		t.Fatal(err)
	}
	done := time.Now()
	r.Status, r.FinishedAt, r.TestsPassed, r.TestsTotal = event.RunStatusLimitReached, &done, 3, 4
	if err := s.UpdateRun(ctx, r); err != nil {
		t.Fatal(err)
	}
	got, err := s.GetRun(ctx, r.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Tests != suite || got.TestsPassed != 3 || got.TestsTotal != 4 {
		t.Fatalf("run %+v", got)
	}
	facts, err := s.RunFacts(ctx)
	if err != nil || len(facts) != 1 || facts[0].TestsPassed != 3 || facts[0].TestsTotal != 4 {
		t.Fatalf("facts %+v %v", facts, err)
	}
}
