// Package store keeps loopforge's history in one SQLite file: sessions, their
// runs (one per provider), each run's iterations, message thread and numbered
// event stream.
//
// Contract:
//
//   - A *Store is safe for concurrent use by any number of goroutines. Open it
//     once per process and share it; Close it once, after every caller is done.
//   - Writes go through a single connection and so are serialised in-process;
//     reads use a separate pool and run in parallel with writes (WAL lets
//     readers see the last committed state while a write is in progress).
//   - Every method returns once its change is committed (durable up to
//     synchronous=NORMAL: a power loss may drop the last commits, never corrupt
//     the file). The service relies on this to persist an event (and the
//     token events before it) before it fans the event out.
//   - Lookups of a missing id return an error wrapping ErrNotFound; writes that
//     would duplicate a key (an event seq, a message seq) wrap ErrDuplicate.
//     Errors name the operation and the id ("store: get run %q: ...").
//   - The store does not interpret statuses beyond event.RunStatusRunning and
//     event.RunStatusInterrupted, which MarkInterrupted needs.
//   - Several processes may open the same file at once (the desktop window,
//     `loopforge run`, `loopforge serve`). Each run records its owner; a
//     process recovers only the runs of owners it found gone
//     (RunningOwners, then MarkInterrupted).
//
// All SQL of loopforge lives in this package. The schema evolves through the
// numbered, one-way migrations in migrations/, applied by Open.
package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// ErrNotFound is wrapped by errors for ids that do not exist.
var ErrNotFound = errors.New("not found")

// ErrDuplicate is wrapped by errors for writes that would repeat a key, such
// as an event seq already stored for the run.
var ErrDuplicate = errors.New("already exists")

// Store is the history database. See the package comment for its contract.
type Store struct {
	// w is the only connection that writes. SQLite allows one writer at a time
	// per file anyway; with several write connections in one process they
	// would contend through busy_timeout's sleep-and-retry, which is unfair and
	// adds latency. One connection makes Go's pool the queue instead: FIFO-ish,
	// no SQLITE_BUSY, no wasted sleeps. busy_timeout still matters for other
	// processes (a second loopforge, the sqlite3 shell).
	w *sql.DB
	// r serves reads: several connections so a long replay of events does not
	// wait behind the writer, nor the writer behind it. Its connections are
	// query_only, so a write sent here by mistake fails instead of bypassing
	// the single-writer rule.
	r *sql.DB
	// ws are the statements every run writes, prepared once on w.
	ws writeStmts

	path string
	// backupDone is closed when the backup started by Open ends (nil when
	// none was due); stopBackup cancels it. See health.go.
	backupDone chan struct{}
	stopBackup context.CancelFunc
}

// Open opens (creating if needed) the database at path, creating its parent
// directory with mode 0700 (the history holds prompts and code), and applies
// pending migrations. path must be a file path; ":memory:" is not supported
// because the reader and writer pools would see different databases.
//
// A damaged file gives a *CorruptError and is left as it is. Once a day Open
// also checks the file's pages (quick_check) and starts a backup in the
// background (see health.go).
func Open(ctx context.Context, path string) (*Store, error) {
	if path == "" || strings.ContainsAny(path, "?#") || strings.HasPrefix(path, "file:") || path == ":memory:" {
		// '?' would be read as the start of the DSN parameters.
		return nil, fmt.Errorf("store: open %q: need a plain file path", path)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("store: open %q: %w", path, err)
	}
	if err := checkEmpty(path); err != nil {
		return nil, fmt.Errorf("store: open %q: %w", path, err)
	}

	// busy_timeout comes first: the pragmas after it (journal_mode in
	// particular) take locks and would otherwise fail at once with
	// SQLITE_BUSY if another process holds the file. _txlock=immediate makes
	// BEGIN take the write lock up front, so a transaction that reads and then
	// writes cannot fail half-way on a lock upgrade.
	// synchronous=NORMAL is the recommended pairing with WAL: commits skip an
	// fsync, and only the last transactions can be lost on power failure.
	w, err := sql.Open("sqlite", path+"?"+
		"_pragma=busy_timeout(5000)&"+
		"_pragma=journal_mode(WAL)&"+
		"_pragma=foreign_keys(1)&"+
		"_pragma=synchronous(NORMAL)&"+
		"_txlock=immediate")
	if err != nil {
		return nil, fmt.Errorf("store: open %q: %w", path, err)
	}
	w.SetMaxOpenConns(1)
	w.SetMaxIdleConns(1)
	w.SetConnMaxLifetime(0)
	w.SetConnMaxIdleTime(0)

	// The first connection (made by PingContext) and the migrations retry
	// while the file is busy in the ways busy_timeout does not cover. Once
	// this process holds a connection, no other process can be the file's
	// last closer, so later statements need no such loop.
	if err := retryBusy(ctx, openWait, func() error {
		if err := w.PingContext(ctx); err != nil {
			return err
		}
		return migrate(ctx, w)
	}); err != nil {
		_ = w.Close()
		return nil, fmt.Errorf("store: open %q: %w", path, corrupt(path, err))
	}
	if err := checkIfDue(ctx, w, path); err != nil {
		_ = w.Close()
		return nil, fmt.Errorf("store: open %q: %w", path, err)
	}

	// The journal mode is persistent in the file, so readers need not set it;
	// they are opened after migrate, which converted the file to WAL.
	r, err := sql.Open("sqlite", path+"?"+
		"_pragma=busy_timeout(5000)&"+
		"_pragma=foreign_keys(1)&"+
		"_pragma=query_only(1)")
	if err != nil {
		_ = w.Close()
		return nil, fmt.Errorf("store: open %q: %w", path, err)
	}
	n := max(4, runtime.GOMAXPROCS(0))
	r.SetMaxOpenConns(n)
	r.SetMaxIdleConns(n)
	if err := retryBusy(ctx, openWait, func() error { return r.PingContext(ctx) }); err != nil {
		_ = r.Close()
		_ = w.Close()
		return nil, fmt.Errorf("store: open %q: %w", path, err)
	}
	s := &Store{w: w, r: r, path: path}
	if err := s.ws.prepare(ctx, w); err != nil {
		_ = r.Close()
		_ = w.Close()
		return nil, fmt.Errorf("store: open %q: %w", path, corrupt(path, err))
	}
	s.startBackup()
	return s, nil
}

