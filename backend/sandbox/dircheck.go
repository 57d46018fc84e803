package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// resolveDir is the part of checking a Request.Dir that every OS shares:
// an absolute path to an existing directory, returned with symlinks
// resolved (the path the layers use: a bind mount or a Landlock rule on a
// symlink would name the wrong place). The error is a *DirError; each
// runner's checkDir adds its own refusals.
func resolveDir(dir string) (string, error) {
	refuse := func(reason string, err error) (string, error) {
		return "", &DirError{Dir: dir, Reason: reason, Err: err}
	}
	if !filepath.IsAbs(dir) {
		return refuse("is not an absolute path", nil)
	}
	real, err := filepath.EvalSymlinks(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return refuse("does not exist", nil)
	case err != nil:
		return refuse("cannot be resolved", err)
	}
	if real, err = filepath.Abs(real); err != nil {
		return refuse("cannot be resolved", err)
	}
	fi, err := os.Stat(real)
	switch {
	case err != nil:
		return refuse("cannot be read", err)
	case !fi.IsDir():
		return refuse("is not a directory", nil)
	}
	return real, nil
}

// tempRoot is where runs make their directories: dir, else the system's
// temp directory, which must exist, with symlinks resolved (bwrap binds,
// Landlock rules and checkDir's comparisons need the real path).
func tempRoot(dir string) (string, error) {
	if dir == "" {
		dir = os.TempDir()
	}
	if fi, err := os.Stat(dir); err != nil {
		return "", fmt.Errorf("sandbox: temp root: %w", err)
	} else if !fi.IsDir() {
		return "", fmt.Errorf("sandbox: temp root %s is not a directory", dir)
	}
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	return dir, nil
}
