//go:build linux

package sandbox

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/loopforge/loopforge/backend/event"
	"golang.org/x/sys/unix"
)

const (
	// waitDelay bounds how long Wait waits for the stdin copy after the
	// leader exited.
	waitDelay = 500 * time.Millisecond
	// drainGrace bounds how long the output pipes are read once every
	// process of the run is dead. Only a writer that escaped the run (a
	// setsid daemon at the basic level) or another child of the app still
	// between fork and exec can hold them open then; what is already in the
	// pipes is read in full either way.
	drainGrace = 100 * time.Millisecond
	// sweepWithin bounds the final wait for the group to die.
	sweepWithin = 2 * time.Second
	// systemPath is the PATH given to the code; never the app's own PATH,
	// which may list user directories and shims.
	systemPath = "/usr/local/bin:/usr/bin:/bin"
)

// Isolation levels as numbers, for comparisons.
const (
	levelBasic = iota
	levelLandlock
	levelNamespace
)

var levelNames = []string{IsolationBasic, IsolationLandlock, IsolationNamespace}

// Runner executes code. It is safe for concurrent use; each Run is
// independent.
type Runner struct {
	self     string
	python   string
	node     string
	tempRoot string
	owner    string   // Options.Owner
	path     string   // PATH for the code
	homes    []string // the user's home dirs, never a Request.Dir
	host     *Host

	// The layers this Runner applies (each one only if the host has it).
	level     int
	isolation string // level name the shim checks; tests may break it
	landlock  int    // Landlock ABI in use, 0 = none
	seccomp   bool
	bwrap     *bwrapPlan
	// noNamespace says why the namespace level, allowed by the options,
	// is not used: bubblewrap is installed but cannot work here ("" when
	// it is used, not installed, or the options cap the level below it).
	noNamespace NamespaceBlock
	cgroups     *cgroupManager
	// nproc: RLIMIT_NPROC counts only this run's processes (a non-root user
	// inside bwrap's fresh user namespace), so it bounds a fork bomb.
	nproc    bool
	readExec []string // Landlock read+execute paths

	warm *warmCounters // Prepare's (WarmStats)
	// cleanup counts the removals of ended runs' cgroups and directories,
	// which go on after Run has returned (see Wait); shared by copies.
	cleanup *cleanups
	// zyg forks script-mode Python runs from a pre-started interpreter
	// (Options.Zygote, zygote_linux.go); nil when off or unusable here.
	zyg *zygotes
}

// NewRunner resolves the shim executable, the interpreters and the temp root
// once, and picks the isolation layers from the host probe ([ProbeCached]
// in o.CacheDir). It fails with an *InterpreterError (matching
// ErrNoInterpreter) when no Python can be found.
func NewRunner(o Options) (*Runner, error) {
	return newRunner(o, ProbeCached(ProbeOptions{CacheDir: o.CacheDir}))
}

// newRunner is NewRunner on a given host probe (the tests substitute parts,
// such as a private cgroup v2 hierarchy).
func newRunner(o Options, h *Host) (*Runner, error) {
	self := o.Self
	if self == "" {
		var err error
		if self, err = os.Executable(); err != nil {
			return nil, fmt.Errorf("sandbox: locate own executable for the shim: %w", err)
		}
		if shim := filepath.Join(filepath.Dir(self), ShimName); trustedShim(shim) {
			self = shim
		}
	}
	if abs, err := filepath.Abs(self); err == nil {
		self = abs
	}
	if err := checkOwner(o.Owner); err != nil {
		return nil, err
	}
	python, err := findPython(o.Python)
	if err != nil {
		return nil, err
	}
	node := findNode(o.Node)
	root, err := tempRoot(o.TempRoot)
	if err != nil {
		return nil, err
	}
	maxLevel := levelNamespace
	switch o.Isolation {
	case "", "auto":
	case IsolationBasic:
		maxLevel = levelBasic
	case IsolationLandlock:
		maxLevel = levelLandlock
	case IsolationNamespace:
	default:
		return nil, fmt.Errorf("sandbox: unknown isolation level %q (want auto, basic, landlock or namespace)", o.Isolation)
	}
	path := systemPath
	// Let the code's own subprocesses find the same interpreter first.
	if dir := filepath.Dir(python); !slices.Contains(filepath.SplitList(path), dir) {
		path = dir + string(filepath.ListSeparator) + path
	}
	r := &Runner{self: self, python: python, node: node, tempRoot: root, owner: o.Owner, path: path, homes: homeDirs(), host: h,
		warm: &warmCounters{max: int64(cmp.Or(o.MaxPrepared, DefaultMaxPrepared))}, cleanup: newCleanups()}
	r.plan(maxLevel, !o.NoCgroup)
	if o.Zygote != ZygoteOff {
		if why := r.zygoteUsable(); why != "" {
			slog.Info("sandbox: no zygote on this host; every run starts fresh", "reason", why)
		} else {
			r.zyg = &zygotes{askedOnly: o.Zygote == ZygoteAsked}
		}
	}
	if r.noNamespace != "" {
		// Info: each run says so (its note), the CLI as a sandbox warning.
		slog.Info("sandbox: bubblewrap cannot be used here; runs get a weaker isolation level (see loopforge doctor)",
			"level", r.Isolation(), "reason", r.noNamespace, "bwrap", h.Bwrap, "err", h.BwrapError)
	}
	return r, nil
}

