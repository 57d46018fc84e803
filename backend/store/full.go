package store

import (
	"errors"
	"fmt"
	"path/filepath"
	"syscall"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// DiskFullError is returned (wrapped) when the history could not be written
// because the disk holding it is full: SQLite's SQLITE_FULL, or ENOSPC from
// a write the store makes itself. Nothing was changed by the failed write
// (SQLite rolls the transaction back), so writing again once space is freed
// works.
type DiskFullError struct {
	Dir string // the folder of the history file
	Err error  // SQLite's error, or the system's
}

func (e *DiskFullError) Unwrap() error { return e.Err }

func (e *DiskFullError) Error() string {
	return fmt.Sprintf("the disk holding the history (folder %s) is full: free some space there", e.Dir)
}

// IsDiskFull reports whether err is a write that failed for want of space,
// by its code (SQLite's primary result code 13, or the system's ENOSPC),
// never by its text.
func IsDiskFull(err error) bool {
	if errors.Is(err, syscall.ENOSPC) {
		return true
	}
	var se *sqlite.Error
	return errors.As(err, &se) && se.Code()&0xff == sqlite3.SQLITE_FULL
}

// full turns a disk-full error into a *DiskFullError for the history at
// path; other errors pass as they are.
func full(path string, err error) error {
	if err == nil || !IsDiskFull(err) {
		return err
	}
	if _, ok := errors.AsType[*DiskFullError](err); ok {
		return err
	}
	return &DiskFullError{Dir: filepath.Dir(path), Err: err}
}
