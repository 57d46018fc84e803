//go:build linux

package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// childSpec is everything the shim needs, JSON-encoded in specEnv.
type childSpec struct {
	// Version guards against a stale stand-alone shim (loopforge-shim) left
	// next to a newer app: the shim refuses a spec it does not know.
	Version   int           `json:"v"`
	Path      string        `json:"path"` // interpreter to exec
	Args      []string      `json:"args"` // its argv, argv[0] included
	Rlimits   []childRlimit `json:"rlimits"`
	Isolation string        `json:"isolation"`
	// Cgroups are cgroup.procs files (v1 hierarchies) to join first.
	Cgroups  []string      `json:"cgroups,omitempty"`
	Landlock *landlockSpec `json:"landlock,omitempty"`
	Seccomp  *seccompSpec  `json:"seccomp,omitempty"`
}

func runChild() {
	// Landlock, seccomp and no_new_privs bind the calling OS thread only;
	// everything from here to exec must happen on one thread.
	runtime.LockOSThread()
	// No garbage collection in the shim: the rlimits set just before exec
	// (RLIMIT_AS below the Go runtime's own reservations) would make a GC
	// worker or finalizer that needs memory meanwhile abort the process.
	debug.SetGCPercent(-1)
	raw, ok := os.LookupEnv(specEnv)
	if !ok {
		// Someone typed the internal argument by hand; fd 3 is not ours.
		fmt.Fprintln(os.Stderr, "loopforge: "+childArg+" is internal to the sandbox")
		os.Exit(2)
	}
	// Without close-on-exec the interpreter would inherit the pipe and the
	// parent would never see EOF at exec time.
	syscall.CloseOnExec(statusFD)
	// bwrap's info pipe (infoFD) and anything else above it is not the
	// code's. Before Linux 5.11 the flag is unknown and they stay: the app
	// does not trust what comes through the info pipe anyway (nsInit).
	_ = unix.CloseRange(infoFD, math.MaxUint32, unix.CLOSE_RANGE_CLOEXEC)
	status := os.NewFile(statusFD, "sandbox-status")
	fail := func(err error) {
		_, _ = status.Write([]byte(string(statusFail) + err.Error()))
		fmt.Fprintf(os.Stderr, "loopforge sandbox: %v\n", err)
		os.Exit(childFailExit)
	}

	var spec childSpec
	dec := json.NewDecoder(strings.NewReader(raw))
	// A field this shim does not know is a layer it would silently skip
	// (a stale loopforge-shim next to a newer app): fail closed.
	dec.DisallowUnknownFields()
	if err := dec.Decode(&spec); err != nil {
		fail(fmt.Errorf("decode spec (is %s older than the app? rebuild it): %w", os.Args[0], err))
	}
	if spec.Version != specVersion {
		fail(fmt.Errorf("spec version %d, this shim (%s) knows %d: rebuild it with the app", spec.Version, os.Args[0], specVersion))
	}
	if spec.Path == "" || len(spec.Args) == 0 {
		fail(errors.New("spec names no interpreter"))
	}
	env := make([]string, 0, 8)
	for _, kv := range os.Environ() {
		// PWD: bwrap --chdir sets it; the code's environment is the same
		// at every level.
		if !strings.HasPrefix(kv, specEnv+"=") && !strings.HasPrefix(kv, "PWD=") {
			env = append(env, kv)
		}
	}
	if err := restrict(spec); err != nil {
		fail(fmt.Errorf("apply isolation %q: %w", spec.Isolation, err))
	}
	// Everything exec needs is allocated before the rlimits: after them the
	// Go runtime may be unable to get memory (RLIMIT_AS, RLIMIT_DATA).
	path, err := syscall.BytePtrFromString(spec.Path)
	if err != nil {
		fail(fmt.Errorf("exec %s: %w", spec.Path, err))
	}
	argv, err := syscall.SlicePtrFromStrings(spec.Args)
	if err != nil {
		fail(fmt.Errorf("exec %s: %w", spec.Path, err))
	}
	envv, err := syscall.SlicePtrFromStrings(env)
	if err != nil {
		fail(fmt.Errorf("exec %s: %w", spec.Path, err))
	}
	execFailed := []byte(string(statusFail) + "exec " + spec.Path + ": ")
	// A parent that has stopped the run closed its end (statusAfter): then
	// this fails, and the code never starts.
	if _, err := status.Write([]byte{statusExec}); err != nil {
		fail(fmt.Errorf("status pipe: %w", err))
	}
	// Last, because RLIMIT_AS also binds this Go process.
	if err := setRlimits(spec.Rlimits); err != nil {
		fail(err)
	}
	_, _, errno := syscall.RawSyscall(syscall.SYS_EXECVE, uintptr(unsafe.Pointer(path)),
		uintptr(unsafe.Pointer(&argv[0])), uintptr(unsafe.Pointer(&envv[0])))
	// Still here: exec failed. Report without allocating.
	msg := errno.Error() // a static string for every known errno
	for _, fd := range []int{statusFD, 2} {
		_, _ = syscall.Write(fd, execFailed)
		_, _ = syscall.Write(fd, unsafe.Slice(unsafe.StringData(msg), len(msg)))
	}
	syscall.Exit(childFailExit)
}

// restrict applies the isolation layers that live inside the shim, after
// the spec is read and before the rlimits and exec: join the run's v1
// cgroups, then Landlock and the seccomp filter on this (locked) thread.
func restrict(spec childSpec) error {
	switch spec.Isolation {
	case IsolationBasic, IsolationLandlock, IsolationNamespace:
	default:
		return fmt.Errorf("unknown isolation level %q", spec.Isolation)
	}
	for _, procs := range spec.Cgroups {
		if err := os.WriteFile(procs, []byte("0"), 0); err != nil {
			return fmt.Errorf("join cgroup: %w", err)
		}
	}
	if spec.Landlock == nil && spec.Seccomp == nil {
		return nil
	}
	// Required by both for an unprivileged process; also keeps setuid
	// binaries from gaining privileges inside the sandbox.
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("no_new_privs: %w", err)
	}
	if spec.Landlock != nil {
		if err := applyLandlock(spec.Landlock); err != nil {
			return fmt.Errorf("landlock: %w", err)
		}
	}
	if spec.Seccomp != nil {
		if err := applySeccomp(*spec.Seccomp); err != nil {
			return err
		}
	}
	return nil
}
