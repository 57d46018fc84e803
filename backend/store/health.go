package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// The history's health: a quick check of its pages and a backup, each at
// most once a day, kept in backups/ beside the history file:
//
//	backups/history.checked                  when quick_check last passed
//	backups/history-20260102T150405.…Z.db    the backups, newest last by name
//	backups/history.lock                     a backup under way (any process)
//
// Both are done by Open, not by each command: quick_check reads every page,
// which is cheap once a day and too slow for each `loopforge sessions`.
const (
	checkEvery  = 24 * time.Hour
	backupEvery = 24 * time.Hour
	keepBackups = 3
	// backupWait bounds how long Close waits for a backup under way before it
	// cancels it; a short-lived command would otherwise never finish one.
	backupWait = 30 * time.Second
	// staleAfter: a lock or temporary file this old was left by a process
	// that died mid-backup.
	staleAfter = time.Hour
	// backupStamp is fixed-width, so names sort in time order.
	backupStamp = "20060102T150405.000000000Z"
)

// BackupDir is the folder where the backups of the history at path are kept.
func BackupDir(path string) string { return filepath.Join(filepath.Dir(path), "backups") }

// stem is the history file's name without its extension ("history").
func stem(path string) string {
	base := filepath.Base(path)
	return strings.TrimSuffix(base, filepath.Ext(base))
}

func checkedFile(path string) string { return filepath.Join(BackupDir(path), stem(path)+".checked") }
func lockFile(path string) string    { return filepath.Join(BackupDir(path), stem(path)+".lock") }

type backupFile struct {
	path string
	at   time.Time
}

// backups lists the backups of the history at path, oldest first.
func backups(path string) []backupFile {
	entries, err := os.ReadDir(BackupDir(path))
	if err != nil {
		return nil
	}
	prefix := stem(path) + "-"
	var out []backupFile
	for _, e := range entries {
		name := e.Name()
		stamp, ok := strings.CutPrefix(name, prefix)
		if !ok || !strings.HasSuffix(stamp, ".db") || !e.Type().IsRegular() {
			continue
		}
		at, err := time.Parse(backupStamp, strings.TrimSuffix(stamp, ".db"))
		if err != nil {
			continue
		}
		out = append(out, backupFile{path: filepath.Join(BackupDir(path), name), at: at})
	}
	slices.SortFunc(out, func(a, b backupFile) int { return a.at.Compare(b.at) })
	return out
}

// newestBackup is the path of the newest backup, "" when there is none.
func newestBackup(path string) string {
	bs := backups(path)
	if len(bs) == 0 {
		return ""
	}
	return bs[len(bs)-1].path
}

// due reports whether a thing last done at last (zero: never) is due again.
// A time in the future (a clock set back) counts as due.
func due(last time.Time, every time.Duration) bool {
	d := time.Since(last)
	return last.IsZero() || d < 0 || d >= every
}

func lastChecked(path string) time.Time {
	b, err := os.ReadFile(checkedFile(path))
	if err != nil {
		return time.Time{}
	}
	t, err := time.Parse(time.RFC3339Nano, strings.TrimSpace(string(b)))
	if err != nil {
		return time.Time{} // torn or edited: check again
	}
	return t
}

func lastBackup(path string) time.Time {
	bs := backups(path)
	if len(bs) == 0 {
		return time.Time{}
	}
	return bs[len(bs)-1].at
}

// quickCheck runs PRAGMA quick_check on db (the history at path): every
// page and record is read and checked, though not that indexes match their
// tables (integrity_check's slow part).
func quickCheck(ctx context.Context, db *sql.DB, path string) error {
	var first string
	if err := db.QueryRowContext(ctx, "PRAGMA quick_check(1)").Scan(&first); err != nil {
		return corrupt(path, err)
	}
	if first != "ok" {
		// One finding, on one line: "*** in database main ***\nTree 8 page
		// 100: …" becomes "Tree 8 page 100: …".
		first = strings.Join(strings.Fields(strings.ReplaceAll(first, "*** in database main ***", "")), " ")
		return &CorruptError{Path: path, Damage: DamageCheckFailed, Backup: newestBackup(path), Detail: "quick_check: " + first}
	}
	return nil
}

// checkIfDue runs quickCheck when a day has passed since the last that
// passed, and records a pass. Several processes may check at once; each only
// reads, and the record is one timestamp.
func checkIfDue(ctx context.Context, db *sql.DB, path string) error {
	if !due(lastChecked(path), checkEvery) {
		return nil
	}
	if err := quickCheck(ctx, db, path); err != nil {
		return err
	}
	if err := os.MkdirAll(BackupDir(path), 0o700); err == nil {
		err = os.WriteFile(checkedFile(path), []byte(now().Format(time.RFC3339Nano)+"\n"), 0o600)
		if err != nil {
			slog.Warn("recording the history's check", "err", err)
		}
	}
	return nil
}

