package cliproc

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
)

// Workdir is the directory one call runs in.
type Workdir struct {
	Path    string
	private bool // created for the call: removed by Close
}

// Close removes a private workdir; a caller's workdir is left alone.
func (w *Workdir) Close() error {
	if w == nil || !w.private {
		return nil
	}
	return os.RemoveAll(w.Path)
}

// PrepareWorkdir returns the caller's dir (which must exist), or, for "", a
// private directory that Close removes. A private directory is named by key
// when key is not empty: claude and gemini file their sessions under the
// path of their cwd, so a call that resumes a session must run in a
// directory with the same path as the call that started it. Without a key
// the directory is fresh and random.
func PrepareWorkdir(dir, kind, key string) (*Workdir, error) {
	if dir != "" {
		abs, err := filepath.Abs(dir)
		if err != nil {
			return nil, err
		}
		fi, err := os.Stat(abs)
		if err != nil {
			return nil, fmt.Errorf("workdir: %w", err)
		}
		if !fi.IsDir() {
			return nil, fmt.Errorf("workdir %s is not a directory", abs)
		}
		return &Workdir{Path: abs}, nil
	}
	parent, err := privateRoot()
	if err != nil {
		return nil, err
	}
	if key == "" {
		p, err := os.MkdirTemp(parent, kind+"-")
		if err != nil {
			return nil, fmt.Errorf("workdir: %w", err)
		}
		return &Workdir{Path: p, private: true}, nil
	}
	p := filepath.Join(parent, kind+"-"+safeName(key))
	if err := os.Mkdir(p, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return nil, fmt.Errorf("workdir: %w", err)
	}
	if err := ownDir(p); err != nil {
		return nil, err
	}
	return &Workdir{Path: p, private: true}, nil
}

// privateRoot is <tmp>/loopforge-cli-<uid>, mode 0700, owned by us (on
// Windows, where there is no uid, <tmp>/loopforge-cli, in the user's own
// temp directory, its owner checked all the same): the
// named workdirs inside it have predictable names, so nobody else may be
// able to create them first.
func privateRoot() (string, error) {
	name := "loopforge-cli"
	if uid := os.Getuid(); uid >= 0 {
		name += "-" + strconv.Itoa(uid)
	}
	p := filepath.Join(os.TempDir(), name)
	if err := os.Mkdir(p, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return "", fmt.Errorf("workdir: %w", err)
	}
	if err := ownDir(p); err != nil {
		return "", err
	}
	return p, nil
}

// ownDir checks that p is a real directory (not a symlink) owned by us, and
// makes it private.
func ownDir(p string) error {
	fi, err := os.Lstat(p)
	if err != nil {
		return fmt.Errorf("workdir: %w", err)
	}
	if !fi.IsDir() || !ownedByUser(p, fi) {
		return fmt.Errorf("workdir: %s is not a directory owned by this user; remove it", p)
	}
	if fi.Mode().Perm() != 0o700 {
		return os.Chmod(p, 0o700)
	}
	return nil
}

// safeName keeps the characters of a session id that are safe in a file
// name.
func safeName(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			b[i] = '_'
		}
	}
	if len(b) > 100 {
		b = b[:100]
	}
	return string(b)
}
