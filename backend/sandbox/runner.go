package sandbox

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"
)

// Options configure a Runner. Zero fields take defaults.
type Options struct {
	// Self is the executable re-exec'd as the shim; it must call
	// RunChildIfRequested at the top of main. Default: os.Executable().
	Self string
	// Python is the interpreter. Default: resolved once, preferring
	// /usr/bin/python3 over whatever PATH holds (often a slow pyenv shim).
	Python string
	// TempRoot holds the per-run work directories. Default: os.TempDir().
	TempRoot string
}

// ErrShim is matched (errors.Is) by Run's error when the shim could not set
// up the sandbox or start the interpreter.
var ErrShim = errors.New("sandbox shim failed")

const (
	// waitDelay bounds how long Wait waits for output pipes after the leader
	// exited. The group is killed at that point, so only a process that left
	// the group (setsid) can hold them open.
	waitDelay = 500 * time.Millisecond
	// sweepWithin bounds the final wait for the group to die.
	sweepWithin = 2 * time.Second
	// systemPath is the PATH given to the code; never the app's own PATH,
	// which may list user directories and shims.
	systemPath = "/usr/local/bin:/usr/bin:/bin"
)

var errTimedOut = errors.New("sandbox: execution timed out")

// Runner executes code. It is safe for concurrent use; each Run is
// independent.
type Runner struct {
	self      string
	python    string
	tempRoot  string
	path      string // PATH for the code
	isolation string
}

// NewRunner resolves the shim executable, the Python interpreter and the temp
// root once. It fails with an *InterpreterError (matching ErrNoInterpreter)
// when no Python can be found.
func NewRunner(o Options) (*Runner, error) {
	self := o.Self
	if self == "" {
		var err error
		if self, err = os.Executable(); err != nil {
			return nil, fmt.Errorf("sandbox: locate own executable for the shim: %w", err)
		}
	}
	python, err := findPython(o.Python)
	if err != nil {
		return nil, err
	}
	root := o.TempRoot
	if root == "" {
		root = os.TempDir()
	}
	if fi, err := os.Stat(root); err != nil {
		return nil, fmt.Errorf("sandbox: temp root: %w", err)
	} else if !fi.IsDir() {
		return nil, fmt.Errorf("sandbox: temp root %s is not a directory", root)
	}
	path := systemPath
	// Let the code's own subprocesses find the same interpreter first.
	if dir := filepath.Dir(python); !slices.Contains(filepath.SplitList(path), dir) {
		path = dir + string(filepath.ListSeparator) + path
	}
	return &Runner{self: self, python: python, tempRoot: root, path: path, isolation: IsolationBasic}, nil
}

// Isolation reports the isolation level this Runner applies.
func (r *Runner) Isolation() string { return r.isolation }

// Python reports the resolved interpreter path.
func (r *Runner) Python() string { return r.python }

// interpreter is how one language is started by the shim.
type interpreter struct {
	path     string
	args     []string // argv, argv[0] included
	memLimit bool     // apply RLIMIT_AS (it breaks runtimes that reserve address space)
}

func (r *Runner) interpreter(lang string) (interpreter, error) {
	switch lang {
	case "", "python":
		// -I: ignore PYTHON* env, user site and cwd on sys.path. -I also
		// ignores PYTHONUNBUFFERED etc., hence -B -u -X utf8: unbuffered so a
		// killed program keeps what it printed.
		return interpreter{
			path:     r.python,
			args:     []string{r.python, "-I", "-B", "-u", "-X", "utf8", "-"},
			memLimit: true,
		}, nil
	case "sh":
		return interpreter{path: "/bin/sh", args: []string{"sh", "-s"}}, nil
	}
	return interpreter{}, fmt.Errorf("sandbox: %w %q", ErrUnsupportedLanguage, lang)
}

func (r *Runner) env(wd string) []string {
	return []string{
		"PATH=" + r.path,
		"LANG=C.UTF-8",
		"HOME=" + wd,
		"TMPDIR=" + wd,
		"PYTHONDONTWRITEBYTECODE=1",
		"PYTHONUNBUFFERED=1",
		"PYTHONIOENCODING=utf-8",
	}
}

