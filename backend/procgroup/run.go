package procgroup

// The runner lives here, next to the primitives it composes (waitExit,
// signalGroup, sweep, the reaper), rather than in a package of its own:
// its users need nothing else from this package but HeadTail (and, in
// tests, Alive), so the primitives stay unexported and Start is the only
// way in; a second package would have to export them for its sake.

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

const (
	// DefaultSweepWithin bounds the final sweep of a group when
	// Options.SweepWithin is 0.
	DefaultSweepWithin = 2 * time.Second
)

// Options say how Start runs and stops a command. The zero value sends
// SIGKILL as soon as ctx ends.
type Options struct {
	// Grace is how long the command has to exit between SIGTERM and
	// SIGKILL once ctx ends; 0 sends SIGKILL at once. Windows has no
	// SIGTERM for a process without a console: the job is terminated at
	// once there.
	Grace time.Duration
	// Reap runs the command under a reaper of its own (see reaper.go), so
	// that the processes that leave its group (setsid, daemons) die with it
	// too. cmd.ExtraFiles and cmd.SysProcAttr must then be unset. Linux
	// only: on Windows the job object holds every descendant anyway; macOS
	// has no subreaper, so Reap is ignored there (group_darwin.go).
	Reap bool
	// JobMemory and JobProcesses bound the command's job object on
	// Windows: the memory its processes may commit together, in bytes, and
	// how many may be alive at once (0: unbounded). Ignored elsewhere,
	// where the sandbox bounds a run with cgroups and rlimits.
	JobMemory    int64
	JobProcesses int
	// SweepWithin bounds the final sweep of the group (see sweep); 0 means
	// DefaultSweepWithin.
	SweepWithin time.Duration
	// Contained says the group is the leader alone: it runs the command
	// in a PID namespace and a session of its own, as bubblewrap does, so
	// the sweep's search of /proc for live members (milliseconds on a busy
	// host) could find nothing of the command. Once the leader has exited
	// the group is signalled once; waiting for the namespace to die is
	// OnSweep's job (the sandbox waits for the namespace's init).
	Contained bool
	// BeforeStop, if set, is called once ctx has ended, before the first
	// signal to the group (not when the leader exited first). It may block
	// briefly: the sandbox lets bubblewrap finish naming its namespace's
	// init, since bwrap killed in the middle of its set-up leaves that
	// init behind, out of reach.
	BeforeStop func()
	// OnKill, if set, is called after each SIGKILL to the group (the
	// sandbox kills the run's cgroup along with it).
	OnKill func()
	// OnSweep, if set, runs after the final sweep of the group, before the
	// leader is reaped (the sandbox waits for its cgroup to empty); its
	// error joins Exit.SweepErr.
	OnSweep func() error
}

// Exit is how a command started by Start ended.
type Exit struct {
	State *os.ProcessState // the leader's; nil when it was not waited for
	// Code is State.ExitCode(): the exit status, -1 when the leader was
	// killed by a signal. Under a reaper a command killed by signal n
	// makes the reaper exit with 128+n.
	Code   int
	Signal syscall.Signal // the signal that killed the leader; 0 when it exited
	// Stopped reports that ctx ended before the leader's exit was seen, so
	// the group was stopped (SIGTERM, SIGKILL); Cause is then
	// context.Cause(ctx), and TimedOut whether ctx's deadline had passed.
	Stopped  bool
	TimedOut bool
	Cause    error
	Duration time.Duration // from Start until the leader's exit was seen
	// Err is what exec.Cmd.Wait would return for a command started with
	// exec.CommandContext: ctx.Err() when the group was stopped, else nil,
	// an *exec.ExitError (a non-zero status or a signal), or an I/O error
	// such as exec.ErrWaitDelay.
	Err error
	// SweepErr reports processes still alive after the final sweep.
	SweepErr error
	// MemoryLimitHit and ProcessLimitHit report that the job reached
	// Options.JobMemory or JobProcesses (Windows; always false elsewhere).
	MemoryLimitHit, ProcessLimitHit bool
}

// ShellCode is the exit status as a shell reports it: 128+n for a leader
// killed by signal n; -1 when it was not waited for.
func (e Exit) ShellCode() int {
	if e.State == nil {
		return -1
	}
	if e.Signal != 0 {
		return 128 + int(e.Signal)
	}
	return e.Code
}

// Proc is a command started by Start.
type Proc struct {
	Cmd *exec.Cmd

	ctx      context.Context
	o        Options
	pid      int
	sys      sysGroup // the OS's hold on the group (group_<os>.go)
	start    time.Time
	gone     chan struct{} // the leader exited and the group was swept
	stopDone chan struct{} // the stopper is done
	waitOnce sync.Once

	mu     sync.Mutex
	exited bool // the leader's exit was seen; later ends of ctx do not count
	exit   Exit // Stopped, TimedOut, Cause, Duration, SweepErr until Wait
}

