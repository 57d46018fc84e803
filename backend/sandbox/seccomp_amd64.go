package sandbox

import "golang.org/x/sys/unix"

const (
	seccompAuditArch = unix.AUDIT_ARCH_X86_64
	// seccompX32Bit marks x32-ABI system call numbers, which a filter for
	// x86-64 numbers must not let through.
	seccompX32Bit = 0x40000000
)
