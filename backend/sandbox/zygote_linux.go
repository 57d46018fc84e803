//go:build linux

package sandbox

// The zygote ([Options.Zygote], off by default; loopforge asks for it for
// a class's runs, [Request.Forked]): script-mode Python runs
// forked from one pre-started interpreter instead of a fresh bubblewrap,
// shim and interpreter each. A fresh sandbox costs about 25 ms of CPU
// before the code's first line (bubblewrap ~6, the shim ~4, Python's own
// start ~15). Forked, the three processes below cost about 2, 1.5 and 2.5
// ms (process_time in each); bench/classload counted 12-15 ms of sandbox
// CPU an execution through the zygote against 27-30 fresh (2 loaded
// cores, 40 students × 2 runs, three rounds).
//
// The zygote is python3 running pyhook/_loopforge_zygote.py, started once
// per Runner, lazily, inside a sandbox built like a run's: bubblewrap
// (own user, PID, network, IPC, UTS and mount namespaces; /usr, /etc
// without its credential files, the interpreter and a private read-only
// directory holding the script; its runs root read-write), Landlock (the
// same read-only places; read-write only its runs root, /tmp and /dev/shm;
// no TCP; scoped signals and abstract sockets), seccomp (the runs' filter
// except that unshare(2) and clone(2) may make namespaces, for its
// children; ptrace, setns, mounts and the rest stay refused), no
// capabilities, and --die-with-parent. It never runs code: it reads
// requests from loopforge on a socket only the two of them hold, and the
// few messages its children send before their code starts. Per execution:
//
//	zygote
//	└─ C1: joins the run's cgroups (cgroup.procs descriptors loopforge
//	   │   opened), unshare(NEWUSER|NEWPID|NEWIPC)
//	   └─ C2: PID 1 of the new PID namespace, its init
//	      └─ C3: PID 2: the run dir as cwd, HOME and TMPDIR, its own
//	             Landlock domain, no capabilities, no_new_privs, the full
//	             seccomp filter, the run's rlimits, every other descriptor
//	             closed; then it reads its code and runs it in a fresh
//	             __main__.
//
// C2 reaps and reports C3's wait status; once C2 (PID 1 of the namespace)
// has exited, every process in it is gone. A cold Run sends the code with
// the request (a memfd); [Runner.Prepare] forks the run at once and C3
// waits for its code on a pipe that Prepared.Run fills, so the cgroup
// joins (an RCU grace period each), the namespaces and the forks happen
// while the model writes, as a warm run's sandbox does.
//
// Isolation review: each property, how it holds, and what is weaker than a
// fresh sandbox.
//
//   - Files. C3's own Landlock domain, nested in the zygote's, allows
//     reading and executing the system directories, /etc (its credential
//     files stay out of reach: the zygote's domain leaves them out, and
//     bubblewrap masks them), the interpreter's prefix, the figure hook, its own
//     /proc entry and a few /proc files (meminfo, cpuinfo, ...); reading
//     and writing its run dir only. Other runs' run dirs lie in the same
//     runs root but outside every rule: unreadable, unlistable. Weaker:
//     there is no per-run mount namespace, so the code sees the zygote's
//     mounts (it cannot use them); /tmp and /dev/shm are the zygote's,
//     shared by every run, so no run may write them (TMPDIR is the run dir,
//     as always; POSIX semaphores, hence multiprocessing's locks, fail).
//   - Processes and signals. The code runs in a PID namespace of its
//     own, in a user namespace of its own: the only PIDs it can name are
//     its init's (1) and its own; no other run, nor the zygote, nor C1
//     has one. Landlock's signal scope (ABI 6+, required) refuses signals
//     to any process outside its domain (its init included), and its
//     ptrace restriction and seccomp's refusal of ptrace and process_vm_*
//     keep it off other processes' memory. /proc is the zygote's
//     namespace's (a fresh /proc cannot be mounted beneath bubblewrap's
//     masked one, and a fresh mount would need a mount namespace per run):
//     its PIDs are not the code's, and Landlock grants the code only its
//     own entry and a few system files, so it cannot list /proc nor read
//     any other process's entry. Weaker: the code's own children cannot
//     read their /proc/self (only C3's entry is granted).
//   - Leftovers. Everything the code starts is in its PID namespace and
//     its cgroup: when C3 exits, C2 exits, and the kernel kills the rest
//     of the namespace before C2 can be reaped (the zygote reports the end
//     only once C2's pidfd says so), and loopforge's sweep kills and waits
//     for the cgroup. The timeout, cancellation and the output cap kill C1
//     and C2 through the zygote (C2 by pidfd) and the cgroup from
//     loopforge; C1, C2 and C3 die with their parents (PR_SET_PDEATHSIG),
//     the zygote's whole namespace with bubblewrap. Nothing of one run
//     survives into the next: a new run is a new namespace and domain.
//   - Limits. rlimits as in a fresh run (CPU, file size, open files,
//     RLIMIT_AS, no core dumps; RLIMIT_NPROC where the fresh run has it,
//     counted in the run's own user namespace), and the run's own cgroup
//     (pids, memory, CPU) joined by C1 before C2 exists. A fork bomb meets
//     its own pids.max (or RLIMIT_NPROC); the zygote's own RLIMIT_NPROC
//     bounds all its runs together (the fresh path's per-run bound times
//     the zygote's concurrent runs), so a bomb cannot stop it forking the
//     next run. Weaker: C1 and C2 count against the run's pids limit (two
//     processes of Limits.Processes, where a fresh run's bwrap init
//     counts one); as root, without a pids cgroup, nothing bounds a fork
//     bomb (as in a fresh run).
//   - Network. The zygote's network namespace has only loopback and the
//     filter allows Unix sockets only (TCP also refused by Landlock);
//     abstract Unix sockets are scoped to the run's domain, and it cannot
//     create a named socket outside its run dir, so runs cannot reach each
//     other. Weaker: no network namespace per run (loopback is shared but
//     unreachable through the socket rule). Requests with AllowNetwork run
//     fresh.
//   - IPC. Own IPC namespace per run (System V queues, semaphores, shared
//     memory).
//   - Environment and state. C3 rebuilds os.environ from the same
//     allow-list; stdin, stdout and stderr are the run's; sys.argv, the
//     cwd, tempfile and a fresh __main__ are set before the code.
//     Weaker, by construction: the interpreter is a copy of the zygote's,
//     so the modules it imported are already in sys.modules (unchanged by
//     any run: each run's changes die with its copy), every run has the
//     same hash seed (string hashes, set order), and the code's
//     tracebacks start at its own frame as in a fresh run but the
//     interpreter's own start-up (site, sitecustomize) does not run again.
//   - Trust. The zygote reads from its children only: C1's message naming
//     C2 (with C2's pidfd), C3's "started", C2's report of C3's wait
//     status, and "E<reason>" before the code starts, on a socket pair
//     whose end C3 closes before the code runs (C1 and C2 never run code,
//     and the code can neither signal nor ptrace them); each is parsed
//     strictly, and a status is only a number loopforge reads as one
//     run's own outcome. The code cannot reach the zygote's socket to
//     loopforge, the zygote's memory or its /proc entry.
//
// Fallback: requests the zygote does not support (not Python, a project
// dir, AllowNetwork, more processes than its budget per run) and hosts
// without bubblewrap, seccomp or Landlock ABI 6 run fresh; so does a run
// the zygote failed to start (nothing of its code ran), and every run while
// the zygote cannot be started.

