package store

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// makeHistory writes a real history of n sessions with long prompts (so the
// file has many pages) and closes it, which checkpoints the WAL into the
// file and waits for the first backup.
func makeHistory(t *testing.T, n int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "history.db")
	s, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		sess := &Session{Title: "t", Prompt: strings.Repeat("write a program ", 150) + string(rune('a'+i%26)), Mode: "script"}
		if err := s.CreateSession(context.Background(), sess); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path + "-wal"); err == nil {
		t.Fatal("the WAL was not checkpointed on close")
	}
	return path
}

// damageMiddlePage writes zeros over a page in the middle of the file: a
// leaf of the sessions table, found with SQLite's dbstat table.
func damageMiddlePage(t *testing.T, path string) {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	var pages []int
	rows, err := db.Query(`SELECT pageno FROM dbstat WHERE name = 'sessions' AND pagetype = 'leaf' ORDER BY pageno`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var p int
		if err := rows.Scan(&p); err != nil {
			t.Fatal(err)
		}
		pages = append(pages, p)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if len(pages) < 5 {
		t.Fatalf("history too small to damage: %d leaves", len(pages))
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	const pageSize = 4096
	mid := pages[len(pages)/2] - 1 // pages count from 1
	copy(b[mid*pageSize:(mid+1)*pageSize], make([]byte, pageSize))
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

func wantCorrupt(t *testing.T, err error, path string, damage Damage) *CorruptError {
	t.Helper()
	var ce *CorruptError
	if !errors.As(err, &ce) {
		t.Fatalf("Open = %v, want a *CorruptError", err)
	}
	if ce.Path != path || ce.Damage != damage {
		t.Fatalf("CorruptError{Path: %q, Damage: %q}, want %q, %q", ce.Path, ce.Damage, path, damage)
	}
	msg := ce.Error()
	for _, want := range []string{path, "left as it is", "To start a fresh history, move " + path} {
		if !strings.Contains(msg, want) {
			t.Errorf("message lacks %q: %s", want, msg)
		}
	}
	if strings.Contains(msg, "\n") {
		t.Errorf("message is not one line: %q", msg)
	}
	return ce
}

func unchanged(t *testing.T, path string, before []byte) {
	t.Helper()
	after, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(before, after) {
		t.Error("the damaged history file was modified")
	}
}

func TestOpenGarbageFileIsCorrupt(t *testing.T) {
	path := filepath.Join(t.TempDir(), "history.db")
	garbage := bytes.Repeat([]byte("these are not the pages of a database\n"), 300)
	if err := os.WriteFile(path, garbage, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Open(context.Background(), path)
	ce := wantCorrupt(t, err, path, DamageNotADatabase)
	if ce.Backup != "" || !strings.Contains(ce.Error(), "There is no backup") {
		t.Errorf("no backup exists, yet: %s", ce.Error())
	}
	unchanged(t, path, garbage)
}

func TestOpenTruncatedHistoryIsCorrupt(t *testing.T) {
	path := makeHistory(t, 60)
	b, _ := os.ReadFile(path)
	half := b[:len(b)/2]
	if err := os.WriteFile(path, half, 0o600); err != nil {
		t.Fatal(err)
	}
	os.Remove(checkedFile(path)) // the day's check is due
	_, err := Open(context.Background(), path)
	var ce *CorruptError
	if !errors.As(err, &ce) {
		t.Fatalf("Open = %v, want a *CorruptError", err)
	}
	if ce.Backup == "" || ce.Backup != newestBackup(path) || !strings.Contains(ce.Error(), "The newest backup is "+ce.Backup) {
		t.Errorf("the message does not name the newest backup (%q): %s", newestBackup(path), ce.Error())
	}
	unchanged(t, path, half)
}

// TestQuickCheckRunsOnSchedule: a page of zeros in the middle of a history
// is not met by opening it; the day's quick_check finds it, and only when
// it is due. Damage met later by a read is told the same way.
func TestQuickCheckRunsOnSchedule(t *testing.T) {
	ctx := context.Background()
	path := makeHistory(t, 60)
	damageMiddlePage(t, path)
	damaged, _ := os.ReadFile(path)

	// Checked less than a day ago: this open does not read every page.
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatalf("Open with the check not due: %v", err)
	}
	_, err = s.ListSessions(ctx, ListOptions{})
	var ce *CorruptError
	if !errors.As(err, &ce) || ce.Damage != DamageMalformed {
		t.Errorf("reading the damaged sessions = %v, want a *CorruptError (malformed)", err)
	}
	s.Close()

	// A day later the check is due and fails.
	old := time.Now().Add(-checkEvery - time.Minute).UTC().Format(time.RFC3339Nano)
	if err := os.WriteFile(checkedFile(path), []byte(old), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = Open(ctx, path)
	ce = wantCorrupt(t, err, path, DamageCheckFailed)
	if !strings.HasPrefix(ce.Detail, "quick_check: ") || ce.Backup == "" {
		t.Errorf("Detail %q, Backup %q", ce.Detail, ce.Backup)
	}
	unchanged(t, path, damaged)
	if got := lastChecked(path).Format(time.RFC3339Nano); got != old {
		t.Errorf("a failed check was recorded as passed: %s", got)
	}
}

func TestOpenEmptyFile(t *testing.T) {
	t.Run("new history", func(t *testing.T) {
		// What a first start that died before its first write leaves.
		path := filepath.Join(t.TempDir(), "history.db")
		if err := os.WriteFile(path, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		s, err := Open(context.Background(), path)
		if err != nil {
			t.Fatalf("Open of an empty file with no history beside it: %v", err)
		}
		s.Close()
	})
	t.Run("history was there", func(t *testing.T) {
		path := makeHistory(t, 3)
		if err := os.Truncate(path, 0); err != nil {
			t.Fatal(err)
		}
		_, err := Open(context.Background(), path)
		ce := wantCorrupt(t, err, path, DamageEmpty)
		if ce.Backup == "" {
			t.Error("the message names no backup")
		}
		unchanged(t, path, nil)
	})
}

func countSessions(t *testing.T, path string) int {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var ok string
	if err := db.QueryRow("PRAGMA integrity_check").Scan(&ok); err != nil || ok != "ok" {
		t.Fatalf("backup %s: integrity_check = %q, %v", path, ok, err)
	}
	var n int
	if err := db.QueryRow("SELECT count(*) FROM sessions").Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestBackupMadeAndRotated(t *testing.T) {
	ctx := context.Background()
	path := makeHistory(t, 5)
	bs := backups(path)
	if len(bs) != 1 {
		t.Fatalf("after the first open: %d backups, want 1", len(bs))
	}
	// Taken in the background while the sessions were written: a sound copy
	// of some moment of it.
	if n := countSessions(t, bs[0].path); n > 5 {
		t.Errorf("first backup has %d sessions of 5", n)
	}

	// Not due again the same day.
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if s.backupDone != nil {
		t.Error("a second backup was started the same day")
	}
	s.Close()

	// Four older backups, the newest two days old: one is due, and after it
	// only the newest three are kept.
	first, err := os.ReadFile(bs[0].path)
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(bs[0].path)
	var olds []string // newest first
	for days := 2; days <= 5; days++ {
		name := filepath.Join(BackupDir(path), "history-"+time.Now().AddDate(0, 0, -days).UTC().Format(backupStamp)+".db")
		if err := os.WriteFile(name, first, 0o600); err != nil {
			t.Fatal(err)
		}
		olds = append(olds, name)
	}
	if got := len(backups(path)); got != 4 {
		t.Fatalf("set up %d backups, want 4", got)
	}

	s, err = Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if s.backupDone == nil {
		t.Fatal("no backup started with the newest two days old")
	}
	<-s.backupDone
	s.Close()

	bs = backups(path)
	if len(bs) != keepBackups {
		t.Fatalf("%d backups kept, want %d", len(bs), keepBackups)
	}
	if bs[0].path != olds[1] || bs[1].path != olds[0] {
		t.Errorf("kept %v, want the two newest old ones and the new one", bs)
	}
	if n := countSessions(t, bs[2].path); n != 5 {
		t.Errorf("new backup has %d sessions, want 5", n)
	}
	if fi, _ := os.Stat(bs[2].path); fi.Mode().Perm()&0o077 != 0 && filepath.Separator == '/' {
		t.Errorf("backup mode %v: others can read the history", fi.Mode())
	}
	if tmps, _ := filepath.Glob(filepath.Join(BackupDir(path), "*.tmp")); len(tmps) > 0 {
		t.Errorf("temporary files left: %v", tmps)
	}
}

// TestBackupWhileWriting: a backup taken while another connection keeps
// writing is a consistent copy holding at least what was committed before
// it began.
func TestBackupWhileWriting(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "history.db")
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.backupDone != nil {
		<-s.backupDone
	}
	for _, b := range backups(path) {
		os.Remove(b.path) // so that one is due again
	}

	var written atomic.Int64
	stop, fifty := make(chan struct{}), make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			if err := s.CreateSession(ctx, &Session{Title: "w", Prompt: strings.Repeat("p", 2000), Mode: "script"}); err != nil {
				t.Error(err)
				return
			}
			if written.Add(1) == 50 {
				close(fifty)
			}
		}
	}()
	select {
	case <-fifty:
	case <-time.After(time.Minute):
		t.Fatal("the writer did not commit 50 sessions")
	}
	before := written.Load()
	got, err := backup(ctx, path)
	close(stop)
	wg.Wait()
	if err != nil || got == "" {
		t.Fatalf("backup = %q, %v", got, err)
	}
	n := countSessions(t, got)
	if int64(n) < before || int64(n) > written.Load() {
		t.Errorf("backup has %d sessions; %d were committed before it and %d in all", n, before, written.Load())
	}
}

// TestBackupLockedByAnotherProcess: while another process holds the backup
// lock, no second backup is made; a lock left by a dead process is taken
// over once stale.
func TestBackupLockedByAnotherProcess(t *testing.T) {
	ctx := context.Background()
	path := makeHistory(t, 1)
	for _, b := range backups(path) {
		os.Remove(b.path)
	}
	if err := os.WriteFile(lockFile(path), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if got, err := backup(ctx, path); got != "" || err != nil {
		t.Fatalf("backup under another's lock = %q, %v", got, err)
	}
	stale := time.Now().Add(-staleAfter - time.Minute)
	if err := os.Chtimes(lockFile(path), stale, stale); err != nil {
		t.Fatal(err)
	}
	if got, err := backup(ctx, path); got == "" || err != nil {
		t.Fatalf("backup after a stale lock = %q, %v", got, err)
	}
	if _, err := os.Stat(lockFile(path)); err == nil {
		t.Error("lock left behind")
	}
}
