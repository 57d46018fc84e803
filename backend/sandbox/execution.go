//go:build linux

package sandbox

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/loopforge/loopforge/backend/event"
	"github.com/loopforge/loopforge/backend/procgroup"
)

// execution is one run of code from its set-up to its end. Run (cold) goes
// through setup, arm, start, startOutput and finish at once; a warm run
// (Prepare) stops after start, with the interpreter waiting for its
// program, and Prepared.Run does the rest when the code arrives.
type execution struct {
	r    *Runner
	req  Request // as set up (a warm one without its code)
	lim  Limits
	res  Result // the isolation report; finish adds the outcome
	warm bool

	wd, hookDir string
	// progDir holds a warm run's program, read-only for the code and out
	// of its run dir (the hook dir when there is one).
	progDir string
	cg      *runCgroup
	ns      *nsInit // bubblewrap's PID namespace init; nil without bwrap
	cmd     *exec.Cmd

	// script is a warm run's program file in wd: until the hand-over a
	// symbolic link to the interpreter's own end of the program pipe
	// (progLink), then the program itself (see feed).
	script       string
	progR, progW *os.File

	statusR, statusW *os.File
	status           []byte // what the shim reported, once statusDone is closed
	statusErr        error
	statusDone       chan struct{}
	statusAbort      atomic.Bool   // statusR closed on purpose (statusAfter)
	reported         chan struct{} // closed at the shim's first word (or EOF): the interpreter is starting, or it failed

	out, errp      *outputPipe
	stdout, stderr *procgroup.HeadTail

	runCtx  context.Context // what procgroup.Start watches
	stop    context.CancelCauseFunc
	timer   *time.Timer
	unhook  func() bool // detaches the caller's ctx (arm)
	proc    *procgroup.Proc
	started time.Time // just before the process started
	handed  time.Time // when the code was handed over (cold: = started)
}

const (
	// progFD is where a warm run's interpreter finds the write end's
	// partner: the read end of the program pipe (fd 3 is the status pipe).
	progFD = 4
	// progLink is what the program file of a warm run points to until the
	// hand-over. Opened by the interpreter, /proc/self is the interpreter
	// itself (in the PID namespace's own /proc under bubblewrap).
	progLink = "/proc/self/fd/4"
)

// setup validates req and makes what the run needs before a process
// starts: the run dir, the figure hook, the cgroup, the pipes and the
// command. When it returns no execution, the Result (and error) is the
// run's outcome and nothing is left behind.
func (r *Runner) setup(ctx context.Context, req Request, warm bool) (*execution, Result, error) {
	lim := req.Limits.withDefaults()
	x := &execution{r: r, req: req, lim: lim, warm: warm, res: Result{Isolation: r.Isolation(), Limits: lim}}
	res, err := x.setup(ctx)
	if err != nil || res.Status != "" {
		x.release()
		return nil, res, err
	}
	return x, Result{}, nil
}

func (x *execution) setup(ctx context.Context) (Result, error) {
	r, req := x.r, x.req
	in, err := r.interpreter(req.Language, x.lim)
	if err != nil {
		return failed(x.res, err)
	}
	var dir string
	if req.Dir != "" {
		if dir, err = r.checkDir(req.Dir); err != nil {
			return failed(x.res, err)
		}
	}
	if ctx.Err() != nil {
		res := x.res
		res.Status = StatusKilled
		return res, nil
	}
	if in, err = x.makeDirs(in, dir); err != nil {
		return failed(x.res, err)
	}
	in, stdin, err := x.program(in, dir)
	if err != nil {
		return failed(x.res, err)
	}
	spec, ro := x.spec(in, dir)
	if err := x.openPipes(); err != nil {
		return failed(x.res, err)
	}
	if x.cmd, err = x.command(ctx, spec, ro, dir, stdin); err != nil {
		return failed(x.res, err)
	}
	return Result{}, nil
}

// makeDirs makes the run dir (mode 0700) and, for pictures, the figure
// hook's dir, read-only, for this run alone.
func (x *execution) makeDirs(in interpreter, dir string) (interpreter, error) {
	r := x.r
	wd, err := os.MkdirTemp(r.tempRoot, tempPattern(kindRun, r.owner))
	if err != nil {
		return in, fmt.Errorf("sandbox: create work dir: %w", err)
	}
	x.wd = wd
	if x.req.Images && dir == "" {
		if x.hookDir, err = makeHookDir(r.tempRoot, r.owner); err != nil {
			return in, err
		}
		in = in.withHook()
	}
	return in, nil
}