import (
	"context"
	_ "embed"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/loopforge/loopforge/backend/event"
	"github.com/loopforge/loopforge/backend/procgroup"
	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

//go:embed pyhook/_loopforge_zygote.py
var zygoteScript []byte

const (
	zygoteScriptName = "_loopforge_zygote.py"
	// zygoteRuns bounds the runs one zygote serves at once; more run
	// fresh.
	zygoteRuns = 16
	// zygoteProcesses is the most processes a run may ask for and still
	// be forked from the zygote (Limits.Processes; the default is 128).
	zygoteProcesses = 256
	// zygoteStart bounds the zygote's start-up.
	zygoteStart = 15 * time.Second
)

// ErrZygote is matched (errors.Is) by the zygote's own failures; a run
// that meets one before its code started runs fresh instead.
var ErrZygote = errors.New("sandbox: zygote failed")

// zygotes holds a Runner's zygote, started on first need; shared by copies
// of the Runner.
type zygotes struct {
	askedOnly bool // Options.Zygote is ZygoteAsked: only runs with Request.Forked
	mu        sync.Mutex
	z         *zygote
	starts    int // starts that failed in a row
	fails     int // runs that failed to start in a row
	off       string
	// retired zygotes close once their runs have ended (closeWhenIdle),
	// or with the Runner.
	retired []*zygote
}

// zygote is one running zygote process.
type zygote struct {
	r      *Runner
	root   string // runs root: read-write in the zygote's sandbox
	dir    string // the script and the figure hook, read-only
	conn   *net.UnixConn
	cmd    *exec.Cmd
	ns     *nsInit
	exited chan struct{} // closed when bwrap has exited
	dead   chan struct{} // closed once the zygote is unusable
	once   sync.Once     // die
	slots  chan struct{}
	// closeOnce: close runs once (a retired zygote may be closed by its
	// own closeWhenIdle and by Runner.Close).
	closeOnce sync.Once

	mu   sync.Mutex
	runs map[uint64]*zygoteRun
	seq  atomic.Uint64
	pid  int // the zygote's PID in its own namespace
}

// zygoteRun is what the zygote said of one run.
type zygoteRun struct {
	started chan struct{} // closed at "started": the code is about to run
	done    chan zygoteMsg
}

type zygoteMsg struct {
	ID     uint64 `json:"id"`
	Ev     string `json:"ev"`
	Status int    `json:"status"`
	Error  string `json:"error"`
	Pid    int    `json:"pid"` // "ready": the zygote's, in its namespace
}

// zygoteUsable says why this Runner cannot use a zygote, "" when it can.
func (r *Runner) zygoteUsable() string {
	switch {
	case r.bwrap == nil:
		return "no bubblewrap"
	case !r.seccomp:
		return "no seccomp"
	case r.landlock < 6:
		return "Landlock ABI 6 (scoped signals) is needed"
	}
	return ""
}

// zygoteFits says why req cannot run in a zygote, "" when it can.
func zygoteFits(req Request, lim Limits) string {
	switch {
	case req.Language != "" && req.Language != "python":
		return "not python"
	case req.Dir != "":
		return "a project dir"
	case req.AllowNetwork:
		return "network allowed"
	case lim.Processes > zygoteProcesses:
		return "more processes than a zygote run may have"
	}
	return ""
}

// runZygote runs req in the Runner's zygote. ok is false when the run
// should go fresh instead: the zygote is off, does not fit the request, is
// busy, or failed before the code started.
func (r *Runner) runZygote(ctx context.Context, req Request) (res Result, err error, ok bool) {
	x := r.beginZygote(ctx, req, false)
	if x == nil {
		return Result{}, nil, false
	}
	return x.wait(ctx, req, time.Now())
}

// beginZygote sends req to the zygote: a run that starts at once, or, when
// prepared, one whose code comes later (its process waits for it, every
// layer applied). nil when the run should go fresh.
func (r *Runner) beginZygote(ctx context.Context, req Request, prepared bool) *zygoteExec {
	lim := req.Limits.withDefaults()
	if r.zyg == nil || (r.zyg.askedOnly && !req.Forked) || zygoteFits(req, lim) != "" || ctx.Err() != nil {
		return nil
	}
	z := r.zyg.get(r)
	if z == nil {
		return nil
	}
	select {
	case z.slots <- struct{}{}:
	default:
		return nil // busy: this one runs fresh
	}
	x, err := z.begin(ctx, req, lim, prepared)
	if err != nil { // begin gave the slot back
		r.zyg.failed(z, err)
		return nil
	}
	return x
}

// get returns the running zygote, starting one if needed; nil when none can
// run (the reason is logged once).
func (zs *zygotes) get(r *Runner) *zygote {
	zs.mu.Lock()
	defer zs.mu.Unlock()
	if zs.z != nil {
		select {
		case <-zs.z.dead:
			zs.z.close()
			zs.z = nil
		default:
			return zs.z
		}
	}
	if zs.off != "" {
		return nil
	}
	z, err := startZygote(r)
	if err != nil {
		zs.starts++
		slog.Warn("sandbox: the zygote did not start; runs start fresh", "err", err, "attempt", zs.starts)
		if zs.starts >= 3 {
			zs.off = err.Error()
		}
		return nil
	}
	zs.starts = 0
	zs.z = z
	return z
}

// failed counts a run the zygote could not start (its code never ran; it
// runs fresh): three in a row turn the zygote off for good, as three
// failed starts do.
func (zs *zygotes) failed(z *zygote, err error) {
	slog.Warn("sandbox: the zygote could not start a run; it runs fresh", "err", err)
	zs.mu.Lock()
	defer zs.mu.Unlock()
	if zs.fails++; zs.fails >= 3 && zs.off == "" {
		zs.off = err.Error()
		slog.Warn("sandbox: the zygote is turned off; every run starts fresh", "err", err)
		if zs.z == z {
			zs.z = nil
			zs.retired = append(zs.retired, z)
			go z.closeWhenIdle() // its runs in flight end first
		}
	}
}

// succeeded resets the count of failed runs.
func (zs *zygotes) succeeded() {
	zs.mu.Lock()
	zs.fails = 0
	zs.mu.Unlock()
}

// close stops the zygotes, if any.
func (zs *zygotes) close() {
	zs.mu.Lock()
	defer zs.mu.Unlock()
	if zs.z != nil {
		zs.z.close()
		zs.z = nil
	}
	for _, z := range zs.retired {
		z.close()
	}
	zs.retired = nil
}

// zygoteConfig is what the zygote's children apply (see the script).
type zygoteConfig struct {
	ABI        int              `json:"abi"`
	Handled    uint64           `json:"handled"`
	Net        uint64           `json:"net"`
	Scoped     uint64           `json:"scoped"`
	FileRights uint64           `json:"file_rights"`
	Rules      [][2]interface{} `json:"rules"`
	RW         uint64           `json:"rw"`
	ProcSelf   uint64           `json:"proc_self"`
	Seccomp    string           `json:"seccomp"`
	Hook       string           `json:"hook"`
}

// childConfig is the children's layers: the Landlock rules of a fresh run
// of this Runner without /proc (their own entry is added by each) and the
// seccomp filter of a fresh run under bubblewrap.
func (r *Runner) childConfig(hook string) (zygoteConfig, error) {
	abi := r.landlock
	c := zygoteConfig{ABI: abi, Handled: llHandledFS(abi), FileRights: llFileRights, Hook: hook,
		ProcSelf: unix.LANDLOCK_ACCESS_FS_READ_FILE | unix.LANDLOCK_ACCESS_FS_READ_DIR}
	c.RW = c.Handled
	if abi >= 4 {
		c.Net = unix.LANDLOCK_ACCESS_NET_BIND_TCP | unix.LANDLOCK_ACCESS_NET_CONNECT_TCP
	}
	if abi >= 6 {
		c.Scoped = unix.LANDLOCK_SCOPE_SIGNAL | unix.LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET
	}
	add := func(paths []string, access uint64) {
		for _, p := range paths {
			c.Rules = append(c.Rules, [2]interface{}{p, access})
		}
	}
	// /etc whole: one rule instead of one per entry (a run adds each of
	// its rules). Its credential files stay unreadable: they are outside
	// the zygote's own domain, which every run's is nested in, and
	// bubblewrap masks them.
	ro := slices.DeleteFunc(slices.Clone(r.readExec), func(p string) bool { return p == "/proc" || strings.HasPrefix(p, "/etc/") })
	ro = append(ro, "/etc")
	for _, p := range procFiles {
		if p != "/proc/self" { // it would be the zygote's own
			ro = append(ro, p)
		}
	}
	add(append(ro, hook), llReadExec)
	add(devRO, unix.LANDLOCK_ACCESS_FS_READ_FILE)
	add(devRW, llDevRW)
	raw, err := bpf.Assemble(seccompProgram(seccompSpec{Sockets: []uint32{unix.AF_UNIX}}))
	if err != nil {
		return c, fmt.Errorf("assemble seccomp filter: %w", err)
	}
	b := make([]byte, 0, 8*len(raw))
	for _, in := range raw {
		b = binary.LittleEndian.AppendUint16(b, in.Op)
		b = append(b, in.Jt, in.Jf)
		b = binary.LittleEndian.AppendUint32(b, in.K)
	}
	c.Seccomp = hex.EncodeToString(b)
	return c, nil
}

// testHookZygoteConfig, when set (by tests), changes what a new zygote's
// runs apply, to make them fail.
var testHookZygoteConfig func(*zygoteConfig)

// zygoteLimits are the zygote's own rlimits: no CPU or memory rlimit (it
// lives long; its runs set theirs), and its runs' processes together
// bounded where RLIMIT_NPROC counts them.
func (r *Runner) zygoteLimits() []childRlimit {
	rl := []childRlimit{
		{Resource: syscall.RLIMIT_CORE, Cur: 0, Max: 0},
		{Resource: syscall.RLIMIT_NOFILE, Cur: 4096, Max: 4096},
	}
	if r.nproc {
		n := uint64(zygoteRuns*(zygoteProcesses+2) + 64)
		rl = append(rl, childRlimit{Resource: unix.RLIMIT_NPROC, Cur: n, Max: n})
	}
	return rl
}

func startZygote(r *Runner) (*zygote, error) {
	root, err := os.MkdirTemp(r.tempRoot, tempPattern(kindZygote, r.owner))
	if err != nil {
		return nil, fmt.Errorf("%w: runs root: %w", ErrZygote, err)
	}
	z := &zygote{r: r, root: root, exited: make(chan struct{}), dead: make(chan struct{}),
		slots: make(chan struct{}, zygoteRuns), runs: map[uint64]*zygoteRun{}}
	if err := z.start(); err != nil {
		z.close()
		return nil, err
	}
	return z, nil
}

func (z *zygote) start() error {
	r := z.r
	fail := func(err error) error { return fmt.Errorf("%w: %w", ErrZygote, err) }
	var err error
	if z.dir, err = makeHookDir(z.root, r.owner); err != nil {
		return fail(err)
	}
	// Read-only for the runs by their Landlock rules, as the figure hook
	// of a fresh run is.
	script := filepath.Join(z.dir, zygoteScriptName)
	if err := os.WriteFile(script, zygoteScript, 0o444); err != nil {
		return fail(err)
	}
	cfg, err := r.childConfig(z.dir)
	if err != nil {
		return fail(err)
	}
	if testHookZygoteConfig != nil {
		testHookZygoteConfig(&cfg)
	}
	specJSON, err := json.Marshal(z.spec(script))
	if err != nil {
		return fail(err)
	}
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return fail(fmt.Errorf("socket pair: %w", err))
	}
	mine, theirs := os.NewFile(uintptr(fds[0]), "zygote"), os.NewFile(uintptr(fds[1]), "zygote-child")
	defer theirs.Close()
	c, err := net.FileConn(mine)
	_ = mine.Close()
	if err != nil {
		return fail(err)
	}
	z.conn = c.(*net.UnixConn)
	statusR, statusW, err := os.Pipe()
	if err != nil {
		return fail(err)
	}
	defer statusR.Close()
	defer statusW.Close()
	if z.ns, err = newNSInit(); err != nil {
		return fail(err)
	}
	lim := DefaultLimits()
	cmd := exec.Command(r.bwrap.path, r.bwrap.args(z.root, "", []string{z.dir}, lim, false, nil, r.self)...)
	cmd.Dir = z.root
	cmd.Env = append(unixEnv(r.path, "C.UTF-8", z.root), specEnv+"="+string(specJSON))
	cmd.Stderr = os.Stderr // the zygote's own failures (never a run's output)
	cmd.ExtraFiles = []*os.File{statusW, theirs, z.ns.w}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return fail(fmt.Errorf("start %s: %w", r.bwrap.path, err))
	}
	z.cmd = cmd
	z.ns.started(cmd.Process.Pid)
	go func() {
		_ = cmd.Wait()
		close(z.exited)
		z.die()
	}()
	_ = statusW.Close()
	_ = theirs.Close()
	cb, _ := json.Marshal(cfg)
	if _, err := z.conn.Write(cb); err != nil {
		return fail(fmt.Errorf("configure: %w", err))
	}
	if err := z.awaitReady(statusR); err != nil {
		return fail(err)
	}
	go z.read()
	slog.Debug("sandbox: zygote started", "root", z.root)
	return nil
}

