package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// ErrLocked is wrapped by Open's error when the file stayed locked by another
// program for longer than Open waits (see openWait).
var ErrLocked = errors.New("the history file is locked by another program")

// openWait bounds how long Open keeps retrying a file that answers "busy"
// before it gives up with ErrLocked.
const openWait = 15 * time.Second

// isBusy reports whether err is SQLite's SQLITE_BUSY (any extended code).
func isBusy(err error) bool {
	var se *sqlite.Error
	return errors.As(err, &se) && se.Code()&0xff == sqlite3.SQLITE_BUSY
}

// retryBusy runs fn until it returns something other than SQLITE_BUSY, the
// context ends, or wait passes.
//
// busy_timeout covers most contention, but in WAL mode SQLite returns
// SQLITE_BUSY at once, without calling the busy handler, to a connection
// that opens while another process is the last to close the file and holds
// it exclusively to checkpoint and remove the WAL (or while it recovers
// the WAL after a crash): see "Sometimes Queries Return SQLITE_BUSY In WAL
// Mode" in SQLite's WAL documentation. With `loopforge sessions` started in
// a loop beside runs, that window was hit about once in a hundred starts.
// The lock lasts milliseconds, so a short growing pause is enough. The loop
// is hand-written: it is a dozen lines and a backoff library would add a
// dependency for them.
func retryBusy(ctx context.Context, wait time.Duration, fn func() error) error {
	deadline := time.Now().Add(wait)
	pause := time.Millisecond
	for {
		err := fn()
		if !isBusy(err) {
			return err
		}
		if time.Now().Add(pause).After(deadline) {
			return fmt.Errorf("%w (waited %s): %w", ErrLocked, wait, err)
		}
		t := time.NewTimer(pause)
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("%w: %w", ctx.Err(), err)
		case <-t.C:
		}
		pause = min(2*pause, 50*time.Millisecond)
	}
}
