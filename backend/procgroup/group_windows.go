package procgroup

// Windows has no process groups that a signal reaches: the group is a job
// object. Every process the command starts is in its job (a job's members
// cannot leave it unless the job allows breakaway, which this one does
// not), the job kills them all when its last handle closes
// (JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE, so even a crash of loopforge leaves
// nothing behind), TerminateJobObject kills them all at once, and "the
// group is gone" is the job's count of active processes reaching 0.
//
// The command must be in the job before it runs a single instruction, or
// a child it starts at once would be outside. Go's os/exec gives no handle
// on the main thread of the process it creates, nor a way to pass
// PROC_THREAD_ATTRIBUTE_JOB_LIST, so the command is created suspended
// (CREATE_SUSPENDED), assigned to the job, and then its thread is resumed
// (found through a Toolhelp snapshot, the documented way to enumerate a
// process's threads). Hand-written: no maintained Go library does this
// with os/exec's pipes and ProcessState intact.

import (
	"errors"
	"fmt"
	"os/exec"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"
)

// Job object messages posted to the completion port (winnt.h) and the
// accounting record, which x/sys/windows does not define.
const (
	jobMsgActiveProcessLimit = 3
	jobMsgActiveProcessZero  = 4
	jobMsgJobMemoryLimit     = 10
	// jobMsgQuit is this package's own packet: endGroup posts it to stop
	// the message reader before the port is closed.
	jobMsgQuit = 0x4c46
)

type jobAccounting struct {
	TotalUserTime, TotalKernelTime                       int64
	ThisPeriodTotalUserTime, ThisPeriodTotalKernelTime   int64
	TotalPageFaultCount, TotalProcesses, ActiveProcesses uint32
	TotalTerminatedProcesses                             uint32
}

type jobCompletionPort struct {
	Key  uintptr
	Port windows.Handle
}

// killedExitCode is the exit status TerminateJobObject gives the job's
// processes: 128+9, as a shell reports a SIGKILLed command, so that a
// command stopped by Start reads the same on every OS (see endGroup).
const killedExitCode = 128 + 9

// sysGroup is the command's job and what watches it.
type sysGroup struct {
	job    windows.Handle
	port   windows.Handle // completion port of the job's messages
	proc   windows.Handle // the leader, for waiting on it
	limit  int64          // Options.JobMemory
	empty  chan struct{}  // a token when the job reports no active process
	read   chan struct{}  // closed when the message reader has returned
	memHit atomic.Bool
	pidHit atomic.Bool
}

// startGroup creates the job, starts p.Cmd suspended, assigns it to the
// job and resumes it.
func (p *Proc) startGroup() error {
	g := &p.sys
	if err := g.create(p.o); err != nil {
		return fmt.Errorf("procgroup: job object: %w", err)
	}
	cmd := p.Cmd
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	// No console window pops up for a console program started by the
	// desktop app, and a Ctrl-C in loopforge's terminal is not the
	// command's: ctx stops it.
	cmd.SysProcAttr.CreationFlags |= windows.CREATE_SUSPENDED | windows.CREATE_NO_WINDOW
	if err := cmd.Start(); err != nil {
		g.close()
		return err
	}
	if err := g.enter(cmd); err != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		g.close()
		return fmt.Errorf("procgroup: start %s in a job object: %w", cmd.Path, err)
	}
	go g.readMessages()
	return nil
}

// create makes the job with its limits and its completion port.
func (g *sysGroup) create(o Options) error {
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return err
	}
	g.job, g.limit = job, o.JobMemory
	g.empty, g.read = make(chan struct{}, 1), make(chan struct{})
	var info windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION
	info.BasicLimitInformation.LimitFlags = windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
	if o.JobProcesses > 0 {
		info.BasicLimitInformation.LimitFlags |= windows.JOB_OBJECT_LIMIT_ACTIVE_PROCESS
		info.BasicLimitInformation.ActiveProcessLimit = uint32(o.JobProcesses)
	}
	if o.JobMemory > 0 {
		info.BasicLimitInformation.LimitFlags |= windows.JOB_OBJECT_LIMIT_JOB_MEMORY
		info.JobMemoryLimit = uintptr(o.JobMemory)
	}
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		return fmt.Errorf("set limits: %w", err)
	}
	if g.port, err = windows.CreateIoCompletionPort(windows.InvalidHandle, 0, 0, 1); err != nil {
		return fmt.Errorf("completion port: %w", err)
	}
	assoc := jobCompletionPort{Key: uintptr(job), Port: g.port}
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectAssociateCompletionPortInformation,
		uintptr(unsafe.Pointer(&assoc)), uint32(unsafe.Sizeof(assoc))); err != nil {
		return fmt.Errorf("associate the completion port: %w", err)
	}
	return nil
}