// spec is the zygote's own sandbox: a run's layers, except that seccomp
// lets it make namespaces for its children and Landlock lets it write its
// runs root, /tmp and /dev/shm.
func (z *zygote) spec(script string) childSpec {
	r := z.r
	in := pythonInterpreter(r.python).withScript(script)
	return childSpec{Version: specVersion, Path: in.path, Args: in.args, Rlimits: r.zygoteLimits(), Isolation: r.isolation,
		Seccomp: &seccompSpec{Sockets: []uint32{unix.AF_UNIX}, Namespaces: true},
		Landlock: &landlockSpec{ABI: r.landlock, ReadExec: append(slices.Clone(r.readExec), z.dir), ReadDev: devRO, RWDev: devRW,
			RW: []string{z.root, "/tmp", "/dev/shm"}, DenyTCP: true, Scope: true}}
}

// awaitReady reads the zygote's first message, "ready" with its PID; when
// none comes, the error quotes what the shim said on its status pipe.
func (z *zygote) awaitReady(statusR *os.File) error {
	_ = z.conn.SetReadDeadline(time.Now().Add(zygoteStart))
	buf := make([]byte, 4096)
	n, err := z.conn.Read(buf)
	if err != nil {
		status := make([]byte, 512)
		k, _ := statusR.Read(status)
		return fmt.Errorf("no ready message (%w); the shim said %q", err, status[:k])
	}
	var m zygoteMsg
	if json.Unmarshal(buf[:n], &m) != nil || m.Ev != "ready" {
		return fmt.Errorf("unexpected first message %q", buf[:n])
	}
	_ = z.conn.SetReadDeadline(time.Time{})
	z.pid = m.Pid
	return nil
}

