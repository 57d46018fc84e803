//go:build linux

package sandbox

import "golang.org/x/sys/unix"

const (
	seccompAuditArch = unix.AUDIT_ARCH_X86_64
	// seccompX32Bit marks x32-ABI system call numbers, which a filter for
	// x86-64 numbers must not let through.
	seccompX32Bit = 0x40000000
)

// seccompModeCalls set a file's mode (see seccompModeCall).
var seccompModeCalls = []seccompModeCall{
	{unix.SYS_CHMOD, 1, -1}, {unix.SYS_FCHMOD, 1, -1}, {unix.SYS_FCHMODAT, 2, -1}, {unix.SYS_FCHMODAT2, 2, -1},
	{unix.SYS_MKNOD, 1, -1}, {unix.SYS_MKNODAT, 2, -1}, {unix.SYS_CREAT, 1, -1},
	{unix.SYS_OPEN, 2, 1}, {unix.SYS_OPENAT, 3, 2},
}
