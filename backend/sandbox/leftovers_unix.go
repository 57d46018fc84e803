//go:build unix

package sandbox

import (
	"os"
	"syscall"
)

// ownedByMe: in a shared /tmp, a directory another user made under one of
// our names is not ours to remove.
func ownedByMe(path string) bool {
	fi, err := os.Lstat(path)
	if err != nil || !fi.IsDir() {
		return false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Getuid()
}