// program places the code. It comes on stdin unless stdin is the caller's
// (Stdin) or the run is in a project dir, where a command's own children
// (make, pytest) would otherwise read the rest of a shell script as input.
// Then it is a file in the run dir, never in Dir. A warm run's program is
// a file too, read through a pipe of its own (see feed), in a read-only
// directory beside the run dir: the run dir starts empty, as with the
// program on stdin. stdin nil is /dev/null: EOF at once.
func (x *execution) program(in interpreter, dir string) (interpreter, io.Reader, error) {
	req := x.req
	if !x.warm && dir == "" && len(req.Stdin) == 0 {
		return in, strings.NewReader(req.Code), nil
	}
	var err error
	if x.warm {
		if x.progDir = x.hookDir; x.progDir == "" {
			if x.progDir, err = os.MkdirTemp(x.r.tempRoot, tempPattern(kindProg, x.r.owner)); err != nil {
				return in, nil, fmt.Errorf("sandbox: create the program dir: %w", err)
			}
		}
		x.script = filepath.Join(x.progDir, programStem+in.ext) // not an importable module name
		err = os.Symlink(progLink, x.script)
		in = in.withProgramLink(x.script)
	} else {
		script := filepath.Join(x.wd, programStem+in.ext)
		err = os.WriteFile(script, []byte(req.Code), 0o600)
		in = in.withScript(script)
	}
	if err != nil {
		return in, nil, fmt.Errorf("sandbox: write the program: %w", err)
	}
	if len(req.Stdin) > 0 {
		return in, bytes.NewReader(req.Stdin), nil
	}
	return in, nil, nil
}

// spec makes the run's cgroup and the layers the shim applies; ro are the
// read-only dirs beside the run dir (the program's, the figure hook's).
func (x *execution) spec(in interpreter, dir string) (childSpec, []string) {
	r := x.r
	if r.cgroups != nil {
		var err error
		if x.cg, err = r.cgroups.create(x.lim); err != nil {
			slog.Warn("sandbox: no cgroup for this run", "err", err)
			x.res.note(event.NewNote(event.NoteCgroupFailed, "detail", err.Error()))
			x.cg = nil
		} else {
			x.cg.sealed = r.bwrap != nil
		}
	}
	spec := r.layers(x.req, in, x.lim, x.wd, dir, x.cg, &x.res)
	var ro []string
	if d := cmp.Or(x.progDir, x.hookDir); d != "" {
		ro = []string{d}
		if spec.Landlock != nil {
			spec.Landlock.ReadExec = slices.Concat(spec.Landlock.ReadExec, ro)
		}
	}
	return spec, ro
}

// openPipes opens the status pipe, a warm run's program pipe and the
// output pipes. Own output pipes rather than os/exec's: the run decides
// when output has ended (see drainGrace), and never loses what the code
// wrote before dying.
func (x *execution) openPipes() error {
	var err error
	if x.statusR, x.statusW, err = os.Pipe(); err != nil {
		return fmt.Errorf("sandbox: status pipe: %w", err)
	}
	if x.warm {
		if x.progR, x.progW, err = os.Pipe(); err != nil {
			return fmt.Errorf("sandbox: program pipe: %w", err)
		}
	}
	if x.out, err = newOutputPipe(); err != nil {
		return err
	}
	x.errp, err = newOutputPipe()
	return err
}

// command is the process that runs the code: the shim, which applies the
// in-process layers (cgroup v1 join, Landlock, seccomp, rlimits), inside
// bwrap's namespaces when bwrap is used.
func (x *execution) command(ctx context.Context, spec childSpec, ro []string, dir string, stdin io.Reader) (*exec.Cmd, error) {
	r, wd := x.r, x.wd
	specJSON, err := json.Marshal(spec)
	if err != nil {
		return nil, fmt.Errorf("sandbox: encode spec: %w", err)
	}
	var cmd *exec.Cmd
	if r.bwrap != nil {
		if x.ns, err = newNSInit(); err != nil {
			return nil, err
		}
		cmd = exec.Command(r.bwrap.path, r.bwrap.args(wd, dir, ro, x.lim, x.req.AllowNetwork, spec.Cgroups, r.self)...)
		cmd.Dir = wd // bwrap's own cwd on the host; --chdir sets the code's
	} else {
		cmd = exec.Command(r.self, childArg)
		cmd.Dir = cmp.Or(dir, wd)
	}
	cmd.Env = append(r.env(wd), specEnv+"="+string(specJSON))
	if x.hookDir != "" {
		cmd.Env = append(cmd.Env, imageEnv(wd, x.hookDir)...)
	}
	if m, ok := ctx.Value(testMarkerKey{}).(string); ok {
		cmd.Env = append(cmd.Env, m) // lets tests find every process of a run
	}
	cmd.Stdin = stdin
	cmd.Stdout, cmd.Stderr = x.out.w, x.errp.w
	// fd 3 (statusFD), fd 4 (progFD; closed in a cold run: a nil file),
	// fd 5 (infoFD) under bubblewrap.
	cmd.ExtraFiles = []*os.File{x.statusW, x.progR}
	if x.ns != nil {
		cmd.ExtraFiles = append(cmd.ExtraFiles, x.ns.w)
	}
	// procgroup.Start adds Setsid: a new session, hence a process group
	// (pgid = pid), detached from the app's controlling terminal (no
	// /dev/tty, no TIOCSTI injection).
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if x.cg != nil && x.cg.v2fd >= 0 {
		// Born inside the run's cgroup (clone3 CLONE_INTO_CGROUP).
		cmd.SysProcAttr.UseCgroupFD, cmd.SysProcAttr.CgroupFD = true, x.cg.v2fd
	}
	cmd.WaitDelay = waitDelay
	return cmd, nil
}

