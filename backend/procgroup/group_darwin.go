package procgroup

import (
	"errors"
	"syscall"

	"golang.org/x/sys/unix"
)

// macOS: the group is a session of its own, as on Linux, but there is no
// /proc (the primitives below ask sysctl) and no child subreaper: a process
// of the command that calls setsid() (a daemon) leaves the group, is
// adopted by launchd and survives the command. Options.Reap is therefore
// ignored here; only a cgroup or a PID namespace (Linux) would catch it.

// sysGroup: macOS holds nothing besides the group id.
type sysGroup struct{}

// szomb is a zombie's p_stat (<sys/proc.h>); x/sys/unix does not name it.
const szomb = 5

// startGroup starts p.Cmd in a new session: a group of its own (so one
// signal reaches everything that stays in it), detached from loopforge's
// terminal, as on Linux.
func (p *Proc) startGroup() error {
	cmd := p.Cmd
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setsid, cmd.SysProcAttr.Setpgid = true, false
	return cmd.Start()
}

func (p *Proc) stopReaper() bool { return false }

func (p *Proc) endGroup(*Exit) {}

// waitExit blocks until pid has exited, leaving it unreaped (a kqueue
// NOTE_EXIT event does not reap; macOS has no waitid WNOWAIT in x/sys):
// while the zombie exists its pid, and so the group id, cannot be reused.
func waitExit(pid int) error {
	kq, err := unix.Kqueue()
	if err != nil {
		return err
	}
	defer unix.Close(kq)
	var ev unix.Kevent_t
	unix.SetKevent(&ev, pid, unix.EVFILT_PROC, unix.EV_ADD|unix.EV_ONESHOT)
	ev.Fflags = unix.NOTE_EXIT
	for {
		out := make([]unix.Kevent_t, 1)
		n, err := unix.Kevent(kq, []unix.Kevent_t{ev}, out, nil)
		switch {
		case errors.Is(err, unix.EINTR):
			continue
		case errors.Is(err, unix.ESRCH):
			return nil // exited already: only a zombie is left
		case err != nil:
			return err
		case n == 1 && out[0].Flags&unix.EV_ERROR != 0:
			if errno := syscall.Errno(out[0].Data); errno != 0 && errno != unix.ESRCH {
				return errno
			}
			return nil
		case n == 1:
			return nil
		}
	}
}

// liveMembers lists the processes of group pgid that are not zombies.
func liveMembers(pgid int) []int {
	kps, err := unix.SysctlKinfoProcSlice("kern.proc.pgrp", pgid)
	if err != nil {
		return nil
	}
	var live []int
	for _, kp := range kps {
		if kp.Proc.P_stat != szomb {
			live = append(live, int(kp.Proc.P_pid))
		}
	}
	return live
}

// Alive reports whether pid is a live process (zombies count as dead).
func Alive(pid int) bool {
	kp, ok := kinfo(pid)
	return ok && kp.Proc.P_stat != szomb
}

// Parent returns the parent of pid; ok is false when there is no such
// process.
func Parent(pid int) (ppid int, ok bool) {
	kp, ok := kinfo(pid)
	return int(kp.Eproc.Ppid), ok
}

func kinfo(pid int) (*unix.KinfoProc, bool) {
	if pid <= 0 {
		return &unix.KinfoProc{}, false
	}
	kp, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
	if err != nil || int(kp.Proc.P_pid) != pid {
		return &unix.KinfoProc{}, false
	}
	return kp, true
}
