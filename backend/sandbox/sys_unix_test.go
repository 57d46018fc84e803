//go:build linux || darwin

package sandbox

import "syscall"

// xcpuSignal is Result.Signal for RLIMIT_CPU's signal.
var xcpuSignal = syscall.SIGXCPU.String()