// arm starts the run's clock at handed: the timeout from then on, and
// ctx's end stops the run (a warm run was started under another context,
// its Prepare's). Cold runs arm before they start.
func (x *execution) arm(ctx context.Context, handed time.Time) {
	if x.runCtx == nil { // cold: start makes the run's context from ctx
		x.runCtx, x.stop = context.WithCancelCause(ctx)
	}
	x.handed = handed
	stop := x.stop
	x.timer = time.AfterFunc(x.lim.Timeout-time.Since(handed), func() { stop(errTimedOut) })
	x.unhook = context.AfterFunc(ctx, func() { stop(context.Cause(ctx)) })
}

// start starts the process under ctx (a cold run's is its armed context).
// When ok is false, the Result (and error) is the run's outcome.
func (x *execution) start(ctx context.Context) (res Result, err error, ok bool) {
	if x.runCtx == nil {
		x.runCtx, x.stop = context.WithCancelCause(ctx)
	}
	stop := x.stop
	overflow := func() { stop(errOutputLimit) }
	x.stdout = procgroup.NewHeadTail(x.lim.OutputHead, x.lim.OutputTail).OnOverflow(x.lim.OutputHardCap, overflow)
	x.stderr = procgroup.NewHeadTail(x.lim.OutputHead, x.lim.OutputTail).OnOverflow(x.lim.OutputHardCap, overflow)

	opts := x.groupOptions()
	x.started = time.Now()
	proc, err := procgroup.Start(x.runCtx, x.cmd, opts)
	// The child holds its own copies; EOF must come from it alone.
	_ = x.statusW.Close()
	x.statusW = nil
	x.out.closeWriter()
	x.errp.closeWriter()
	if x.progR != nil {
		_ = x.progR.Close()
		x.progR = nil
	}
	if x.ns != nil && err == nil {
		x.ns.started(proc.Pid())
	}
	if x.cg != nil {
		x.cg.closeFD()
	}
	if err != nil {
		res := x.res
		if x.runCtx.Err() != nil { // cancelled or timed out between the check in setup and Start
			res.Status = statusFromCause(context.Cause(x.runCtx))
			return res, nil, false
		}
		res, err = failed(res, fmt.Errorf("sandbox: start %s: %w", x.cmd.Path, err))
		return res, err, false
	}
	x.proc = proc
	x.statusDone, x.reported = make(chan struct{}), make(chan struct{})
	// EOF arrives when the shim execs (close-on-exec) or exits; under
	// bwrap only when the sandbox ends, since bwrap keeps its own copy.
	go func() {
		defer close(x.statusDone)
		first := make([]byte, 1)
		n, err := x.statusR.Read(first)
		close(x.reported)
		if err != nil && !errors.Is(err, io.EOF) {
			if !x.statusAbort.Load() {
				x.statusErr = err
			}
			return
		}
		rest, err := io.ReadAll(x.statusR)
		if x.statusAbort.Load() {
			err = nil
		}
		x.status, x.statusErr = append(first[:n], rest...), err
	}()
	return Result{}, nil, true
}

