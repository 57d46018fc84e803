// Package owner tells whether the process that started a run is still alive,
// so that several loopforge processes (the desktop window, `loopforge run`,
// `loopforge serve`) can share one history and each recover only the runs of
// processes that are gone.
//
// Each process claims an owner id: a file <dir>/<id>.lock that it holds under
// an exclusive lock (flock(2); LockFileEx on Windows, lock_unix.go and
// lock_windows.go) for as long as it lives. The kernel drops the lock
// when the process ends, however it ends (SIGKILL and crashes included), so
// "the lock can be taken" means "the owner is gone". Unlike a pid with its
// start time, this needs no /proc parsing, survives pid reuse and works
// across pid namespaces that share the data directory; unlike a renewed
// lease, it needs no timer and never mistakes a stalled owner for a dead one.
package owner

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Claim is this process's ownership of its runs. Release it on exit (or
// just exit: the kernel releases it).
type Claim struct {
	id   string
	path string
	f    *os.File
}

// New claims a fresh owner id in dir (created with mode 0700).
func New(dir string) (*Claim, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("owner: %w", err)
	}
	var b [12]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, fmt.Errorf("owner: %w", err)
	}
	id := fmt.Sprintf("%d-%s", os.Getpid(), hex.EncodeToString(b[:]))
	path := filepath.Join(dir, id+".lock")
	f, err := openLockFile(path, true)
	if err != nil {
		return nil, fmt.Errorf("owner: %w", err)
	}
	if held, err := tryLock(f); err != nil || held {
		if err == nil {
			err = errors.New("locked by another process")
		}
		_ = f.Close()
		_ = os.Remove(path)
		return nil, fmt.Errorf("owner: locking %s: %w", path, err)
	}
	return &Claim{id: id, path: path, f: f}, nil
}

// ID is the owner id to store with each run this process starts.
func (c *Claim) ID() string { return c.id }

// Release gives the claim up: from then on Alive reports this id as gone.
func (c *Claim) Release() error {
	if c == nil || c.f == nil {
		return nil
	}
	// Remove first, while still locked: a checker that opened the file
	// before the removal then still sees it locked, or finds it gone.
	errR := os.Remove(c.path)
	errC := c.f.Close()
	c.f = nil
	return errors.Join(errR, errC)
}

// Alive reports whether the process that claimed id still holds its claim.
// An empty id (runs recorded before owners existed) or a malformed one is
// reported gone. A checker that finds a dead owner's file removes it.
func Alive(dir, id string) (bool, error) {
	if id == "" || strings.ContainsAny(id, `/\`) || strings.HasPrefix(id, ".") {
		return false, nil
	}
	path := filepath.Join(dir, id+".lock")
	f, err := openLockFile(path, false)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("owner: %w", err)
	}
	defer f.Close()
	switch held, err := tryLock(f); {
	case err != nil:
		return false, fmt.Errorf("owner: checking %s: %w", path, err)
	case held:
		return true, nil
	}
	// We hold the lock of a dead owner: nobody else can be using the file.
	_ = os.Remove(path)
	return false, nil
}