// read dispatches the zygote's messages to their runs until it ends.
func (z *zygote) read() {
	defer z.die()
	buf := make([]byte, 8192)
	for {
		n, err := z.conn.Read(buf)
		if err != nil || n == 0 {
			return
		}
		var m zygoteMsg
		if err := json.Unmarshal(buf[:n], &m); err != nil {
			slog.Warn("sandbox: the zygote sent an unreadable message", "err", err)
			return
		}
		z.mu.Lock()
		run := z.runs[m.ID]
		if run != nil && m.Ev != "started" {
			delete(z.runs, m.ID)
		}
		z.mu.Unlock()
		if run == nil {
			continue
		}
		if m.Ev == "started" {
			select {
			case <-run.started: // said twice: the zygote says it once
			default:
				close(run.started)
			}
			continue
		}
		run.done <- m
	}
}

// die marks the zygote unusable; its pending runs see it through dead.
func (z *zygote) die() { z.once.Do(func() { close(z.dead) }) }

// closeWhenIdle closes a zygote that takes no more runs once those it has
// (prepared ones included, which their callers run or close) have ended.
func (z *zygote) closeWhenIdle() {
	for len(z.slots) > 0 {
		select {
		case <-z.dead:
		case <-time.After(20 * time.Millisecond):
			continue
		}
		break
	}
	z.close()
}