// plan picks the layers: the strongest the host has, up to maxLevel.
func (r *Runner) plan(maxLevel int, cgroups bool) {
	h := r.host
	r.seccomp = h.Seccomp
	if maxLevel >= levelLandlock && h.LandlockABI > 0 {
		r.landlock = h.LandlockABI
		r.level = levelLandlock
	}
	// Interpreters outside the system dirs (pyenv, nvm) are exposed by
	// their install prefix only.
	var extra []string
	for _, exe := range []string{r.python, r.node} {
		if exe == "" {
			continue
		}
		if p := installRoot(exe); p != "" && !slices.Contains(extra, p) {
			extra = append(extra, p)
		}
	}
	switch {
	case maxLevel < levelNamespace:
	case h.BwrapOK:
		plan := newBwrapPlan(h.Bwrap, h.Root, h.BwrapSize, append(slices.Clone(extra), r.self))
		r.bwrap = &plan
		r.level = levelNamespace
		r.nproc = !h.Root
	case h.Bwrap != "":
		// Installed but unusable (AppArmor's restriction on Ubuntu 24.04+,
		// most often): every run says so (layers), never silently weaker.
		r.noNamespace = cmp.Or(h.BwrapBlock, BlockBwrapFailed)
	}
	if cgroups && h.cgroups != nil && h.Cgroup.Usable() {
		r.cgroups = h.cgroups
	}
	r.isolation = levelNames[r.level]
	r.readExec = append(slices.Clone(systemDirs), expandExcept("/etc", etcSecrets)...)
	if r.bwrap != nil {
		r.readExec = append(r.readExec, "/proc") // the namespace's own: only the run's processes
	} else {
		r.readExec = append(r.readExec, procFiles...)
	}
	r.readExec = append(r.readExec, extra...)
}

// procFiles are what the code may read of the host's /proc. Not all of it:
// Landlock (ABI 7 here) still lets a sandboxed process read
// /proc/<pid>/environ and maps of every process of the same user, the app's
// API keys included. "/proc/self" resolves, in the shim, to the directory of
// the process that becomes the interpreter.
var procFiles = []string{
	"/proc/self", "/proc/meminfo", "/proc/cpuinfo", "/proc/stat", "/proc/loadavg",
	"/proc/uptime", "/proc/version", "/proc/filesystems", "/proc/sys",
}

// expandExcept lists the entries beneath dir that contain none of the
// excluded paths: whole subtrees where possible, single entries next to an
// excluded one.
func expandExcept(dir string, excluded []string) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		switch {
		case slices.Contains(excluded, p):
		case slices.ContainsFunc(excluded, func(x string) bool { return strings.HasPrefix(x, p+"/") }):
			if e.IsDir() {
				out = append(out, expandExcept(p, excluded)...)
			}
		default:
			out = append(out, p)
		}
	}
	return out
}

// Wait returns once the runs that have ended are cleaned up. Run returns as
// soon as every process of the run is gone and its output read; removing
// its cgroup and directories (a third of a millisecond, a tenth of what
// loopforge adds to a later iteration) goes on in the background. Call
// Wait before exiting, and before looking for what a run left behind.
func (r *Runner) Wait() { r.cleanup.wait() }

// Close stops the Runner's zygote ([Options.Zygote]), if one runs, and
// everything it started. Runs may still be made afterwards: a new zygote
// starts when one is needed. Without Close the zygote ends with the process.
func (r *Runner) Close() {
	if r.zyg != nil {
		r.zyg.close()
	}
}

// Isolation reports the isolation level this Runner applies when all its
// layers work: "basic", "landlock" or "namespace", plus "+cgroup".
func (r *Runner) Isolation() string {
	if r.cgroups != nil {
		return r.isolation + CgroupSuffix
	}
	return r.isolation
}

