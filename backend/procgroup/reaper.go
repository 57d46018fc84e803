//go:build linux

package procgroup

// A reaper keeps everything a command starts from outliving it, including
// processes that left its process group and session (setsid, daemons that
// double-fork), which no signal to a group reaches.
//
// Why a process of its own: Linux reparents an orphan to the nearest
// ancestor marked as "child subreaper" (prctl PR_SET_CHILD_SUBREAPER), so a
// subreaper sees every process its subtree ever starts, as a descendant or
// as an adopted child, until it dies. Making loopforge itself the subreaper
// would mix the orphans of every run (and of git, the sandbox, the desktop
// shell) into one set of children with no owner, and reaping them would race
// with exec.Cmd.Wait of loopforge's other children (a wait for any child
// steals their exit statuses). So each command gets a small reaper: this
// binary re-executed (via /proc/self/exe, which works even when the file was
// replaced since), marked by reaperEnv. It becomes a subreaper, starts the
// command, reaps whatever is reparented to it, and, when the command has
// exited or loopforge asks (or dies: its end of a pipe closes), SIGKILLs
// every process below it until none is left, then exits with the command's
// status. All its children are its own, so waiting for any of them takes
// nothing from anyone. A per-run cgroup would do the same where cgroup v2
// delegation exists, but a desktop session often has none; the reaper only
// needs Linux 3.4.
//
// The hook is an init function, not a call in main, so that every binary
// that can start a reaper (the app, the test binaries of every package that
// runs coding CLIs) can also be one: a re-executed binary without the hook
// would run its own main (or its tests) instead.

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

const (
	// reaperEnv marks a process started as a reaper. The reaper runs in
	// loopforge's environment (so that it starts as loopforge did, shared
	// libraries and all); the command's comes through a pipe.
	reaperEnv = "LOOPFORGE_PROCGROUP_REAPER"
	// reaperArg0 is the reaper's argv[0], as ps shows it.
	reaperArg0 = "loopforge-reaper"
	// The reaper's inherited descriptors: the control pipe (EOF = kill
	// everything), the status pipe (one line: "ok" or "errno N") and the
	// command's environment (NUL-terminated entries, then EOF).
	ctlFD    = 3
	statusFD = 4
	envFD    = 5
	// reapWithin bounds the reaper's killing: a process stuck in the
	// kernel (uninterruptible sleep) cannot be waited for forever.
	reapWithin = 10 * time.Second
)

func init() {
	if os.Getenv(reaperEnv) != "" {
		// A bare exit: the reaper has nothing to flush, and os.Exit in a
		// binary built with -race waits a second for late race reports,
		// which every CLI call would wait for.
		syscall.Exit(reaperMain(os.Args[1:]))
	}
}

// reaped is a command run under a reaper of its own (see the comment at
// the top of this file); Start runs a command so with Options.Reap. Its
// process is the reaper, which leads a new session and process group:
// signalGroup(Cmd.Process.Pid, sig) reaches the command and the processes
// of its group, waitExit and sweep work on it as on any group leader, and
// Cmd.ProcessState holds the command's exit status (128+n when it was
// killed by signal n).
type reaped struct {
	// Cmd runs the reaper. Dir, Env, Stdin, Stdout, Stderr and WaitDelay
	// are the command's; Path, Args, ExtraFiles and SysProcAttr belong to
	// Start. Start it with reaped.Start, never with its own Start, Run or
	// Output (which would run this binary's main); wait for it with
	// Cmd.Wait.
	Cmd  *exec.Cmd
	name string
	ctl  *os.File // write end of the control pipe
	once sync.Once
}

// reap makes cmd, whose Path (there is no PATH lookup) and Args name the
// command, the command of a reaper that runs it. Nothing starts before
// Start.
func reap(cmd *exec.Cmd) *reaped {
	name := cmd.Path
	var args []string
	if len(cmd.Args) > 1 {
		args = cmd.Args[1:]
	}
	cmd.Path, cmd.Args = "/proc/self/exe", append([]string{reaperArg0, name}, args...)
	return &reaped{Cmd: cmd, name: name}
}

