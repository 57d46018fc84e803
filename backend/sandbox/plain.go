package sandbox

// The plain sandbox runs generated code where Linux's layers (bubblewrap,
// Landlock, seccomp, cgroups) do not exist: the Runner of Windows and
// macOS is built on it. One execution gets what every level promises
// (doc.go): a fresh private run dir as its home and temp dir, removed
// afterwards; an environment rebuilt from scratch, never the app's; its
// processes started through procgroup, so that the timeout, the caller's
// cancellation and the output cap kill everything it started; its output
// captured and capped as on Linux; its pictures kept. What the OS adds is
// a plainOS: a job object with limits on Windows (plain_windows.go), a
// process group and the rlimit shim on macOS (plain_unix.go).
//
// The engine is built on every OS so that Linux's tests run it too (with
// plain_unix.go's shim platform, which is macOS's): only the Windows part
// needs Windows to be tested.

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/loopforge/loopforge/backend/event"
	"github.com/loopforge/loopforge/backend/procgroup"
)

// plainWaitDelay bounds the wait for the output pipes once the run's
// processes are dead: only a writer that escaped the run (a setsid daemon
// on macOS) can hold them then, and what it wrote before is kept.
const plainWaitDelay = 200 * time.Millisecond

// plainSweepWithin bounds the final wait for the run's processes to die.
const plainSweepWithin = 2 * time.Second

// plainOS is what one OS adds to the plain sandbox.
type plainOS interface {
	// level is the isolation level's name ([Result.Isolation]).
	level() string
	// interpreter says how lang's program runs.
	interpreter(r *plainRunner, lang string, lim Limits) (interpreter, error)
	// codeAsFile: the program is always a file in the run dir (else it
	// comes on stdin unless stdin is the caller's, as on Linux).
	codeAsFile() bool
	// env is the code's whole environment for the run dir wd.
	env(r *plainRunner, wd string) []string
	// command makes x's process for in: x.cmd, its procgroup options, and
	// x.res's isolation report.
	command(x *plainRun, in interpreter) error
	// started is called once the process started (or failed to, err).
	started(x *plainRun, err error)
	// check is called after the run's processes are gone: an error means
	// the sandbox itself failed (the shim), not the code.
	check(x *plainRun, end procgroup.Exit, killedByUs bool) error
}

// plainRunner is the OS-independent part of a plain Runner.
type plainRunner struct {
	sys          plainOS
	python, node string
	tempRoot     string
	owner        string   // Options.Owner
	homes        []string // the user's home dirs, never a Request.Dir
	cleanup      *cleanups
}

// plainRun is one execution.
type plainRun struct {
	r    *plainRunner
	req  Request
	lim  Limits
	res  Result
	dir  string // the validated Request.Dir
	wd   string
	hook string // the figure hook dir, "" without pictures
	cmd  *exec.Cmd
	opts procgroup.Options
	// extraEnv follows the code's environment: not the code's (the shim's
	// spec, which the shim removes).
	extraEnv []string
	// statusR is the shim's status pipe, status what it said (macOS).
	statusR, statusW *os.File
	status           chan []byte
}

// run executes req: the plain Runner's Run.
func (r *plainRunner) run(ctx context.Context, req Request) (Result, error) {
	lim := req.Limits.withDefaults()
	x := &plainRun{r: r, req: req, lim: lim, res: Result{Isolation: r.sys.level(), Limits: lim}}
	in, err := r.sys.interpreter(r, req.Language, lim)
	if err != nil {
		return failed(x.res, err)
	}
	if req.Dir != "" {
		if x.dir, err = r.checkDir(req.Dir); err != nil {
			return failed(x.res, err)
		}
	}
	if ctx.Err() != nil {
		x.res.Status = StatusKilled
		return x.res, nil
	}
	defer x.release()
	if err := x.setup(ctx, in); err != nil {
		return failed(x.res, err)
	}
	return x.execute(ctx)
}

// setup makes the run dir, the program and the command.
func (x *plainRun) setup(ctx context.Context, in interpreter) error {
	r, req := x.r, x.req
	var err error
	if x.wd, err = os.MkdirTemp(r.tempRoot, tempPattern(kindRun, r.owner)); err != nil {
		return fmt.Errorf("sandbox: create work dir: %w", err)
	}
	if req.Images && x.dir == "" {
		if x.hook, err = makeHookDir(r.tempRoot, r.owner); err != nil {
			return err
		}
		in = in.withHook()
	}
	// As on Linux (execution.go), the program is a file when stdin is the
	// caller's or the run is in a project dir, and on Windows always: it
	// is written as given, line endings and all.
	stdin := io.Reader(strings.NewReader(req.Code))
	if r.sys.codeAsFile() || x.dir != "" || len(req.Stdin) > 0 {
		script := filepath.Join(x.wd, programStem+in.ext)
		if err := os.WriteFile(script, []byte(req.Code), 0o600); err != nil {
			return fmt.Errorf("sandbox: write the program: %w", err)
		}
		in = in.withScript(script)
		stdin = nil // the null device: EOF at once
		if len(req.Stdin) > 0 {
			stdin = bytes.NewReader(req.Stdin)
		}
	}
	if err := r.sys.command(x, in); err != nil {
		return err
	}
	cmd := x.cmd
	cmd.Dir = cmp.Or(x.dir, x.wd)
	cmd.Env = append(r.sys.env(r, x.wd), x.extraEnv...)
	if x.hook != "" {
		cmd.Env = append(cmd.Env, imageEnv(x.wd, x.hook)...)
	}
	if m, ok := ctx.Value(testMarkerKey{}).(string); ok {
		cmd.Env = append(cmd.Env, m)
	}
	cmd.Stdin = stdin
	cmd.WaitDelay = plainWaitDelay
	return nil
}

