package owner

import (
	"errors"
	"os"

	"golang.org/x/sys/windows"
)

// openLockFile opens a claim's file for locking; create makes a new one
// (failing if it exists). Opened with FILE_SHARE_DELETE, which os.OpenFile
// does not give: Release and Alive remove the file while it is still open
// and locked, as on Unix (see Release).
func openLockFile(path string, create bool) (*os.File, error) {
	name, err := windows.UTF16PtrFromString(path)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	disposition := uint32(windows.OPEN_EXISTING)
	if create {
		disposition = windows.CREATE_NEW
	}
	h, err := windows.CreateFile(name, windows.GENERIC_READ|windows.GENERIC_WRITE,
		windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE|windows.FILE_SHARE_DELETE, nil,
		disposition, windows.FILE_ATTRIBUTE_NORMAL, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	return os.NewFile(uintptr(h), path), nil
}

// tryLock takes f's exclusive lock without waiting: the whole file (any
// range would do: all that matters is who holds it). Windows drops the
// lock when the process ends, however it ends, as flock does. held
// reports that another handle (another process, or this one through
// another open) holds it.
func tryLock(f *os.File) (held bool, err error) {
	ol := new(windows.Overlapped)
	err = windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY,
		0, 1, 0, ol)
	if errors.Is(err, windows.ERROR_LOCK_VIOLATION) {
		return true, nil
	}
	return false, err
}
