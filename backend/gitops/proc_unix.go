//go:build unix

package gitops

import (
	"os/exec"
	"syscall"
)

// killGroupOnCancel runs cmd in a process group of its own and kills the
// whole group when its context ends: git's helpers (credential, remote,
// pack) go with it.
func killGroupOnCancel(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}
