//go:build linux && !amd64 && !arm64

package sandbox

import "errors"

// The filter's system call numbers are written for amd64 and arm64 only.
const seccompSupported = false

type seccompSpec struct {
	Sockets []uint32 `json:"sockets"`
	AppPid  int32    `json:"app_pid,omitempty"`
	AppPgid int32    `json:"app_pgid,omitempty"`
}

func applySeccomp(seccompSpec) error {
	return errors.New("seccomp filter not built for this architecture")
}

func seccompAvailable() error { return errors.New("seccomp filter not built for this architecture") }