// groupOptions say how the run's processes are stopped and swept.
// Stopped (timeout, cancellation, output cap): SIGKILL at once, to the run's
// cgroup too. Under bubblewrap the group is bwrap alone; the code runs in
// bwrap's PID namespace (a session of its own), which dies with the
// namespace's init (nsInit), and in the cgroup, which is emptied once the
// leader has exited.
func (x *execution) groupOptions() procgroup.Options {
	cg, ns := x.cg, x.ns
	opts := procgroup.Options{SweepWithin: sweepWithin, Contained: ns != nil}
	switch {
	case cg != nil && ns != nil:
		// The namespace's init takes every process of the run with it,
		// and from inside the namespace the code cannot reach the cgroup
		// file system to leave its cgroup: the cgroup is killed too only
		// while the init is unknown (scanning its members costs about as
		// much as the rest of a run's end), and the final sweep checks
		// that it is empty either way.
		opts.OnKill = func() {
			if !ns.kill() {
				cg.kill()
			}
		}
	case cg != nil:
		opts.OnKill = cg.kill
	case ns != nil:
		opts.OnKill = func() { ns.kill() }
	}
	if ns != nil {
		opts.BeforeStop = func() { ns.await(sweepWithin) }
	}
	if cg != nil || ns != nil {
		opts.OnSweep = func() error {
			var err error
			if ns != nil {
				err = ns.killAndWait(sweepWithin)
			}
			if cg != nil {
				err = errors.Join(err, cg.killAndWait(sweepWithin))
			}
			return err
		}
	}
	return opts
}

// startOutput copies the output into the capped buffers and the caller's
// live writers.
func (x *execution) startOutput(req Request) {
	x.out.start(tee(x.stdout, req.LiveStdout))
	x.errp.start(tee(x.stderr, req.LiveStderr))
}

// finish waits for the run to end and reports it.
func (x *execution) finish() (Result, error) {
	r, res, cg := x.r, x.res, x.cg
	// Once the leader has exited, whatever it left behind is killed, so
	// the pipes close now.
	end := x.proc.Wait()
	x.statusAfter(end)
	status, readErr := x.status, x.statusErr
	// The program's own time: a warm run's process started long before
	// its code came.
	res.Duration = max(end.Duration-x.handed.Sub(x.started), 0)
	if end.SweepErr != nil {
		slog.Warn("sandbox: final sweep incomplete", "err", end.SweepErr)
	}
	// Every process of the run is dead (unless one escaped): read what is
	// left in the pipes, waiting for EOF no longer than drainGrace.
	heldOut, heldErr := x.out.drain(drainGrace), x.errp.drain(drainGrace)
	if (heldOut || heldErr) && r.bwrap == nil && cg == nil {
		slog.Debug("sandbox: output pipes held open after the run was killed; a process may have escaped the group", "pid", x.proc.Pid())
	}

	res.Stdout, res.StdoutBytes = x.stdout.String(), x.stdout.Total()
	res.Stderr, res.StderrBytes = x.stderr.String(), x.stderr.Total()
	res.Truncated = x.stdout.Dropped() > 0 || x.stderr.Dropped() > 0

	ps := end.State
	if ps == nil {
		return failed(res, fmt.Errorf("sandbox: wait: %w", end.Err))
	}
	ws, _ := ps.Sys().(syscall.WaitStatus)
	signaled, sig := end.Signal != 0, end.Signal
	res.ExitCode = end.Code
	if r.bwrap != nil && ws.Exited() && ws.ExitStatus() > 128 && ws.ExitStatus() <= 128+64 {
		// bwrap reports a child killed by signal N as exit 128+N, like a
		// shell; an explicit exit(129..192) reads the same (rare).
		signaled, sig = true, syscall.Signal(ws.ExitStatus()-128)
		res.ExitCode = -1
	}
	if signaled {
		res.Signal = sig.String()
	}
	if readErr != nil {
		return failed(res, fmt.Errorf("sandbox: read shim status: %w", readErr))
	}

	// A kill we sent explains the outcome only if the process died of a
	// signal; if it exited normally first, its own status stands. Output
	// over the cap is reported either way: the capture is incomplete.
	killedByUs := end.Stopped && (errors.Is(end.Cause, errOutputLimit) || signaled)
	switch i := bytes.IndexByte(status, statusFail); {
	case i >= 0:
		return failed(res, fmt.Errorf("%w: %s", ErrShim, status[i+1:]))
	case killedByUs:
		res.Status = statusFromCause(end.Cause)
	case len(status) == 0 && r.bwrap != nil && strings.HasPrefix(lastLine(res.Stderr), "bwrap: "):
		return failed(res, fmt.Errorf("%w: bubblewrap could not start the sandbox: %s", ErrShim, lastLine(res.Stderr)))
	case len(status) == 0 && x.cmd.SysProcAttr.UseCgroupFD && signaled && sig == syscall.SIGKILL:
		// Killed, not by us, before the shim said a word: born into the
		// run's cgroup on a host that kills such a child (see
		// bornInCgroup). Run switches to joining and tries again.
		return failed(res, fmt.Errorf("%w: %s was killed as it was born into the run's cgroup: %w", ErrShim, x.cmd.Path, errBornKilled))
	case len(status) == 0:
		return failed(res, fmt.Errorf("%w: %s exited without acting as the shim (does its main call sandbox.RunChildIfRequested first?)", ErrShim, r.self))
	default:
		res.Status = endStatus(sig, ws.Exited() && ws.ExitStatus() == 0, res.Stderr, cg)
	}
	noteProcessLimit(&res, cg, x.lim)
	if x.hookDir != "" {
		// Every process of the run is dead: nothing changes the files now
		// (short of a daemon escaped at the basic level, which readImage
		// does not trust either).
		res.Images, res.ImageNotes = collectImages(x.wd)
		for _, n := range res.ImageNotes {
			res.ImagesSkipped = append(res.ImagesSkipped, English(n))
		}
	}
	slog.Debug("sandbox: run finished", "status", res.Status, "exit", res.ExitCode, "signal", res.Signal, "duration", res.Duration, "isolation", res.Isolation, "warm", x.warm)
	return res, nil
}

