//go:build linux || darwin

package sandbox

import "syscall"

// imageOpenFlags: a picture is never read through a symbolic link the code
// planted after the scan (it could name a file the code may not read), nor
// from a FIFO that would block the read.
const imageOpenFlags = syscall.O_NOFOLLOW | syscall.O_NONBLOCK

// cpuLimitSignal reports whether sig (Result.Signal) is RLIMIT_CPU's.
func cpuLimitSignal(sig string) bool { return sig == syscall.SIGXCPU.String() }
