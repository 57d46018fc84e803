//go:build unix

package cliproc

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// ownedByUser reports whether fi (of path p) belongs to this user.
func ownedByUser(_ string, fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Getuid()
}

// npmBin is where `npm install -g` puts name under prefix.
func npmBin(prefix, name string) string { return filepath.Join(prefix, "bin", name) }

// runnable reports why the regular file at path would not run, or nil.
func runnable(path string, fi fs.FileInfo) error {
	if fi.Mode().Perm()&0o111 == 0 {
		return fmt.Errorf("%s is not executable", path)
	}
	return nil
}