// enter puts the suspended command in the job and lets it run. Its pid
// cannot be reused meanwhile: cmd.Process holds a handle on it.
func (g *sysGroup) enter(cmd *exec.Cmd) error {
	pid := uint32(cmd.Process.Pid)
	h, err := windows.OpenProcess(windows.SYNCHRONIZE|windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE|
		windows.PROCESS_QUERY_LIMITED_INFORMATION, false, pid)
	if err != nil {
		return fmt.Errorf("open process %d: %w", pid, err)
	}
	g.proc = h
	if err := windows.AssignProcessToJobObject(g.job, h); err != nil {
		return fmt.Errorf("assign process %d: %w", pid, err)
	}
	return resumeThreads(pid)
}

// resumeThreads resumes the threads of a process created suspended (one:
// its main thread).
func resumeThreads(pid uint32) error {
	snap, err := windows.CreateToolhelp32Snapshot(windows.TH32CS_SNAPTHREAD, 0)
	if err != nil {
		return fmt.Errorf("thread snapshot: %w", err)
	}
	defer windows.CloseHandle(snap)
	te := windows.ThreadEntry32{Size: uint32(unsafe.Sizeof(windows.ThreadEntry32{}))}
	resumed := 0
	for err = windows.Thread32First(snap, &te); err == nil; err = windows.Thread32Next(snap, &te) {
		if te.OwnerProcessID != pid {
			continue
		}
		th, err := windows.OpenThread(windows.THREAD_SUSPEND_RESUME, false, te.ThreadID)
		if err != nil {
			return fmt.Errorf("open thread %d: %w", te.ThreadID, err)
		}
		_, err = windows.ResumeThread(th)
		_ = windows.CloseHandle(th)
		if err != nil {
			return fmt.Errorf("resume thread %d: %w", te.ThreadID, err)
		}
		resumed++
	}
	if resumed == 0 {
		return fmt.Errorf("no thread of process %d found to resume", pid)
	}
	return nil
}

// readMessages records what the job reports until endGroup stops it.
// Windows does not guarantee the delivery of these messages, so they are
// hints: the active process count (sweepGroup) and the peak memory
// (endGroup) are checked too.
func (g *sysGroup) readMessages() {
	defer close(g.read)
	for {
		var msg uint32
		var key uintptr
		var ov *windows.Overlapped
		if err := windows.GetQueuedCompletionStatus(g.port, &msg, &key, &ov, windows.INFINITE); err != nil {
			return // the port is gone
		}
		switch msg {
		case jobMsgQuit:
			return
		case jobMsgJobMemoryLimit:
			g.memHit.Store(true)
		case jobMsgActiveProcessLimit:
			g.pidHit.Store(true)
		case jobMsgActiveProcessZero:
			select {
			case g.empty <- struct{}{}:
			default:
			}
		}
	}
}

// waitLeader waits for the leader's exit. Waiting on a process handle
// consumes nothing: exec.Cmd.Wait still gets the exit status.
func (p *Proc) waitLeader() error {
	ev, err := windows.WaitForSingleObject(p.sys.proc, windows.INFINITE)
	if err == nil && ev != windows.WAIT_OBJECT_0 {
		err = fmt.Errorf("wait for process %d: event %#x", p.pid, ev)
	}
	return err
}

// terminate: a process without a console has no SIGTERM; no grace period.
func (p *Proc) terminate() bool { return false }

