package store

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/loopforge/loopforge/backend/event"
)

// openTest opens a fresh database file in a temporary directory and closes
// it when the test ends.
func openTest(t testing.TB) *Store {
	t.Helper()
	s, err := Open(context.Background(), filepath.Join(t.TempDir(), "history.db"))
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return s
}

// seed creates a session with one run and returns both.
func seed(t testing.TB, s *Store) (*Session, *Run) {
	t.Helper()
	ctx := context.Background()
	sess := &Session{Title: "t", Prompt: "p", Mode: "script"}
	if err := s.CreateSession(ctx, sess); err != nil {
		t.Fatal(err)
	}
	run := &Run{SessionID: sess.ID, Provider: "fake"}
	if err := s.CreateRun(ctx, run); err != nil {
		t.Fatal(err)
	}
	return sess, run
}

func count(t *testing.T, s *Store, query string, args ...any) int {
	t.Helper()
	var n int
	if err := s.r.QueryRow(query, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

func TestOpenCreatesDirAndSetsPragmas(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "nested", "deeper")
	s, err := Open(context.Background(), filepath.Join(dir, "history.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()

	fi, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	// Windows has no mode bits (the directory is private by its ACL, in
	// the user's own profile).
	if perm := fi.Mode().Perm(); perm != 0o700 && runtime.GOOS != "windows" {
		t.Errorf("dir mode = %o, want 700", perm)
	}

	for _, c := range []struct {
		db     *sql.DB
		pragma string
		want   string
	}{
		{s.w, "journal_mode", "wal"},
		{s.w, "foreign_keys", "1"},
		{s.w, "busy_timeout", "5000"},
		{s.w, "synchronous", "1"}, // NORMAL
		{s.r, "journal_mode", "wal"},
		{s.r, "foreign_keys", "1"},
		{s.r, "busy_timeout", "5000"},
		{s.r, "query_only", "1"},
	} {
		var got string
		if err := c.db.QueryRow("PRAGMA " + c.pragma).Scan(&got); err != nil {
			t.Fatalf("PRAGMA %s: %v", c.pragma, err)
		}
		if got != c.want {
			t.Errorf("PRAGMA %s = %q, want %q", c.pragma, got, c.want)
		}
	}

	// The read pool must refuse writes, so nothing bypasses the one writer.
	if _, err := s.r.Exec(`DELETE FROM sessions`); err == nil {
		t.Error("write through the read pool succeeded")
	}
}

func TestOpenRejectsNonFilePaths(t *testing.T) {
	for _, p := range []string{"", ":memory:", "file:x.db", filepath.Join(t.TempDir(), "a?b.db")} {
		if s, err := Open(context.Background(), p); err == nil {
			s.Close()
			t.Errorf("Open(%q) succeeded", p)
		}
	}
}

func TestMigrationsIdempotentOnReopen(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "history.db")
	ms, err := loadMigrations()
	if err != nil {
		t.Fatal(err)
	}

	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	sess := &Session{Title: "kept"}
	if err := s.CreateSession(ctx, sess); err != nil {
		t.Fatal(err)
	}
	if got := count(t, s, `SELECT count(*) FROM schema_migrations`); got != len(ms) {
		t.Errorf("schema_migrations rows = %d, want %d", got, len(ms))
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	for range 2 {
		s, err = Open(ctx, path)
		if err != nil {
			t.Fatalf("reopen: %v", err)
		}
		if got := count(t, s, `SELECT count(*) FROM schema_migrations`); got != len(ms) {
			t.Errorf("after reopen schema_migrations rows = %d, want %d", got, len(ms))
		}
		if _, err := s.GetSession(ctx, sess.ID); err != nil {
			t.Errorf("data lost on reopen: %v", err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

func TestOpenRefusesNewerSchema(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "history.db")
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.w.Exec(`INSERT INTO schema_migrations (version, name, applied_at) VALUES (999, 'future', '')`); err != nil {
		t.Fatal(err)
	}
	s.Close()

	if s, err := Open(ctx, path); err == nil {
		s.Close()
		t.Fatal("Open accepted a schema newer than the program")
	} else if !strings.Contains(err.Error(), "newer") {
		t.Errorf("err = %v, want it to say the schema is newer", err)
	}
}

func TestLoadMigrationsNumbering(t *testing.T) {
	ms, err := loadMigrations()
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) == 0 {
		t.Fatal("no migrations embedded")
	}
	for i, m := range ms {
		if m.version != i+1 || strings.TrimSpace(m.sql) == "" {
			t.Errorf("migration %d: %+v", i, m.name)
		}
	}
}

func TestDeleteSessionCascades(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	sess, run := seed(t, s)
	other, otherRun := seed(t, s) // must survive

	for _, r := range []*Run{run, otherRun} {
		if err := s.PutIteration(ctx, Iteration{RunID: r.ID, N: 1, Code: "print(1)"}); err != nil {
			t.Fatal(err)
		}
		if err := s.AppendMessage(ctx, Message{RunID: r.ID, Role: "user", Content: "hi"}); err != nil {
			t.Fatal(err)
		}
		if err := s.AppendEvent(ctx, testEvent(r.ID, 1)); err != nil {
			t.Fatal(err)
		}
	}

	if err := s.DeleteSession(ctx, sess.ID); err != nil {
		t.Fatal(err)
	}

	for _, c := range []struct{ table, where string }{
		{"sessions", "id = ?1"},
		{"session_search", "session_id = ?1"},
		{"runs", "session_id = ?1"},
		{"iterations", "run_id = ?2"},
		{"messages", "run_id = ?2"},
		{"events", "run_id = ?2"},
	} {
		if n := count(t, s, `SELECT count(*) FROM `+c.table+` WHERE `+c.where, sess.ID, run.ID); n != 0 {
			t.Errorf("%s: %d rows left after DeleteSession", c.table, n)
		}
		if n := count(t, s, `SELECT count(*) FROM `+c.table+` WHERE `+c.where, other.ID, otherRun.ID); n != 1 {
			t.Errorf("%s: other session has %d rows, want 1", c.table, n)
		}
	}

	if err := s.DeleteSession(ctx, sess.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("second delete: err = %v, want ErrNotFound", err)
	}
}

func TestNotFound(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	const missing = "nope-123"

	checks := map[string]func() error{
		"GetSession":     func() error { _, err := s.GetSession(ctx, missing); return err },
		"DeleteSession":  func() error { return s.DeleteSession(ctx, missing) },
		"GetRun":         func() error { _, err := s.GetRun(ctx, missing); return err },
		"ListRuns":       func() error { _, err := s.ListRuns(ctx, missing); return err },
		"UpdateRun":      func() error { return s.UpdateRun(ctx, &Run{ID: missing, Status: "success"}) },
		"CreateRun":      func() error { return s.CreateRun(ctx, &Run{SessionID: missing}) },
		"PutIteration":   func() error { return s.PutIteration(ctx, Iteration{RunID: missing, N: 1}) },
		"ListIterations": func() error { _, err := s.ListIterations(ctx, missing); return err },
		"AppendMessage":  func() error { return s.AppendMessage(ctx, Message{RunID: missing, Role: "user"}) },
		"ListMessages":   func() error { _, err := s.ListMessages(ctx, missing); return err },
		"AppendEvent":    func() error { return s.AppendEvent(ctx, testEvent(missing, 1)) },
		"AppendEvents":   func() error { return s.AppendEvents(ctx, []event.Event{testEvent(missing, 1)}) },
		"EventsAfter":    func() error { _, err := s.EventsAfter(ctx, missing, 0, 10); return err },
		"LastSeq":        func() error { _, err := s.LastSeq(ctx, missing); return err },
	}
	for name, call := range checks {
		t.Run(name, func(t *testing.T) {
			err := call()
			if !errors.Is(err, ErrNotFound) {
				t.Fatalf("err = %v, want ErrNotFound", err)
			}
			if !strings.Contains(err.Error(), missing) {
				t.Errorf("err %q does not name the id", err)
			}
			if !strings.HasPrefix(err.Error(), "store: ") {
				t.Errorf("err %q lacks the package prefix", err)
			}
		})
	}

	// Existing parents with no children yet are not "not found".
	_, run := seed(t, s)
	if _, err := s.ListIterations(ctx, run.ID); err != nil {
		t.Errorf("ListIterations of a fresh run: %v", err)
	}
	if _, err := s.ListMessages(ctx, run.ID); err != nil {
		t.Errorf("ListMessages of a fresh run: %v", err)
	}
	if evs, err := s.EventsAfter(ctx, run.ID, 0, 0); err != nil || len(evs) != 0 {
		t.Errorf("EventsAfter of a fresh run: %v, %v", evs, err)
	}
	if seq, err := s.LastSeq(ctx, run.ID); err != nil || seq != 0 {
		t.Errorf("LastSeq of a fresh run = %d, %v; want 0, nil", seq, err)
	}
	empty := &Session{Title: "empty"}
	if err := s.CreateSession(ctx, empty); err != nil {
		t.Fatal(err)
	}
	if runs, err := s.ListRuns(ctx, empty.ID); err != nil || len(runs) != 0 {
		t.Errorf("ListRuns of a session without runs = %v, %v", runs, err)
	}
}

func TestNewID(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	a, b := newIDAt(t0), newIDAt(t0.Add(time.Millisecond))
	if len(a) != 20 || len(b) != 20 {
		t.Fatalf("ids %q %q: want 20 characters", a, b)
	}
	if !(a < b) {
		t.Errorf("ids not time-ordered: %q !< %q", a, b)
	}
	if newIDAt(t0) == newIDAt(t0) { //nolint:staticcheck // SA4000: two calls, two random parts
		t.Error("two ids in the same millisecond are equal")
	}
	for _, r := range a {
		if !strings.ContainsRune(idAlphabet, r) {
			t.Errorf("id %q has %q outside the alphabet", a, r)
		}
	}
}