// close stops the zygote and everything it started, and removes its
// directories. Safe to call more than once.
func (z *zygote) close() {
	z.closeOnce.Do(z.doClose)
}

func (z *zygote) doClose() {
	z.die()
	if z.conn != nil {
		_ = z.conn.Close() // the zygote kills its runs and exits
	}
	if z.cmd != nil {
		select {
		case <-z.exited:
		case <-time.After(sweepWithin):
		}
		_ = syscall.Kill(-z.cmd.Process.Pid, syscall.SIGKILL)
		_ = z.cmd.Process.Kill()
		if err := z.ns.killAndWait(sweepWithin); err != nil {
			slog.Warn("sandbox: stopping the zygote", "err", err)
		}
		<-z.exited
	}
	if z.ns != nil {
		z.ns.close()
	}
	root := z.root
	z.r.cleanup.goRemove(func() { removeWorkdir(root) })
}

// errZygoteNotStarted: the zygote failed a run before its code started.
var errZygoteNotStarted = fmt.Errorf("%w before the code started", ErrZygote)

// zygoteExec is one run in the zygote, from loopforge's side.
type zygoteExec struct {
	z      *zygote
	req    Request
	lim    Limits
	res    Result
	id     uint64
	run    *zygoteRun
	wd     string
	script string   // the program file (a run with Stdin), "" for none
	hook   bool     // pictures: collected from the run dir
	codeW  *os.File // a prepared run's: the code goes here at the hand-over
	cg     *runCgroup
	out    *outputPipe
	errp   *outputPipe
	stdout *procgroup.HeadTail
	stderr *procgroup.HeadTail
	once   sync.Once // release
}