func (p *Proc) stopReaper() bool { return false }

func (p *Proc) killGroup() { _ = windows.TerminateJobObject(p.sys.job, killedExitCode) }

// sweepGroup terminates the job and waits until it has no active process
// left, or within has passed.
func (p *Proc) sweepGroup(within time.Duration) error {
	g := &p.sys
	deadline := time.Now().Add(within)
	pause := time.Millisecond
	for {
		n, err := g.active()
		if err != nil {
			return fmt.Errorf("job of process %d: %w", p.pid, err)
		}
		if n == 0 {
			return nil
		}
		if err := windows.TerminateJobObject(g.job, killedExitCode); err != nil {
			return fmt.Errorf("terminate the job of process %d: %w", p.pid, err)
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the job of process %d still has %d live processes after %v", p.pid, n, within)
		}
		t := time.NewTimer(pause)
		select { // the job's own word that it is empty, or look again
		case <-g.empty:
		case <-t.C:
		}
		t.Stop()
		pause = min(pause*2, 50*time.Millisecond)
	}
}

// active is the number of live processes in the job.
func (g *sysGroup) active() (uint32, error) {
	var acct jobAccounting
	err := windows.QueryInformationJobObject(g.job, windows.JobObjectBasicAccountingInformation,
		uintptr(unsafe.Pointer(&acct)), uint32(unsafe.Sizeof(acct)), nil)
	return acct.ActiveProcesses, err
}

// endGroup reports the limits the job reached and releases it. A command
// stopped by Start dies of TerminateJobObject: reported as a SIGKILL, as
// on Unix, so that callers tell it from an exit of its own.
func (p *Proc) endGroup(x *Exit) {
	g := &p.sys
	x.MemoryLimitHit = g.memHit.Load() || (g.limit > 0 && g.peakMemory() >= g.limit)
	x.ProcessLimitHit = g.pidHit.Load()
	if x.Stopped && x.State != nil && x.Code == killedExitCode {
		x.Signal, x.Code = syscall.SIGKILL, -1
	}
	if windows.PostQueuedCompletionStatus(g.port, jobMsgQuit, 0, nil) == nil {
		<-g.read
	}
	g.close()
}

// peakMemory is the most memory the job's processes committed at once.
func (g *sysGroup) peakMemory() int64 {
	var info windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION
	if err := windows.QueryInformationJobObject(g.job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info)), nil); err != nil {
		return 0
	}
	return int64(info.PeakJobMemoryUsed)
}

// close releases the handles; closing the job kills what is left in it.
func (g *sysGroup) close() {
	for _, h := range []*windows.Handle{&g.proc, &g.port, &g.job} {
		if *h != 0 {
			_ = windows.CloseHandle(*h)
			*h = 0
		}
	}
}

// Alive reports whether pid is a live process.
func Alive(pid int) bool {
	if pid <= 0 {
		return false
	}
	h, err := windows.OpenProcess(windows.SYNCHRONIZE, false, uint32(pid))
	if err != nil {
		// A process we may not open (another user's) is still alive.
		return errors.Is(err, windows.ERROR_ACCESS_DENIED)
	}
	defer windows.CloseHandle(h)
	ev, err := windows.WaitForSingleObject(h, 0)
	return err == nil && ev == uint32(windows.WAIT_TIMEOUT)
}

// Parent returns the parent of pid from a process snapshot; ok is false
// when there is no such process. Windows does not reparent orphans: the
// parent may have exited, and its pid may since name another process.
func Parent(pid int) (ppid int, ok bool) {
	snap, err := windows.CreateToolhelp32Snapshot(windows.TH32CS_SNAPPROCESS, 0)
	if err != nil {
		return 0, false
	}
	defer windows.CloseHandle(snap)
	pe := windows.ProcessEntry32{Size: uint32(unsafe.Sizeof(windows.ProcessEntry32{}))}
	for err = windows.Process32First(snap, &pe); err == nil; err = windows.Process32Next(snap, &pe) {
		if int(pe.ProcessID) == pid {
			return int(pe.ParentProcessID), true
		}
	}
	return 0, false
}
