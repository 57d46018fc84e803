package store

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"testing"
	"time"
)

// holdExclusive opens path as another program could, in exclusive locking
// mode, and writes once so it holds the file until release is called. In WAL
// mode SQLite answers every other connection SQLITE_BUSY at once while that
// lock is held — the same answer a process gets when it opens the history
// while another is closing it last (which is too short to stage reliably).
func holdExclusive(t *testing.T, path string) (release func()) {
	t.Helper()
	db, err := sql.Open("sqlite", path+"?_pragma=locking_mode(EXCLUSIVE)")
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	if _, err := db.Exec(`INSERT INTO schema_migrations (version, name, applied_at)
		SELECT version + 1000, name, applied_at FROM schema_migrations WHERE version = 1`); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`DELETE FROM schema_migrations WHERE version > 1000`); err != nil {
		t.Fatal(err)
	}
	return func() { db.Close() }
}

func TestOpenWaitsOutABusyFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "history.db")
	s, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	release := holdExclusive(t, path)

	// Open keeps trying while the file is held: it ends with the context,
	// and the error says both why it stopped and what SQLite answered.
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	_, busyErr := Open(ctx, path)
	if !errors.Is(busyErr, context.DeadlineExceeded) || !isBusy(busyErr) {
		t.Fatalf("Open on a held file: %v; want the context's end wrapping SQLITE_BUSY", busyErr)
	}

	// Without a deadline it gives up after its own wait, with ErrLocked.
	err = retryBusy(context.Background(), 50*time.Millisecond, func() error { return busyErr })
	if !errors.Is(err, ErrLocked) || !isBusy(err) {
		t.Fatalf("retryBusy on a lasting busy answer: %v; want ErrLocked wrapping SQLITE_BUSY", err)
	}
	// Anything else is returned as it is, at once.
	other := errors.New("disk on fire")
	if err := retryBusy(context.Background(), time.Hour, func() error { return other }); err != other {
		t.Fatalf("retryBusy passed %v for %v", err, other)
	}

	// Once the holder lets go, the history opens and is whole.
	done := make(chan error, 1)
	go func() {
		s, err := Open(context.Background(), path)
		if err == nil {
			err = s.Close()
		}
		done <- err
	}()
	release()
	if err := <-done; err != nil {
		t.Fatalf("Open after the lock was released: %v", err)
	}
}