// Start starts the reaper and, through it, the command. It returns once the
// command runs, or with the reason it could not start (an *os.PathError,
// as exec.Cmd.Start gives; the reaper has then been waited for).
func (r *reaped) Start() error {
	env := r.Cmd.Env
	if env == nil {
		env = os.Environ()
	}
	r.Cmd.Env = append(os.Environ(), reaperEnv+"=1")
	var pipes [3][2]*os.File // control, status, environment: read, write
	for i := range pipes {
		rd, wr, err := os.Pipe()
		if err != nil {
			closeAll(pipes[:i])
			return err
		}
		pipes[i] = [2]*os.File{rd, wr}
	}
	ctlR, ctlW := pipes[0][0], pipes[0][1]
	statusR, statusW := pipes[1][0], pipes[1][1]
	envR, envW := pipes[2][0], pipes[2][1]
	defer statusR.Close()
	r.Cmd.ExtraFiles = []*os.File{ctlR, statusW, envR} // fds 3, 4, 5
	// A new session: the command and whatever it runs are detached from
	// loopforge's terminal and form one group. No Pdeathsig: if loopforge
	// dies, the control pipe's EOF makes the reaper clean up, which a
	// SIGKILL would prevent.
	r.Cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	err := r.Cmd.Start()
	_ = ctlR.Close()
	_ = statusW.Close()
	_ = envR.Close()
	if err != nil {
		_ = ctlW.Close()
		_ = envW.Close()
		return err
	}
	r.ctl = ctlW
	go func() { // a goroutine: a large environment fills the pipe
		var b []byte
		for _, kv := range env {
			b = append(append(b, kv...), 0)
		}
		_, _ = envW.Write(b)
		_ = envW.Close()
	}()
	line, _ := bufio.NewReader(statusR).ReadString('\n')
	if line == "ok\n" {
		return nil
	}
	r.Kill()
	waitErr := r.Cmd.Wait()
	if n, ok := strings.CutPrefix(strings.TrimSpace(line), "errno "); ok {
		if errno, err := strconv.Atoi(n); err == nil {
			return &os.PathError{Op: "fork/exec", Path: r.name, Err: syscall.Errno(errno)}
		}
	}
	return fmt.Errorf("start %s: the process reaper failed (%v): %q", r.name, waitErr, line)
}

// Kill makes the reaper SIGKILL the command and everything below it; it
// then exits. Call it also once the command has ended: it releases the
// pipe. Safe to call more than once.
func (r *reaped) Kill() {
	r.once.Do(func() {
		if r.ctl != nil {
			_ = r.ctl.Close() // the reaper reads EOF
		}
	})
}

func closeAll(pipes [][2]*os.File) {
	for _, p := range pipes {
		_ = p[0].Close()
		_ = p[1].Close()
	}
}