// begin sets the run up and sends it to the zygote.
func (z *zygote) begin(ctx context.Context, req Request, lim Limits, prepared bool) (*zygoteExec, error) {
	r := z.r
	x := &zygoteExec{z: z, req: req, lim: lim, res: Result{Isolation: r.Isolation(), Limits: lim}, id: z.seq.Add(1),
		run: &zygoteRun{started: make(chan struct{}), done: make(chan zygoteMsg, 1)}}
	msg, files, err := x.setup(ctx, prepared)
	defer func() {
		for _, f := range files {
			_ = f.Close()
		}
	}()
	if err != nil {
		x.release()
		return nil, err
	}
	z.mu.Lock()
	z.runs[x.id] = x.run
	z.mu.Unlock()
	fds := make([]int, len(files))
	for i, f := range files {
		fds[i] = int(f.Fd())
	}
	if _, _, err := z.conn.WriteMsgUnix(msg, unix.UnixRights(fds...), nil); err != nil {
		x.forget()
		x.release()
		return nil, fmt.Errorf("send: %w", err)
	}
	// The zygote's children hold their copies; EOF must come from them.
	x.out.closeWriter()
	x.errp.closeWriter()
	return x, nil
}

// forget stops following the run's messages.
func (x *zygoteExec) forget() {
	x.z.mu.Lock()
	delete(x.z.runs, x.id)
	x.z.mu.Unlock()
}

// handOver gives a prepared run its code: the program file first, when
// there is one, then the code through the pipe, whose end starts it.
func (x *zygoteExec) handOver(code string) {
	if x.script != "" {
		if err := os.WriteFile(x.script, []byte(code), 0o600); err != nil {
			slog.Debug("sandbox: write the program file", "err", err) // tracebacks show no source lines
		}
	}
	w := x.codeW
	x.codeW = nil
	go func() {
		_, _ = io.WriteString(w, code) // EPIPE when the run died meanwhile: wait says how
		_ = w.Close()
	}()
}

// kill asks the zygote to kill the run and kills its cgroup.
func (x *zygoteExec) kill() {
	b, _ := json.Marshal(map[string]any{"op": "kill", "id": x.id})
	_, _ = x.z.conn.Write(b)
	if x.cg != nil {
		x.cg.kill()
	}
}