// Start starts cmd in a new session, hence a process group of its own
// whose id is the leader's pid: the command and whatever it runs are
// detached from loopforge's terminal (no /dev/tty reads that stop the
// group, no TIOCSTI keystroke injection), and one signal reaches them all.
// It sets cmd.SysProcAttr.Setsid, keeping the other attributes; start cmd
// only through Start (a plain exec.Command: the group is stopped through
// ctx, not exec.CommandContext). On Windows the group is a job object
// instead (group_windows.go): the command is created suspended, put in a
// job of its own that kills everything in it when closed, and only then
// resumed, so all it ever starts is in the job.
//
// When ctx ends, the group gets SIGTERM, and SIGKILL Options.Grace later
// (at once when Grace is 0; under a reaper, the reaper kills first). When
// the leader exits, whatever is left in its group is killed: nothing the
// command started outlives it. Wait must be called: it reaps the leader
// and reports how the command ended.
//
// Start returns ctx.Err() when ctx has already ended, else the error of
// exec.Cmd.Start (or of the reaper).
func Start(ctx context.Context, cmd *exec.Cmd, o Options) (*Proc, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if cmd.Process != nil {
		return nil, errors.New("procgroup: Start: command already started")
	}
	p := &Proc{Cmd: cmd, ctx: ctx, o: o, gone: make(chan struct{}), stopDone: make(chan struct{})}
	if o.SweepWithin <= 0 {
		p.o.SweepWithin = DefaultSweepWithin
	}
	p.start = time.Now()
	if err := p.startGroup(); err != nil {
		return nil, err
	}
	p.pid = cmd.Process.Pid
	go p.waitGone()
	go p.stopper()
	return p, nil
}

// Pid is the leader's pid, which is the group's id (not on Windows, where
// the group is a job object).
func (p *Proc) Pid() int { return p.pid }

// Done is closed once the leader has exited and the rest of its group was
// killed; the leader stays unreaped until Wait.
func (p *Proc) Done() <-chan struct{} { return p.gone }

// Wait waits until the leader has exited, the group is gone and the
// leader is reaped (exec.Cmd.Wait: also the copying of its output), and
// reports how the command ended. Safe to call more than once.
func (p *Proc) Wait() Exit {
	p.waitOnce.Do(func() {
		<-p.gone
		<-p.stopDone // no signal goes to the group once its id can be reused
		err := p.Cmd.Wait()
		p.mu.Lock()
		defer p.mu.Unlock()
		x := &p.exit
		x.State, x.Code, x.Err = p.Cmd.ProcessState, -1, err
		if x.Stopped {
			x.Err = p.ctx.Err()
		}
		if ps := x.State; ps != nil {
			x.Code = ps.ExitCode()
			if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
				x.Signal = ws.Signal()
			}
		}
		p.endGroup(x) // releases what holds the group; may add to x
	})
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.exit
}

// waitGone waits for the leader's exit (leaving it unreaped, so the group
// id cannot be reused), then kills and sweeps what is left of the group.
func (p *Proc) waitGone() {
	defer close(p.gone)
	if err := p.waitLeader(); err != nil {
		slog.Warn("procgroup: waiting for the leader's exit failed", "pid", p.pid, "err", err)
	}
	p.mu.Lock()
	if p.ctx.Err() != nil {
		p.noteStop() // ctx ended first, even if the stopper has not acted yet
	}
	p.exited = true
	p.exit.Duration = time.Since(p.start)
	p.mu.Unlock()
	p.kill()
	var err error
	if !p.o.Contained {
		err = p.sweepGroup(p.o.SweepWithin)
	}
	if p.o.OnSweep != nil {
		err = errors.Join(err, p.o.OnSweep())
	}
	p.mu.Lock()
	p.exit.SweepErr = err
	p.mu.Unlock()
}

// stopper stops the group when ctx ends before the leader has exited:
// SIGTERM, the grace period, then SIGKILL (through the reaper, if any).
func (p *Proc) stopper() {
	defer close(p.stopDone)
	select {
	case <-p.ctx.Done():
	case <-p.gone:
		return
	}
	p.mu.Lock()
	p.noteStop()
	p.mu.Unlock()
	if p.o.BeforeStop != nil {
		p.o.BeforeStop()
	}
	if p.o.Grace > 0 && p.terminate() && p.goneWithin(p.o.Grace) {
		return
	}
	if p.stopReaper() {
		return
	}
	p.kill()
}

// noteStop records why the group is stopped, unless the leader's exit was
// seen already or a reason was recorded. p.mu is held.
func (p *Proc) noteStop() {
	if p.exited || p.exit.Stopped {
		return
	}
	p.exit.Stopped = true
	p.exit.Cause = context.Cause(p.ctx)
	p.exit.TimedOut = errors.Is(p.ctx.Err(), context.DeadlineExceeded)
}

func (p *Proc) kill() {
	p.killGroup()
	if p.o.OnKill != nil {
		p.o.OnKill()
	}
}

// goneWithin reports whether the group is gone within d.
func (p *Proc) goneWithin(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-p.gone:
		return true
	case <-t.C:
		return false
	}
}
