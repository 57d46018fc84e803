package cliproc

import (
	"io/fs"
	"os"
	"os/exec"
	"syscall"
)

// dieWithParent has the kernel kill cmd if loopforge dies first.
func dieWithParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}

// ownedByUser reports whether fi (of path p) belongs to this user.
func ownedByUser(_ string, fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Getuid()
}