// release frees what the run holds, after its processes have been waited
// for (finish, or kill): timers, pipes, the cgroup and the directories.
// Safe at any stage of the set-up.
func (x *execution) release() {
	if x.timer != nil {
		x.timer.Stop()
	}
	if x.unhook != nil {
		x.unhook()
	}
	if x.stop != nil {
		x.stop(nil)
	}
	for _, f := range []*os.File{x.statusR, x.statusW, x.progR, x.progW} {
		if f != nil {
			_ = f.Close()
		}
	}
	for _, p := range []*outputPipe{x.out, x.errp} {
		if p != nil {
			p.close()
		}
	}
	if x.ns != nil {
		x.ns.close()
	}
	// No process of the run is left (or it never started): what remains is
	// inert, and removed in the background (Runner.Wait).
	cg, dirs := x.cg, x.dirs()
	if cg == nil && len(dirs) == 0 {
		return
	}
	remove := func() {
		if cg != nil {
			cg.remove()
		}
		for _, d := range dirs {
			removeWorkdir(d)
		}
	}
	x.r.cleanup.goRemove(remove)
}

// dirs are the run's own directories.
func (x *execution) dirs() []string {
	var dirs []string
	if x.progDir != "" && x.progDir != x.hookDir {
		dirs = append(dirs, x.progDir)
	}
	if x.hookDir != "" {
		dirs = append(dirs, x.hookDir)
	}
	if x.wd != "" {
		dirs = append(dirs, x.wd)
	}
	return dirs
}

// kill stops a started run for cause and waits until every process of it
// is gone (a warm run discarded, or one whose sandbox died unused).
func (x *execution) kill(cause error) procgroup.Exit {
	x.stop(cause)
	end := x.proc.Wait()
	x.statusAfter(end)
	return end
}

// statusAfter waits for the rest of the shim's report once the leader is
// gone. A run stopped while bubblewrap was still setting the sandbox up
// can leave its half-built namespace behind for a moment (the leader died
// before it said which process is the namespace's init, nsinit.go), and
// that namespace's shim must never start the code: closing the read end
// makes the shim's last report before exec fail (EPIPE), and a shim that
// cannot report exits instead (child.go).
func (x *execution) statusAfter(end procgroup.Exit) {
	if end.Stopped {
		x.statusAbort.Store(true)
		_ = x.statusR.Close()
	}
	<-x.statusDone
}

// endStatus is the Status of code that ended on its own, not by a kill of
// the run's: killed by SIGXCPU (sig; 0 when no signal killed it) is the CPU
// limit, exit 0 success, a MemoryError or an OOM kill in the run's cgroup
// the memory limit, anything else an error.
func endStatus(sig syscall.Signal, exitedZero bool, stderr string, cg *runCgroup) Status {
	switch {
	case sig == syscall.SIGXCPU:
		return StatusTimeout
	case exitedZero:
		return StatusOK
	case isMemoryError(stderr) || (cg != nil && cg.oomKilled()):
		return StatusMemory
	}
	return StatusError
}

// noteProcessLimit notes on res that the run's processes reached the
// cgroup's limit, which the code sees only as failed forks.
func noteProcessLimit(res *Result, cg *runCgroup, lim Limits) {
	if cg != nil && cg.pidsLimitHit() {
		res.note(event.NewNote(event.NoteProcessLimit, "limit", strconv.Itoa(lim.Processes)))
	}
}