// execute runs the command to its end and reports it.
func (x *plainRun) execute(ctx context.Context) (Result, error) {
	runCtx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	timer := time.AfterFunc(x.lim.Timeout, func() { stop(errTimedOut) })
	defer timer.Stop()
	overflow := func() { stop(errOutputLimit) }
	stdout := procgroup.NewHeadTail(x.lim.OutputHead, x.lim.OutputTail).OnOverflow(x.lim.OutputHardCap, overflow)
	stderr := procgroup.NewHeadTail(x.lim.OutputHead, x.lim.OutputTail).OnOverflow(x.lim.OutputHardCap, overflow)
	x.cmd.Stdout, x.cmd.Stderr = tee(stdout, x.req.LiveStdout), tee(stderr, x.req.LiveStderr)

	proc, err := procgroup.Start(runCtx, x.cmd, x.opts)
	x.r.sys.started(x, err)
	res := x.res
	if err != nil {
		if runCtx.Err() != nil { // stopped between the check in run and Start
			res.Status = statusFromCause(context.Cause(runCtx))
			return res, nil
		}
		return failed(res, fmt.Errorf("sandbox: start %s: %w", x.cmd.Path, err))
	}
	end := proc.Wait()
	if end.SweepErr != nil {
		slog.Warn("sandbox: final sweep incomplete", "err", end.SweepErr)
	}
	res.Duration = end.Duration
	res.Stdout, res.StdoutBytes = stdout.String(), stdout.Total()
	res.Stderr, res.StderrBytes = stderr.String(), stderr.Total()
	res.Truncated = stdout.Dropped() > 0 || stderr.Dropped() > 0
	if end.State == nil {
		return failed(res, fmt.Errorf("sandbox: wait: %w", end.Err))
	}
	res.ExitCode = end.Code
	if end.Signal != 0 {
		res.Signal = end.Signal.String()
	}
	return x.outcome(res, end)
}

// outcome classifies how the run ended, as execution.go does on Linux.
func (x *plainRun) outcome(res Result, end procgroup.Exit) (Result, error) {
	// A kill we sent explains the outcome only if the process died of it;
	// output over the cap is reported either way.
	killedByUs := end.Stopped && (errors.Is(end.Cause, errOutputLimit) || end.Signal != 0)
	if err := x.r.sys.check(x, end, killedByUs); err != nil {
		return failed(res, err)
	}
	switch {
	case killedByUs:
		res.Status = statusFromCause(end.Cause)
	case cpuLimitSignal(res.Signal):
		res.Status = StatusTimeout
	case end.Signal == 0 && end.Code == 0:
		res.Status = StatusOK
	case isMemoryError(res.Stderr) || end.MemoryLimitHit:
		res.Status = StatusMemory
	default:
		res.Status = StatusError
	}
	if end.ProcessLimitHit {
		res.note(event.NewNote(event.NoteProcessLimit, "limit", strconv.Itoa(x.lim.Processes)))
	}
	if x.hook != "" {
		res.Images, res.ImageNotes = collectImages(x.wd)
		for _, n := range res.ImageNotes {
			res.ImagesSkipped = append(res.ImagesSkipped, English(n))
		}
	}
	slog.Debug("sandbox: run finished", "status", res.Status, "exit", res.ExitCode, "signal", res.Signal,
		"duration", res.Duration, "isolation", res.Isolation)
	return res, nil
}

// release closes what is left open and removes the run's directories in
// the background ([Runner.Wait]); every process of the run is gone.
func (x *plainRun) release() {
	for _, f := range []*os.File{x.statusR, x.statusW} {
		if f != nil {
			_ = f.Close()
		}
	}
	var dirs []string
	for _, d := range []string{x.hook, x.wd} {
		if d != "" {
			dirs = append(dirs, d)
		}
	}
	if len(dirs) == 0 {
		return
	}
	x.r.cleanup.goRemove(func() {
		for _, d := range dirs {
			removeWorkdir(d)
		}
	})
}

// plainReport fills res's isolation report: what a plain level protects
// (the OS says) and the notes on what it does not.
func plainReport(res *Result, req Request, p Protections, layers ...string) {
	res.Protections = p
	res.Layers = append(res.Layers, layers...)
	osName := osLabel()
	if !p.Files {
		res.note(event.NewNote(event.NoteNoFiles, "os", osName))
	}
	switch {
	case req.AllowNetwork:
		res.note(event.NewNote(event.NoteNetworkAllowed))
	case !p.Network:
		res.note(event.NewNote(event.NoteNoNetwork, "os", osName))
	}
}

// osLabel names this OS in a note's "os" parameter, for the faces' words.
func osLabel() string {
	if runtime.GOOS == "darwin" {
		return "macos"
	}
	return runtime.GOOS
}
