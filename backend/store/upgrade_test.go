package store

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/loopforge/loopforge/backend/event"
)

// TestUpgradeFrom0003 opens a history written by the release at schema 0003
// (testdata/history-0003.db, made with that release's store) and reads it
// back: the migrations apply, the session kinds follow the old rule (a
// workspace session, or a comparison whose runs recorded a patch) and the
// run statuses are the ones written.
func TestUpgradeFrom0003(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("testdata", "history-0003.db"))
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

	wantKind := map[string]event.Mode{
		"sess-script":         event.ModeScript,
		"sess-workspace":      event.ModeWorkspace,
		"sess-compare-ws":     event.ModeWorkspace,
		"sess-compare-script": event.ModeScript,
	}
	wantStatus := map[string]event.RunStatus{
		"run-script":    event.RunStatusSuccess,
		"run-followup":  event.RunStatusLimitReached,
		"run-workspace": event.RunStatusCancelled,
		"run-cmp-ws-a":  event.RunStatusSuccess,
		"run-cmp-ws-b":  event.RunStatusError,
		"run-cmp-a":     event.RunStatusSuccess,
		"run-cmp-b":     event.RunStatusRunning,
	}
	list, err := s.ListSessions(ctx, ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != len(wantKind) {
		t.Fatalf("%d sessions, want %d", len(list), len(wantKind))
	}
	runs := 0
	for _, sum := range list {
		if sum.Kind != wantKind[sum.ID] {
			t.Errorf("session %s (mode %s): kind %q in the list, want %q", sum.ID, sum.Mode, sum.Kind, wantKind[sum.ID])
		}
		for _, r := range sum.Runs {
			runs++
			if r.Status != wantStatus[r.ID] {
				t.Errorf("run %s: status %q in the list, want %q", r.ID, r.Status, wantStatus[r.ID])
			}
		}
		sess, err := s.GetSession(ctx, sum.ID)
		if err != nil {
			t.Fatal(err)
		}
		if sess.Kind != wantKind[sess.ID] || sess.Mode != sum.Mode {
			t.Errorf("session %s: kind %q mode %q, want %q %q", sess.ID, sess.Kind, sess.Mode, wantKind[sess.ID], sum.Mode)
		}
		for _, r := range sess.Runs {
			if r.Status != wantStatus[r.ID] {
				t.Errorf("run %s: status %q, want %q", r.ID, r.Status, wantStatus[r.ID])
			}
			if r.Stdin != "" { // runs before the stdin column gave their code none
				t.Errorf("run %s: stdin %q, want none", r.ID, r.Stdin)
			}
		}
	}
	if runs != len(wantStatus) {
		t.Errorf("%d runs, want %d", runs, len(wantStatus))
	}

	// The run a crash left running is still found, and new sessions get
	// a kind.
	if owners, err := s.RunningOwners(ctx); err != nil || len(owners) != 1 || owners[0] != "" {
		t.Errorf("running owners %q, %v; want the one unknown owner", owners, err)
	}
	fresh := &Session{Title: "t", Mode: "compare", Kind: event.ModeWorkspace}
	if err := s.CreateSession(ctx, fresh); err != nil {
		t.Fatal(err)
	}
	if got, err := s.GetSession(ctx, fresh.ID); err != nil || got.Kind != event.ModeWorkspace {
		t.Errorf("new session: %+v, %v", got, err)
	}
	if err := s.CreateSession(ctx, &Session{Title: "bad", Kind: "notebook"}); err == nil {
		t.Error("a kind outside script and workspace was stored")
	}
}