// reaperMain is the reaper: argv is the command. It returns the exit code.
func reaperMain(argv []string) int {
	// Pdeathsig of the command refers to the thread that started it: keep
	// this goroutine on one thread, which lives as long as the process.
	runtime.LockOSThread()
	status := os.NewFile(statusFD, "status")
	ctl := os.NewFile(ctlFD, "control")
	envPipe := os.NewFile(envFD, "environment")
	for _, fd := range []int{ctlFD, statusFD, envFD} {
		syscall.CloseOnExec(fd)
	}
	fail := func(err error) int {
		var errno syscall.Errno
		if errors.As(err, &errno) {
			fmt.Fprintf(status, "errno %d\n", int(errno))
		} else {
			fmt.Fprintf(status, "error %v\n", err)
		}
		return 127
	}
	if len(argv) == 0 {
		fmt.Fprintln(os.Stderr, "loopforge-reaper: started without a command")
		return 127
	}
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return fail(err)
	}
	// Signals for the group (SIGTERM to stop the command gracefully) are
	// for the command: the reaper stays until the command is gone. Caught,
	// not ignored: ignored signals would stay ignored in the command.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	b, err := io.ReadAll(envPipe)
	_ = envPipe.Close()
	if err != nil {
		return fail(err)
	}
	env := strings.Split(string(b), "\x00")
	env = env[:len(env)-1] // each entry ends with NUL
	pid, err := syscall.ForkExec(argv[0], argv, &syscall.ProcAttr{
		Env:   env,
		Files: []uintptr{0, 1, 2},
		Sys:   &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL},
	})
	if err != nil {
		return fail(err)
	}
	_, _ = status.WriteString("ok\n") // no "ok": the parent kills the group
	_ = status.Close()
	// Keep no end of the command's stdin and stdout open: their EOF must
	// depend on the command alone.
	if null, err := os.Open(os.DevNull); err == nil {
		_ = unix.Dup3(int(null.Fd()), 0, 0)
		_ = unix.Dup3(int(null.Fd()), 1, 0)
		_ = null.Close()
	}

	killReq := make(chan struct{})
	go func() {
		_, _ = io.Copy(io.Discard, ctl) // returns at EOF: Kill, or loopforge died
		close(killReq)
		killTree() // the command dies, which ends the wait below
	}()
	ws := waitFor(pid)
	reapAll(killReq)
	if ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ws.ExitStatus()
}

// waitFor reaps children (adopted orphans included) until pid has exited,
// and returns its status.
func waitFor(pid int) syscall.WaitStatus {
	for {
		var ws syscall.WaitStatus
		got, err := syscall.Wait4(-1, &ws, 0, nil)
		switch {
		case errors.Is(err, syscall.EINTR):
		case err != nil: // ECHILD: cannot happen while pid is unreaped
			return ws
		case got == pid:
			return ws
		}
	}
}

// reapAll SIGKILLs every descendant and reaps the children until none is
// left, or gives up after reapWithin.
func reapAll(killReq <-chan struct{}) {
	deadline := time.Now().Add(reapWithin)
	pause := time.Millisecond
	for {
		killTree()
		for {
			got, err := syscall.Wait4(-1, nil, syscall.WNOHANG, nil)
			if errors.Is(err, syscall.ECHILD) {
				return // no child left, so no descendant either
			}
			if got <= 0 {
				break // children remain, still dying or just adopted
			}
		}
		if time.Now().After(deadline) {
			fmt.Fprintf(os.Stderr, "loopforge-reaper: processes %v survived SIGKILL for %v\n", descendants(os.Getpid()), reapWithin)
			return
		}
		time.Sleep(pause)
		pause = min(pause*2, 20*time.Millisecond)
	}
}

// killTree SIGKILLs every live descendant of this process.
func killTree() {
	self := os.Getpid()
	for _, pid := range descendants(self) {
		killIfBelow(pid, self)
	}
}

// killIfBelow SIGKILLs pid unless, by the time it is pinned with a pidfd,
// it is no longer below root (it died and its pid was reused).
func killIfBelow(pid, root int) {
	fd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		if errors.Is(err, unix.ENOSYS) {
			_ = syscall.Kill(pid, syscall.SIGKILL) // before Linux 5.3
		}
		return
	}
	defer unix.Close(fd)
	if !below(pid, root) {
		return
	}
	_ = unix.PidfdSendSignal(fd, unix.SIGKILL, nil, 0)
}

// below reports whether root is an ancestor of pid.
func below(pid, root int) bool {
	for range 4096 { // bounded: a cycle cannot exist, a torn read could
		ppid, ok := Parent(pid)
		if !ok || ppid <= 0 {
			return false
		}
		if ppid == root {
			return true
		}
		pid = ppid
	}
	return false
}

// descendants lists the processes below pid (zombies included), parents
// before their children, from a scan of /proc.
func descendants(pid int) []int {
	dir, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	children := map[int][]int{}
	for _, e := range dir {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if pp, ok := Parent(p); ok {
			children[pp] = append(children[pp], p)
		}
	}
	var out []int
	queue := []int{pid}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, c := range children[p] {
			out = append(out, c)
			queue = append(queue, c)
		}
	}
	return out
}