func rlimits(l Limits, in interpreter) []childRlimit {
	rl := []childRlimit{
		{Resource: syscall.RLIMIT_CORE, Cur: 0, Max: 0},
		// Soft then hard: SIGXCPU first (reported as a CPU limit), SIGKILL
		// a second later if the code handles SIGXCPU.
		{Resource: syscall.RLIMIT_CPU, Cur: l.CPUSeconds, Max: l.CPUSeconds + 1},
		{Resource: syscall.RLIMIT_FSIZE, Cur: uint64(l.FileSizeBytes), Max: uint64(l.FileSizeBytes)},
		{Resource: syscall.RLIMIT_NOFILE, Cur: l.OpenFiles, Max: l.OpenFiles},
	}
	if in.memLimit {
		// Must stay last: see runChild.
		rl = append(rl, childRlimit{Resource: syscall.RLIMIT_AS, Cur: uint64(l.MemoryBytes), Max: uint64(l.MemoryBytes)})
	}
	return rl
}

// Run executes req and reports the outcome. The error is non-nil only when
// the sandbox itself failed (then Status is StatusSandboxError); a timeout is
// StatusTimeout and a cancelled ctx is StatusKilled, both with a nil error.
// Run returns only after the run's process group has been killed and its
// work directory removed.
func (r *Runner) Run(ctx context.Context, req Request) (Result, error) {
	lim := req.Limits.withDefaults()
	res := Result{Isolation: r.isolation, Limits: lim}
	in, err := r.interpreter(req.Language)
	if err != nil {
		return failed(res, err)
	}
	if ctx.Err() != nil {
		res.Status = StatusKilled
		return res, nil
	}

	wd, err := os.MkdirTemp(r.tempRoot, "loopforge-run-") // mode 0700
	if err != nil {
		return failed(res, fmt.Errorf("sandbox: create work dir: %w", err))
	}
	defer removeWorkdir(wd)

	spec, err := json.Marshal(childSpec{Path: in.path, Args: in.args, Rlimits: rlimits(lim, in), Isolation: r.isolation})
	if err != nil {
		return failed(res, fmt.Errorf("sandbox: encode spec: %w", err))
	}
	statusR, statusW, err := os.Pipe()
	if err != nil {
		return failed(res, fmt.Errorf("sandbox: status pipe: %w", err))
	}

	runCtx, cancel := context.WithTimeoutCause(ctx, lim.Timeout, errTimedOut)
	defer cancel()
	g := &group{}
	stdout := newCapture(lim.OutputHead, lim.OutputTail, lim.OutputHardCap, func() { g.kill(reasonOutput) })
	stderr := newCapture(lim.OutputHead, lim.OutputTail, lim.OutputHardCap, func() { g.kill(reasonOutput) })

	// Stronger isolation layers will wrap this command (e.g. bwrap in front of
	// the shim); the shim itself applies in-process restrictions.
	cmd := exec.CommandContext(runCtx, r.self, childArg)
	cmd.Dir = wd
	cmd.Env = append(r.env(wd), specEnv+"="+string(spec))
	cmd.Stdin = strings.NewReader(req.Code)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.ExtraFiles = []*os.File{statusW} // becomes fd 3 (statusFD)
	// Setsid rather than just Setpgid: a new session is also a new process
	// group (pgid = pid), and it detaches the code from the app's
	// controlling terminal (no /dev/tty, no TIOCSTI injection).
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL}
	cmd.Cancel = func() error {
		if errors.Is(context.Cause(runCtx), errTimedOut) {
			g.kill(reasonTimeout)
		} else {
			g.kill(reasonCancelled)
		}
		return nil
	}
	cmd.WaitDelay = waitDelay

	start := time.Now()
	err = cmd.Start()
	statusW.Close() // the child holds its own copy; EOF must come from it alone
	if err != nil {
		statusR.Close()
		if runCtx.Err() != nil { // cancelled or timed out between the check above and Start
			res.Status = statusFromCause(runCtx)
			return res, nil
		}
		return failed(res, fmt.Errorf("sandbox: start shim %s: %w", r.self, err))
	}
	pid := cmd.Process.Pid
	g.started(pid)

	// EOF arrives when the shim execs (close-on-exec) or exits.
	status, readErr := io.ReadAll(statusR)
	statusR.Close()
	if werr := waitExit(pid); werr != nil {
		slog.Warn("sandbox: waitid on the leader failed", "pid", pid, "err", werr)
	}
	res.Duration = time.Since(start)
	reason := g.leaderExited()
	// The leader is gone: kill whatever it left behind so the pipes close now.
	_ = syscall.Kill(-pid, syscall.SIGKILL)
	waitErr := cmd.Wait()
	if err := sweepGroup(pid, sweepWithin); err != nil {
		slog.Warn("sandbox: final sweep incomplete", "err", err)
	}
	if errors.Is(waitErr, exec.ErrWaitDelay) {
		// Only a process outside the group (setsid) can still hold the pipes.
		slog.Warn("sandbox: output pipes held open after the group was killed; a process escaped the group", "pid", pid)
	}

	res.Stdout, res.StdoutBytes, res.Truncated = stdout.result()
	var errTrunc bool
	res.Stderr, res.StderrBytes, errTrunc = stderr.result()
	res.Truncated = res.Truncated || errTrunc

	ps := cmd.ProcessState
	if ps == nil {
		return failed(res, fmt.Errorf("sandbox: wait: %w", waitErr))
	}
	res.ExitCode = ps.ExitCode()
	ws, _ := ps.Sys().(syscall.WaitStatus)
	if ws.Signaled() {
		res.Signal = ws.Signal().String()
	}
	if readErr != nil {
		return failed(res, fmt.Errorf("sandbox: read shim status: %w", readErr))
	}

	// A kill we sent explains the outcome only if the process died of a
	// signal; if it exited normally first, its own status stands. Output
	// over the cap is reported either way: the capture is incomplete.
	killedByUs := reason == reasonOutput || (reason != reasonNone && ws.Signaled())
	switch i := bytes.IndexByte(status, statusFail); {
	case i >= 0:
		return failed(res, fmt.Errorf("%w: %s", ErrShim, status[i+1:]))
	case killedByUs:
		res.Status = reason.status()
	case len(status) == 0:
		return failed(res, fmt.Errorf("%w: %s exited without acting as the shim (does its main call sandbox.RunChildIfRequested first?)", ErrShim, r.self))
	case ws.Signaled() && ws.Signal() == syscall.SIGXCPU:
		res.Status = StatusTimeout
	case ws.Exited() && ws.ExitStatus() == 0:
		res.Status = StatusOK
	case isMemoryError(res.Stderr):
		res.Status = StatusMemory
	default:
		res.Status = StatusError
	}
	slog.Debug("sandbox: run finished", "status", res.Status, "exit", res.ExitCode, "signal", res.Signal, "duration", res.Duration)
	return res, nil
}

