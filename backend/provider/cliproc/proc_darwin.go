package cliproc

import (
	"io/fs"
	"os"
	"os/exec"
	"syscall"
)

// dieWithParent: macOS has no parent-death signal; the command's process
// group is killed when its context ends (procgroup), not when loopforge
// is killed.
func dieWithParent(*exec.Cmd) {}

// ownedByUser reports whether fi (of path p) belongs to this user.
func ownedByUser(_ string, fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Getuid()
}