// wait runs the run from its hand-over (handed) to its end and reports it.
// ok is false when it should run fresh: nothing of its code ran.
func (x *zygoteExec) wait(ctx context.Context, req Request, handed time.Time) (res Result, err error, ok bool) {
	z, lim := x.z, x.lim
	defer x.release()
	runCtx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	timer := time.AfterFunc(lim.Timeout-time.Since(handed), func() { stop(errTimedOut) })
	defer timer.Stop()
	overflow := func() { stop(errOutputLimit) }
	x.stdout = procgroup.NewHeadTail(lim.OutputHead, lim.OutputTail).OnOverflow(lim.OutputHardCap, overflow)
	x.stderr = procgroup.NewHeadTail(lim.OutputHead, lim.OutputTail).OnOverflow(lim.OutputHardCap, overflow)
	x.out.start(tee(x.stdout, req.LiveStdout))
	x.errp.start(tee(x.stderr, req.LiveStderr))

	var end zygoteMsg
	var cause error
	done := runCtx.Done()
	for end.Ev == "" {
		select {
		case end = <-x.run.done:
		case <-done:
			cause, done = context.Cause(runCtx), nil
			x.kill()
		case <-z.dead:
			// Its namespace dies with it, and every run's with that.
			x.forget()
			if x.cg != nil {
				_ = x.cg.killAndWait(sweepWithin)
			}
			select {
			case <-x.run.started:
				res, err := failed(x.res, fmt.Errorf("%w: it ended during the run", ErrZygote))
				return res, err, true
			default:
				if cause != nil {
					return x.stopped(cause), nil, true
				}
				z.r.zyg.failed(z, fmt.Errorf("%w: it ended", errZygoteNotStarted))
				return Result{}, nil, false
			}
		}
	}
	took := time.Since(handed)
	if end.Ev == "error" {
		select {
		case <-x.run.started:
			res, err := failed(x.res, fmt.Errorf("%w: %s", ErrZygote, end.Error))
			return res, err, true
		default:
		}
		if cause != nil { // stopped before its code ran
			return x.stopped(cause), nil, true
		}
		z.r.zyg.failed(z, fmt.Errorf("%w: %s", errZygoteNotStarted, end.Error))
		return Result{}, nil, false
	}
	z.r.zyg.succeeded()
	if x.cg != nil {
		if err := x.cg.killAndWait(sweepWithin); err != nil {
			slog.Warn("sandbox: final sweep incomplete", "err", err)
		}
	}
	res, err = x.finish(syscall.WaitStatus(end.Status), cause, took)
	return res, err, true
}

// stopped is the result of a run stopped for cause before its code ran.
func (x *zygoteExec) stopped(cause error) Result {
	res := x.res
	res.Status = statusFromCause(cause)
	return res
}

// setup makes the run dir, the cgroup and the descriptors the zygote
// passes on, and the request.
func (x *zygoteExec) setup(ctx context.Context, prepared bool) (msg []byte, files []*os.File, err error) {
	z, r, req, lim := x.z, x.z.r, x.req, x.lim
	if x.wd, err = os.MkdirTemp(z.root, tempPattern(kindRun, r.owner)); err != nil {
		return nil, nil, fmt.Errorf("create work dir: %w", err)
	}
	in := pythonInterpreter(r.python)
	file, argv0 := "<stdin>", "-"
	if len(req.Stdin) > 0 {
		// As a fresh run with standard input: the program is a file in
		// the run dir (a prepared run's, from the hand-over).
		x.script = filepath.Join(x.wd, programStem+in.ext)
		file, argv0 = x.script, x.script
		if !prepared {
			if err := os.WriteFile(x.script, []byte(req.Code), 0o600); err != nil {
				return nil, nil, fmt.Errorf("write the program: %w", err)
			}
		}
	}
	env := r.env(x.wd)
	if req.Images {
		x.hook = true
		env = append(env, imageEnv(x.wd, z.dir)...)
	}
	if m, ok := ctx.Value(testMarkerKey{}).(string); ok {
		env = append(env, m)
	}
	if r.cgroups != nil {
		if x.cg, err = r.cgroups.create(lim); err != nil {
			slog.Warn("sandbox: no cgroup for this run", "err", err)
			x.res.note(event.NewNote(event.NoteCgroupFailed, "detail", err.Error()))
			x.cg = nil
		} else {
			x.cg.closeFD()
			x.cg.sealed = true
		}
	}
	_ = r.layers(req, in, lim, x.wd, "", x.cg, &x.res)
	x.res.Layers = append(x.res.Layers, "zygote")

	if files, err = x.descriptors(prepared); err != nil {
		return nil, files, err
	}
	var rl [][3]uint64
	for _, l := range rlimits(lim, in, r.nproc) {
		rl = append(rl, [3]uint64{uint64(l.Resource), l.Cur, l.Max})
	}
	msg, err = json.Marshal(map[string]any{"op": "run", "id": x.id, "wd": x.wd, "env": env, "rlimits": rl,
		"file": file, "argv0": argv0, "images": req.Images})
	return msg, files, err
}