// Host reports what the host offered when the Runner was made.
func (r *Runner) Host() *Host { return r.host }

// Python reports the resolved interpreter path.
func (r *Runner) Python() string { return r.python }

// Node reports the Node.js interpreter, "" when there is none.
func (r *Runner) Node() string { return r.node }

func (r *Runner) interpreter(lang string, lim Limits) (interpreter, error) {
	return unixInterpreter(r.python, r.node, lang, lim)
}

func (r *Runner) env(wd string) []string { return unixEnv(r.path, "C.UTF-8", wd) }

func rlimits(l Limits, in interpreter, nproc bool) []childRlimit {
	rl := baseRlimits(l)
	// The rest must stay last: see runChild.
	if nproc {
		rl = append(rl, childRlimit{Resource: unix.RLIMIT_NPROC, Cur: uint64(l.Processes), Max: uint64(l.Processes)})
	}
	switch in.mem {
	case memAS:
		rl = append(rl, childRlimit{Resource: syscall.RLIMIT_AS, Cur: uint64(l.MemoryBytes), Max: uint64(l.MemoryBytes)})
	case memData:
		rl = append(rl, childRlimit{Resource: syscall.RLIMIT_DATA, Cur: uint64(l.MemoryBytes), Max: uint64(l.MemoryBytes)})
	}
	return rl
}

// layers builds the shim's spec and fills in res's isolation report. dir
// is the validated Request.Dir ("" for none).
func (r *Runner) layers(req Request, in interpreter, lim Limits, wd, dir string, cg *runCgroup, res *Result) childSpec {
	spec := childSpec{Version: specVersion, Path: in.path, Args: in.args, Rlimits: rlimits(lim, in, r.nproc), Isolation: r.isolation}
	res.Layers = append(res.Layers, "rlimits")
	bwrap := r.bwrap != nil
	if r.seccomp {
		sc := &seccompSpec{}
		switch {
		case bwrap && req.AllowNetwork:
			// The network namespace is shared; no socket rule.
		case bwrap:
			sc.Sockets = []uint32{unix.AF_UNIX} // sockets inside the sandbox's own namespaces
		case req.AllowNetwork:
			// Internet, not the host's Unix sockets (D-Bus, X11, docker).
			sc.Sockets = []uint32{unix.AF_INET, unix.AF_INET6, unix.AF_NETLINK}
		default:
			sc.Sockets = []uint32{}
		}
		if !bwrap { // a PID namespace hides the app already
			sc.AppPid, sc.AppPgid = int32(os.Getpid()), int32(syscall.Getpgrp())
		}
		spec.Seccomp = sc
		res.Layers = append(res.Layers, "seccomp")
	}
	if r.landlock > 0 {
		ll := &landlockSpec{ABI: r.landlock, ReadExec: r.readExec, ReadDev: devRO, RWDev: devRW, RW: []string{wd},
			DenyTCP: !req.AllowNetwork, Scope: true}
		if dir != "" {
			ll.RW = append(ll.RW, dir)
		}
		if bwrap {
			ll.RW = append(ll.RW, "/tmp", "/dev/shm") // private tmpfs mounts
		}
		spec.Landlock = ll
		res.Layers = append(res.Layers, "landlock")
	}
	if bwrap {
		res.Layers = append(res.Layers, "bwrap")
	}
	if cg != nil {
		spec.Cgroups = cg.joinFiles()
		res.Layers = append(res.Layers, "cgroup")
	}

	p := &res.Protections
	p.Files = r.landlock > 0 || bwrap
	p.Network = !req.AllowNetwork && (bwrap || r.seccomp)
	p.Signals = bwrap || r.landlock >= 6
	p.Memory = cg != nil && cg.has("memory")
	bounded := r.nproc || (cg != nil && cg.has("pids"))
	p.Processes = bounded && (bwrap || cg != nil)

	res.Isolation = r.isolation
	if cg != nil {
		res.Isolation += CgroupSuffix
	}
	if !p.Files {
		res.note(event.NewNote(event.NoteNoFiles))
	}
	switch {
	case req.AllowNetwork:
		res.note(event.NewNote(event.NoteNetworkAllowed))
	case !p.Network:
		res.note(event.NewNote(event.NoteNoNetwork))
	}
	if r.noNamespace != "" {
		res.note(event.NewNote(event.NoteNoNamespace, "reason", string(r.noNamespace), "level", r.isolation))
	}
	if n, ok := cgroupNote(cg, r.nproc); ok {
		res.note(n)
	}
	if cg != nil && cg.joinedV2 {
		res.note(event.NewNote(event.NoteCgroupJoined))
	}
	return spec
}

