package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
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
)

// childSpec is everything the shim needs, JSON-encoded in specEnv.
type childSpec struct {
	Path      string        `json:"path"` // interpreter to exec
	Args      []string      `json:"args"` // its argv, argv[0] included
	Rlimits   []childRlimit `json:"rlimits"`
	Isolation string        `json:"isolation"`
}

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

func runChild() {
	raw, ok := os.LookupEnv(specEnv)
	if !ok {
		// Someone typed the internal argument by hand; fd 3 is not ours.
		fmt.Fprintln(os.Stderr, "loopforge: "+childArg+" is internal to the sandbox")
		os.Exit(2)
	}
	// Without close-on-exec the interpreter would inherit the pipe and the
	// parent would never see EOF at exec time.
	syscall.CloseOnExec(statusFD)
	status := os.NewFile(statusFD, "sandbox-status")
	fail := func(err error) {
		_, _ = status.Write([]byte(string(statusFail) + err.Error()))
		fmt.Fprintf(os.Stderr, "loopforge sandbox: %v\n", err)
		os.Exit(childFailExit)
	}

	var spec childSpec
	if err := json.Unmarshal([]byte(raw), &spec); err != nil {
		fail(fmt.Errorf("decode spec: %w", err))
	}
	if spec.Path == "" || len(spec.Args) == 0 {
		fail(errors.New("spec names no interpreter"))
	}
	env := make([]string, 0, 8)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, specEnv+"=") {
			env = append(env, kv)
		}
	}
	if err := restrict(spec); err != nil {
		fail(fmt.Errorf("apply isolation %q: %w", spec.Isolation, err))
	}
	if _, err := status.Write([]byte{statusExec}); err != nil {
		fail(fmt.Errorf("status pipe: %w", err))
	}
	// Last, because RLIMIT_AS also binds this Go process: after it, the
	// runtime must not need new address space before exec replaces it.
	if err := setRlimits(spec.Rlimits); err != nil {
		fail(err)
	}
	err := syscall.Exec(spec.Path, spec.Args, env)
	fail(fmt.Errorf("exec %s: %w", spec.Path, err))
}

// restrict applies the isolation layers that live inside the shim. Basic
// isolation has none; Landlock (and seccomp) will be applied here, after the
// spec is read and before the rlimits and exec.
func restrict(spec childSpec) error {
	switch spec.Isolation {
	case "", IsolationBasic:
		return nil
	}
	return fmt.Errorf("unknown isolation level %q", spec.Isolation)
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
