package procgroup

import (
	"errors"
	"os/exec"
	"syscall"
	"time"
)

// reaperWithin bounds the wait for a reaper once asked to kill everything
// (it gives up on unkillable processes after reapWithin).
const reaperWithin = reapWithin + 5*time.Second

// sysGroup is what Linux holds of a group besides its id: the reaper of a
// command started with Options.Reap.
type sysGroup struct {
	reaper *reaped // nil unless Options.Reap
}

// startGroup starts p.Cmd in a new session, under a reaper with
// Options.Reap.
func (p *Proc) startGroup() error {
	cmd := p.Cmd
	if p.o.Reap {
		r, err := reapCmd(cmd)
		if err != nil {
			return err
		}
		if err := r.Start(); err != nil {
			return err
		}
		p.sys.reaper = r
		return nil
	}
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	// A session leader cannot change its group: Setpgid would fail.
	cmd.SysProcAttr.Setsid, cmd.SysProcAttr.Setpgid = true, false
	return cmd.Start()
}

// stopReaper asks the reaper, if any, to kill everything, and reports
// whether the group was gone in time. A SIGKILL to the group would kill
// the reaper before it could kill what left the group: it is asked first.
func (p *Proc) stopReaper() bool {
	if p.sys.reaper == nil {
		return false
	}
	p.sys.reaper.Kill()
	return p.goneWithin(reaperWithin) // else: kill the group at least
}

// endGroup releases the reaper's control pipe once the leader is reaped.
func (p *Proc) endGroup(*Exit) {
	if p.sys.reaper != nil {
		p.sys.reaper.Kill()
	}
}

// reapCmd turns cmd into the command of a reaper that runs what cmd would
// have run.
func reapCmd(cmd *exec.Cmd) (*reaped, error) {
	if cmd.Err != nil {
		return nil, cmd.Err
	}
	if cmd.ExtraFiles != nil || cmd.SysProcAttr != nil {
		return nil, errors.New("procgroup: a reaped command cannot have ExtraFiles or SysProcAttr")
	}
	return reap(cmd), nil
}