// cgroupNote explains the limits a run's cgroup lacks (a cgroup v2 parent
// without delegated controllers gives only the complete kill); false when
// it has them all or there is no cgroup.
func cgroupNote(cg *runCgroup, nproc bool) (event.ExecNote, bool) {
	if cg == nil {
		return event.ExecNote{}, false
	}
	var missing []string
	for _, c := range v1Controllers {
		if !cg.has(c) {
			missing = append(missing, c)
		}
	}
	if len(missing) == 0 {
		return event.ExecNote{}, false
	}
	bounded := ""
	if nproc {
		bounded = "1"
	}
	return event.NewNote(event.NoteCgroupPartial, "controllers", strings.Join(missing, ","), "nproc", bounded), true
}

// Run executes req and reports the outcome. The error is non-nil only when
// the sandbox itself failed (then Status is StatusSandboxError), a
// *DirError for a Request.Dir it refuses among them; a timeout is
// StatusTimeout and a cancelled ctx is StatusKilled, both with a nil error.
// Run returns only after every process of the run is gone and its output
// read; its work directory and cgroup are removed in the background
// ([Runner.Wait]; Request.Dir and what the code wrote there stay).
// Everything is set up after the code arrives; [Runner.Prepare] sets up
// ahead of it.
func (r *Runner) Run(ctx context.Context, req Request) (Result, error) {
	if res, err, ok := r.runZygote(ctx, req); ok {
		return res, err
	}
	res, err := r.runCold(ctx, req)
	if errors.Is(err, errBornKilled) && r.cgroups != nil {
		// Nothing of the code ran (the shim never spoke): the probe saw
		// children born into a cgroup live, and this host now kills them.
		// This run and the next join their cgroup from the shim instead.
		if r.cgroups.switchToJoin(errBornKilled) {
			slog.Warn("sandbox: a run was killed as it was born into its cgroup; runs join their cgroup from the shim from now on", "err", err)
		}
		return r.runCold(ctx, req)
	}
	return res, err
}

// runCold is one attempt at Run.
func (r *Runner) runCold(ctx context.Context, req Request) (Result, error) {
	x, res, err := r.setup(ctx, req, false)
	if x == nil {
		return res, err
	}
	defer x.release()
	// The timeout covers the start-up too: the code is there already.
	x.arm(ctx, time.Now())
	if res, err, ok := x.start(ctx); !ok {
		return res, err
	}
	x.startOutput(req)
	return x.finish()
}

// findNode resolves the Node.js binary once; "" when there is none.
func findNode(explicit string) string {
	if explicit != "" {
		if p, err := exec.LookPath(explicit); err == nil {
			return p
		}
		return ""
	}
	if isExecutable("/usr/bin/node") {
		return "/usr/bin/node"
	}
	for _, name := range []string{"node", "nodejs"} {
		if p, err := exec.LookPath(name); err == nil {
			if abs, err := filepath.Abs(p); err == nil {
				return abs
			}
			return p
		}
	}
	return ""
}

// findPython resolves the interpreter once. Launcher scripts (pyenv shims)
// cost ~70 ms per start and read the user's ~/.pyenv, so a script found on
// PATH is asked for the real binary behind it.
func findPython(explicit string) (string, error) {
	if explicit != "" {
		p, err := exec.LookPath(explicit)
		if err != nil {
			return "", &InterpreterError{Tried: []string{explicit}, Err: err}
		}
		return realPython(p), nil
	}
	const system = "/usr/bin/python3"
	tried := []string{system}
	if isExecutable(system) {
		return system, nil
	}
	var last error
	for _, name := range []string{"python3", "python"} {
		tried = append(tried, name+" on PATH")
		p, err := exec.LookPath(name)
		if err != nil {
			last = err
			continue
		}
		return realPython(p), nil
	}
	return "", &InterpreterError{Tried: tried, Err: last}
}

func isExecutable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}

// realPython returns p, or the interpreter a launcher script p runs.
func realPython(p string) string {
	if abs, err := filepath.Abs(p); err == nil {
		p = abs
	}
	f, err := os.Open(p)
	if err != nil {
		return p
	}
	magic := make([]byte, 2)
	_, err = io.ReadFull(f, magic)
	_ = f.Close()
	if err != nil || string(magic) != "#!" {
		return p
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, p, "-c", "import sys; print(sys.executable)").Output()
	if err != nil {
		return p
	}
	if real := strings.TrimSpace(string(out)); filepath.IsAbs(real) && isExecutable(real) {
		return real
	}
	return p
}