// startBackup backs the history up in the background when a day has passed
// since the newest backup. Close waits for it (up to backupWait).
func (s *Store) startBackup() {
	if !due(lastBackup(s.path), backupEvery) {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	s.stopBackup = cancel
	s.backupDone = make(chan struct{})
	go func() {
		defer close(s.backupDone)
		if _, err := backup(ctx, s.path); err != nil && ctx.Err() == nil {
			slog.Warn("backing up the history", "path", s.path, "err", err)
		}
	}()
}

// waitBackup waits for a backup under way, cancelling it after backupWait.
func (s *Store) waitBackup() {
	if s.backupDone == nil {
		return
	}
	t := time.NewTimer(backupWait)
	defer t.Stop()
	select {
	case <-s.backupDone:
	case <-t.C:
		s.stopBackup()
		<-s.backupDone
	}
	s.stopBackup()
}

// backup copies the history at path into a new file in BackupDir and
// deletes all but the newest keepBackups; it returns the new file's path,
// "" when another process was making one.
//
// The copy is VACUUM INTO on a connection of its own: one read transaction,
// so it is a consistent snapshot while other connections and processes keep
// writing (WAL), and it is never restarted by their writes as the online
// backup API's incremental steps are. It is written to a temporary file,
// checked with quick_check, and only then renamed to its final name, so a
// reader of backups/ never sees a partial or damaged copy, and the rotation
// never pushes a good backup out for a bad one. A lock file keeps two
// processes from backing up at the same moment.
func backup(ctx context.Context, path string) (string, error) {
	dir := BackupDir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	unlock, ok, err := lockBackup(path)
	if err != nil || !ok {
		return "", err
	}
	defer unlock()
	if !due(lastBackup(path), backupEvery) { // another process just made one
		return "", nil
	}

	f, err := os.CreateTemp(dir, stem(path)+"-*.tmp") // mode 0600: the history holds prompts and code
	if err != nil {
		return "", err
	}
	tmp := f.Name()
	_ = f.Close()
	defer os.Remove(tmp) //nolint:errcheck // gone after the rename

	// VACUUM INTO accepts an existing file only when it is empty, as tmp is
	// (again, when a busy file made withDB try once more).
	if err := withDB(ctx, path, func(db *sql.DB) error {
		if err := os.Truncate(tmp, 0); err != nil {
			return err
		}
		_, err := db.ExecContext(ctx, "VACUUM INTO ?", tmp)
		return err
	}); err != nil {
		return "", fmt.Errorf("copy: %w", corrupt(path, err))
	}
	if err := withDB(ctx, tmp, func(db *sql.DB) error { return quickCheck(ctx, db, tmp) }); err != nil {
		return "", fmt.Errorf("check the copy: %w", err)
	}
	final := filepath.Join(dir, stem(path)+"-"+now().Format(backupStamp)+".db")
	if err := os.Rename(tmp, final); err != nil {
		return "", err
	}
	prune(path)
	return final, nil
}

func withDB(ctx context.Context, path string, fn func(*sql.DB) error) error {
	db, err := sql.Open("sqlite", path+"?_pragma=busy_timeout(5000)")
	if err != nil {
		return err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	return retryBusy(ctx, openWait, func() error { return fn(db) })
}

// lockBackup takes the backup lock of path: ok is false when another process
// holds it. A lock older than staleAfter was left by a process that died
// and is taken over.
func lockBackup(path string) (unlock func(), ok bool, err error) {
	name := lockFile(path)
	for range 2 {
		f, err := os.OpenFile(name, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
		if err == nil {
			_ = f.Close()
			return func() { _ = os.Remove(name) }, true, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, false, err
		}
		fi, err := os.Stat(name)
		if err != nil || time.Since(fi.ModTime()) < staleAfter {
			return nil, false, nil
		}
		_ = os.Remove(name)
	}
	return nil, false, nil
}

// prune deletes all but the newest keepBackups backups of path, and the
// temporary files of backups that died half-way.
func prune(path string) {
	bs := backups(path)
	for _, b := range bs[:max(0, len(bs)-keepBackups)] {
		if err := os.Remove(b.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			slog.Warn("removing an old backup", "path", b.path, "err", err)
		}
	}
	tmps, _ := filepath.Glob(filepath.Join(BackupDir(path), stem(path)+"-*.tmp"))
	for _, t := range tmps {
		if fi, err := os.Stat(t); err == nil && time.Since(fi.ModTime()) > staleAfter {
			_ = os.Remove(t)
		}
	}
}
