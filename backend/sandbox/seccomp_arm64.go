//go:build linux

package sandbox

import "golang.org/x/sys/unix"

const (
	seccompAuditArch = unix.AUDIT_ARCH_AARCH64
	seccompX32Bit    = 0
)

// seccompModeCalls set a file's mode (see seccompModeCall); arm64 has only
// the *at forms.
var seccompModeCalls = []seccompModeCall{
	{unix.SYS_FCHMOD, 1, -1}, {unix.SYS_FCHMODAT, 2, -1}, {unix.SYS_FCHMODAT2, 2, -1},
	{unix.SYS_MKNODAT, 2, -1}, {unix.SYS_OPENAT, 3, 2},
}