// descriptors are the files the zygote passes to the run, in the order it
// takes them: the program (a pipe the hand-over fills, or a memfd), stdin,
// stdout, stderr, then the run's cgroup.procs files. On an error, the
// files opened so far come back to be closed.
func (x *zygoteExec) descriptors(prepared bool) (files []*os.File, err error) {
	if prepared {
		pr, pw, err := os.Pipe()
		if err != nil {
			return nil, fmt.Errorf("program pipe: %w", err)
		}
		x.codeW = pw
		files = append(files, pr)
	} else {
		code, err := unix.MemfdCreate("loopforge-program", unix.MFD_CLOEXEC)
		if err != nil {
			return nil, fmt.Errorf("program memfd: %w", err)
		}
		files = append(files, os.NewFile(uintptr(code), "program"))
		if _, err := files[0].WriteString(x.req.Code); err != nil {
			return files, fmt.Errorf("program memfd: %w", err)
		}
	}
	stdin, err := zygoteStdin(x.req.Stdin)
	if err != nil {
		return files, err
	}
	files = append(files, stdin)
	if x.out, err = newOutputPipe(); err != nil {
		return files, err
	}
	if x.errp, err = newOutputPipe(); err != nil {
		return files, err
	}
	files = append(files, x.out.w, x.errp.w)
	if x.cg != nil {
		procs := x.cg.dirs()
		for _, d := range procs {
			f, err := os.OpenFile(filepath.Join(d, "cgroup.procs"), os.O_WRONLY, 0)
			if err != nil {
				return files, fmt.Errorf("open the run's cgroup: %w", err)
			}
			files = append(files, f)
		}
	}
	return files, nil
}

// zygoteStdin is the program's standard input: req.Stdin then EOF, or
// EOF at once. A pipe holds 64 KiB; more is written by a goroutine.
func zygoteStdin(data []byte) (*os.File, error) {
	if len(data) == 0 {
		f, err := os.Open(os.DevNull)
		if err != nil {
			return nil, fmt.Errorf("stdin: %w", err)
		}
		return f, nil
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("stdin pipe: %w", err)
	}
	go func() {
		_, _ = pw.Write(data) // EPIPE once the program is gone
		_ = pw.Close()
	}()
	return pr, nil
}

// finish reports the run once every process of it is gone, as a fresh
// run's finish does.
func (x *zygoteExec) finish(ws syscall.WaitStatus, cause error, took time.Duration) (Result, error) {
	res, cg := x.res, x.cg
	res.Duration = took
	x.out.drain(drainGrace)
	x.errp.drain(drainGrace)
	res.Stdout, res.StdoutBytes = x.stdout.String(), x.stdout.Total()
	res.Stderr, res.StderrBytes = x.stderr.String(), x.stderr.Total()
	res.Truncated = x.stdout.Dropped() > 0 || x.stderr.Dropped() > 0
	res.ExitCode = ws.ExitStatus()
	if ws.Signaled() {
		res.ExitCode = -1
		res.Signal = ws.Signal().String()
	}
	killedByUs := cause != nil && (errors.Is(cause, errOutputLimit) || ws.Signaled())
	switch {
	case killedByUs:
		res.Status = statusFromCause(cause)
	default:
		sig := syscall.Signal(0)
		if ws.Signaled() {
			sig = ws.Signal()
		}
		res.Status = endStatus(sig, ws.Exited() && ws.ExitStatus() == 0, res.Stderr, cg)
	}
	noteProcessLimit(&res, cg, x.lim)
	if x.hook {
		res.Images, res.ImageNotes = collectImages(x.wd)
		for _, n := range res.ImageNotes {
			res.ImagesSkipped = append(res.ImagesSkipped, English(n))
		}
	}
	return res, nil
}

// release closes the pipes and removes the run dir and cgroup in the
// background.
func (x *zygoteExec) release() {
	x.once.Do(x.doRelease)
}

func (x *zygoteExec) doRelease() {
	defer func() { <-x.z.slots }()
	x.forget()
	if x.codeW != nil {
		_ = x.codeW.Close()
	}
	for _, p := range []*outputPipe{x.out, x.errp} {
		if p != nil {
			p.close()
		}
	}
	cg, wd := x.cg, x.wd
	if cg == nil && wd == "" {
		return
	}
	x.z.r.cleanup.goRemove(func() {
		if cg != nil {
			cg.remove()
		}
		if wd != "" {
			removeWorkdir(wd)
		}
	})
}

// discard stops a prepared run that will not be used and waits until it
// has ended (its code never came, so nothing of it ran).
func (x *zygoteExec) discard() {
	defer x.release()
	x.kill()
	select {
	case <-x.run.done:
	case <-x.z.dead:
	case <-time.After(sweepWithin):
		slog.Warn("sandbox: the zygote did not report a discarded run's end")
	}
	if x.cg != nil {
		_ = x.cg.killAndWait(sweepWithin)
	}
}
