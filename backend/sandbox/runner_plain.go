//go:build !linux

package sandbox

import (
	"context"
	"runtime"
	"sync"
	"time"
)

// Runner executes code. It is safe for concurrent use; each Run is
// independent. On Windows and macOS it is the plain sandbox (plain.go).
type Runner struct {
	p       *plainRunner
	host    *Host
	warm    *warmCounters // WarmStats; nothing is ever prepared here
	cleanup *cleanups
}

// NewRunner resolves the interpreters and the temp root once. It fails
// with an *InterpreterError (matching ErrNoInterpreter) when no Python can
// be found. Options.NoCgroup and CacheDir mean nothing here.
func NewRunner(o Options) (*Runner, error) {
	if err := checkOwner(o.Owner); err != nil {
		return nil, err
	}
	sys, python, node, err := newPlainOS(o)
	if err != nil {
		return nil, err
	}
	root, err := tempRoot(o.TempRoot)
	if err != nil {
		return nil, err
	}
	p := &plainRunner{sys: sys, python: python, node: node, tempRoot: root, owner: o.Owner, homes: homeDirs(), cleanup: newCleanups()}
	return &Runner{p: p, host: Probe(), warm: &warmCounters{}, cleanup: p.cleanup}, nil
}

// Run executes req and reports the outcome, as on Linux: the error is
// non-nil only when the sandbox itself failed (then Status is
// StatusSandboxError), a *DirError for a Request.Dir it refuses among
// them; a timeout is StatusTimeout and a cancelled ctx is StatusKilled,
// both with a nil error. It returns once every process of the run is gone;
// its directories are removed in the background ([Runner.Wait]).
func (r *Runner) Run(ctx context.Context, req Request) (Result, error) { return r.p.run(ctx, req) }

// Prepare always fails with ErrNoWarmStart here: every execution starts
// cold (the warm start hands the code over through /proc, see warm.go).
func (r *Runner) Prepare(context.Context, Request) (Prepared, error) { return nil, ErrNoWarmStart }

// Wait returns once the runs that have ended are cleaned up.
func (r *Runner) Wait() { r.cleanup.wait() }

// Close does nothing here: there is no zygote on this system.
func (r *Runner) Close() {}

// Isolation reports the isolation level this Runner applies: "job" on
// Windows, "basic" on macOS.
func (r *Runner) Isolation() string { return r.p.sys.level() }

// NetworkIsolated reports whether runs are kept off the network: never on
// Windows and macOS.
func (r *Runner) NetworkIsolated() bool { return false }

// Host reports what the host offered when the Runner was made.
func (r *Runner) Host() *Host { return r.host }

// Python reports the resolved interpreter path.
func (r *Runner) Python() string { return r.p.python }

// Node reports the Node.js interpreter, "" when there is none.
func (r *Runner) Node() string { return r.p.node }

// Host is what this machine offers for isolating generated code. Windows
// and macOS have one fixed set of mechanisms; the probe only checks that
// it works here (a job object can be made, on Windows).
type Host struct {
	OS   string `json:"os"`
	Arch string `json:"arch"`
	// Problem says why the OS's mechanism failed the probe ("" = it works).
	Problem string `json:"problem,omitempty"`
	// ProbedAt is when the probe ran; Cached is always false: the probe
	// costs next to nothing and is not kept on disk.
	ProbedAt time.Time `json:"probed_at"`
	Cached   bool      `json:"cached"`
}

var (
	hostOnce sync.Once
	host     *Host
)

// Probe inspects the machine once per process.
func Probe() *Host {
	hostOnce.Do(func() {
		host = &Host{OS: runtime.GOOS, Arch: runtime.GOARCH, ProbedAt: time.Now().UTC().Truncate(time.Second)}
		if err := probeOS(); err != nil {
			host.Problem = err.Error()
		}
	})
	return host
}

// ProbeCached is [Probe]: nothing here is worth a cache.
func ProbeCached(ProbeOptions) *Host { return Probe() }
