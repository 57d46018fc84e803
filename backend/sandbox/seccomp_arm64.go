package sandbox

import "golang.org/x/sys/unix"

const (
	seccompAuditArch = unix.AUDIT_ARCH_AARCH64
	seccompX32Bit    = 0
)
