//go:build linux || darwin

package sandbox

import (
	"fmt"
	"os"
	"syscall"
)

// The parent starts "<self> __sbx_child" with the spec in specEnv and the
// write end of a status pipe as fd 3. The shim marks fd 3 close-on-exec and
// writes "X" just before exec, or "E<message>" if it fails. So the parent
// reads: "X" then EOF → the interpreter is running; "XE…"/"E…" → sandbox
// failure with a message; nothing → the binary never ran the shim at all
// (Self does not call RunChildIfRequested).
const (
	childArg      = "__sbx_child"
	specEnv       = "LOOPFORGE_SANDBOX_SPEC"
	statusFD      = 3
	statusExec    = 'X'
	statusFail    = 'E'
	childFailExit = 127
	// specVersion changes whenever childSpec changes meaning.
	specVersion = 3
)

type childRlimit struct {
	Resource int    `json:"resource"`
	Cur      uint64 `json:"cur"`
	Max      uint64 `json:"max"`
}

// RunChildIfRequested turns this process into the sandbox shim when it was
// started as one (os.Args[1] == "__sbx_child"): it applies the limits the
// parent passed and execs the interpreter, never returning. Otherwise it
// returns at once. Call it first thing in main() and in TestMain, before any
// other work, so the shim stays small and fast.
func RunChildIfRequested() {
	if len(os.Args) < 2 || os.Args[1] != childArg {
		return
	}
	runChild()
}

// setRlimits applies the limits in order. A requested hard limit above the
// current one is clamped, because only root may raise a hard limit.
func setRlimits(limits []childRlimit) error {
	for _, l := range limits {
		var cur syscall.Rlimit
		if err := syscall.Getrlimit(l.Resource, &cur); err != nil {
			return fmt.Errorf("getrlimit %d: %w", l.Resource, err)
		}
		want := syscall.Rlimit{Cur: l.Cur, Max: l.Max}
		if cur.Max != rlimInfinity && want.Max > cur.Max {
			want.Max = cur.Max
		}
		want.Cur = min(want.Cur, want.Max)
		if err := syscall.Setrlimit(l.Resource, &want); err != nil {
			return fmt.Errorf("setrlimit %d to %d/%d: %w", l.Resource, want.Cur, want.Max, err)
		}
	}
	return nil
}

const rlimInfinity = ^uint64(0)

// baseRlimits are the rlimits every unix level applies: no core dumps,
// CPU time, file size, open files.
func baseRlimits(l Limits) []childRlimit {
	return []childRlimit{
		{Resource: syscall.RLIMIT_CORE, Cur: 0, Max: 0},
		// Soft then hard: SIGXCPU first (reported as a CPU limit), SIGKILL
		// a second later if the code handles SIGXCPU.
		{Resource: syscall.RLIMIT_CPU, Cur: l.CPUSeconds, Max: l.CPUSeconds + 1},
		{Resource: syscall.RLIMIT_FSIZE, Cur: uint64(l.FileSizeBytes), Max: uint64(l.FileSizeBytes)},
		{Resource: syscall.RLIMIT_NOFILE, Cur: l.OpenFiles, Max: l.OpenFiles},
	}
}

// unixEnv is the code's whole environment on Linux and macOS: nothing of
// the app's (API keys in particular), the run dir as home and temp dir.
func unixEnv(path, lang, wd string) []string {
	return []string{
		"PATH=" + path,
		"LANG=" + lang,
		"HOME=" + wd,
		"TMPDIR=" + wd,
		"PYTHONDONTWRITEBYTECODE=1",
		"PYTHONUNBUFFERED=1",
		"PYTHONIOENCODING=utf-8",
	}
}

// trustedShim reports whether p is a regular executable that only its owner
// (this user or root) can change, so a planted file is not run.
func trustedShim(p string) bool {
	fi, err := os.Stat(p)
	if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 == 0 || fi.Mode().Perm()&0o022 != 0 {
		return false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && (int(st.Uid) == os.Geteuid() || st.Uid == 0)
}
