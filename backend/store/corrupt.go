package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// Damage says how a history file is damaged.
type Damage string

const (
	// DamageNotADatabase: the file is not an SQLite database at all (its
	// header is wrong: overwritten, or another kind of file).
	DamageNotADatabase Damage = "not_a_database"
	// DamageMalformed: SQLite found a damaged page while reading it.
	DamageMalformed Damage = "malformed"
	// DamageEmpty: the file is empty although a history existed there (a
	// backup or the check record beside it says so).
	DamageEmpty Damage = "empty"
	// DamageCheckFailed: PRAGMA quick_check found damage that reading had not
	// met yet.
	DamageCheckFailed Damage = "check_failed"
)

// CorruptError is returned (wrapped) when the history file is damaged. The
// file is never modified or replaced by the store once this is known: the
// faces show the message, which says what happened, that the file was kept,
// where the newest backup is and how to start a fresh history.
type CorruptError struct {
	Path   string // the history file, left as it was
	Damage Damage
	Backup string // the newest backup, "" when there is none
	Detail string // SQLite's own words, or quick_check's first finding
	Err    error  // the SQLite error, if one was the cause
}

func (e *CorruptError) Unwrap() error { return e.Err }

// Error is one line of plain words: what happened, then what to do.
func (e *CorruptError) Error() string {
	var b strings.Builder
	switch e.Damage {
	case DamageNotADatabase:
		fmt.Fprintf(&b, "the history file %s is not a loopforge history (it is not an SQLite database)", e.Path)
	case DamageEmpty:
		fmt.Fprintf(&b, "the history file %s is empty although a history was kept there", e.Path)
	default:
		fmt.Fprintf(&b, "the history file %s is damaged", e.Path)
	}
	if e.Detail != "" {
		fmt.Fprintf(&b, " (%s)", e.Detail)
	}
	b.WriteString("; it was left as it is. ")
	if e.Backup != "" {
		fmt.Fprintf(&b, "The newest backup is %s: to go back to it, move %s aside and copy the backup in its place. ", e.Backup, e.Path)
	} else {
		b.WriteString("There is no backup of it. ")
	}
	fmt.Fprintf(&b, "To start a fresh history, move %s (and any %s-wal beside it) to another folder, then start loopforge again", e.Path, e.Path)
	return b.String()
}

// damageOf reports whether err is SQLite saying the file is not a database
// or is malformed, and which.
func damageOf(err error) (Damage, bool) {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return "", false
	}
	switch se.Code() & 0xff {
	case sqlite3.SQLITE_NOTADB:
		return DamageNotADatabase, true
	case sqlite3.SQLITE_CORRUPT:
		return DamageMalformed, true
	}
	return "", false
}

// corrupt turns SQLite's "malformed" and "not a database" into a
// *CorruptError for path (naming the newest backup); other errors pass as
// they are.
func corrupt(path string, err error) error {
	d, ok := damageOf(err)
	if !ok {
		return err
	}
	var se *sqlite.Error
	errors.As(err, &se)
	return &CorruptError{Path: path, Damage: d, Backup: newestBackup(path), Detail: "SQLite: " + se.Error(), Err: err}
}

// checkEmpty refuses a zero-byte history file when a history existed there.
//
// SQLite treats an empty file as a new, empty database, so without this a
// history truncated to nothing (a failed copy or sync, a disk that filled)
// would silently become a fresh one. But an empty file is also what a first
// start leaves when it dies between creating the file and the first write,
// and refusing that would lock a new user out for nothing. The two are told
// apart by what a history that was once opened leaves beside it: the record
// of its last check and its backups (see health.go). An empty file with
// neither is taken as a new history. A non-empty -wal beside an empty file
// is left to SQLite, which rebuilds the pages from it.
func checkEmpty(path string) error {
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > 0 {
		return nil // missing: created; anything else: SQLite says what is wrong
	}
	if wal, err := os.Stat(path + "-wal"); err == nil && wal.Size() > 0 {
		return nil
	}
	_, errChecked := os.Stat(checkedFile(path))
	backup := newestBackup(path)
	if backup == "" && errors.Is(errChecked, fs.ErrNotExist) {
		return nil
	}
	return &CorruptError{Path: path, Damage: DamageEmpty, Backup: backup}
}
