//go:build unix

package owner

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// openLockFile opens a claim's file for locking; create makes a new one
// (failing if it exists).
func openLockFile(path string, create bool) (*os.File, error) {
	if create {
		return os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	}
	return os.OpenFile(path, os.O_RDWR, 0)
}

// tryLock takes f's exclusive lock without waiting; held reports that
// another open file (another process, or this one through another open)
// holds it.
func tryLock(f *os.File) (held bool, err error) {
	err = unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
	if errors.Is(err, unix.EWOULDBLOCK) {
		return true, nil
	}
	return false, err
}