func (k killReason) status() Status {
	switch k {
	case reasonTimeout:
		return StatusTimeout
	case reasonCancelled:
		return StatusKilled
	case reasonOutput:
		return StatusOutputLimit
	}
	return StatusError
}

func statusFromCause(ctx context.Context) Status {
	if errors.Is(context.Cause(ctx), errTimedOut) {
		return StatusTimeout
	}
	return StatusKilled
}

func failed(res Result, err error) (Result, error) {
	res.Status = StatusSandboxError
	res.Error = err.Error()
	return res, err
}

// isMemoryError reports whether the program died of a Python MemoryError:
// the last line of a traceback names the exception.
func isMemoryError(stderr string) bool {
	last := lastLine(stderr)
	return last == "MemoryError" || strings.HasPrefix(last, "MemoryError:")
}

// removeWorkdir deletes a run's directory even if the code removed its own
// permissions on subdirectories (which stops RemoveAll for non-root users).
func removeWorkdir(dir string) {
	if err := os.RemoveAll(dir); err == nil {
		return
	}
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if d != nil && d.IsDir() {
			_ = os.Chmod(p, 0o700)
		}
		return nil
	})
	if err := os.RemoveAll(dir); err != nil {
		slog.Warn("sandbox: remove work dir", "dir", dir, "err", err)
	}
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
	f.Close()
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