// Close closes the database. Calls in progress may fail; callers stop using
// the Store first.
func (s *Store) Close() error {
	s.waitBackup()
	// PRAGMA optimize is what SQLite recommends on closing a long-lived
	// connection: it refreshes planner statistics when they are stale and is
	// cheap otherwise. Its failure is not worth failing Close for.
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_, _ = s.w.ExecContext(ctx, "PRAGMA optimize")

	errS := s.ws.close()
	errR := s.r.Close()
	errW := s.w.Close()
	if err := errors.Join(errS, errR, errW); err != nil {
		return fmt.Errorf("store: close: %w", err)
	}
	return nil
}

// inTx runs fn in a write transaction (BEGIN IMMEDIATE) and commits it.
// SQLite's "malformed" becomes a *CorruptError, here and in readTx, so damage
// met after Open is told in the same words as damage met by it; a full disk
// becomes a *DiskFullError.
func (s *Store) inTx(ctx context.Context, fn func(*sql.Tx) error) error {
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return s.writeErr(err)
	}
	if err := fn(tx); err != nil {
		_ = tx.Rollback()
		return s.writeErr(err)
	}
	return s.writeErr(tx.Commit())
}

// writeErr names what a failed write met: damage (*CorruptError) or a full
// disk (*DiskFullError); other errors pass as they are.
func (s *Store) writeErr(err error) error { return full(s.path, corrupt(s.path, err)) }

// readTx runs fn in a read transaction, so several queries see one snapshot
// (a session and its runs, say, without a write landing in between).
func (s *Store) readTx(ctx context.Context, fn func(*sql.Tx) error) error {
	tx, err := s.r.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return corrupt(s.path, err)
	}
	defer tx.Rollback() //nolint:errcheck // read-only: nothing to lose
	return corrupt(s.path, fn(tx))
}

// timeLayout is RFC 3339 with a fixed nine-digit fraction. time.RFC3339Nano
// drops trailing zeros, and then text order is not time order
// ("…:05Z" sorts after "…:05.1Z"); a fixed width keeps ORDER BY on the text
// columns correct. time.Parse with RFC3339Nano reads it back.
const timeLayout = "2006-01-02T15:04:05.000000000Z07:00"

func fmtTime(t time.Time) string { return t.UTC().Format(timeLayout) }

func parseTime(s string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("bad timestamp %q: %w", s, err)
	}
	return t.UTC(), nil
}

// now is the store's clock: UTC and without a monotonic reading, like the
// values read back, so a time a method fills in compares equal (even with ==)
// to the stored one.
func now() time.Time { return time.Now().UTC().Round(0) }

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// constraintErr maps SQLite constraint failures to the package sentinels, so
// callers can tell "no such parent" and "already there" from I/O errors. The
// driver reports extended result codes, which name the kind of constraint.
func constraintErr(err error) error {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return err
	}
	switch se.Code() {
	case sqlite3.SQLITE_CONSTRAINT_FOREIGNKEY:
		return fmt.Errorf("%w: %w", ErrNotFound, err)
	case sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY, sqlite3.SQLITE_CONSTRAINT_UNIQUE:
		return fmt.Errorf("%w: %w", ErrDuplicate, err)
	}
	return err
}
