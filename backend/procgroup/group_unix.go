//go:build linux || darwin

package procgroup

import (
	"errors"
	"fmt"
	"syscall"
	"time"
)

// The process group primitives Linux and macOS share: a group is the
// session its leader started (pgid = the leader's pid), reached by one
// signal to -pgid. Each OS finds the group's live members its own way
// (liveMembers: /proc on Linux, sysctl on macOS).

func (p *Proc) waitLeader() error { return waitExit(p.pid) }

func (p *Proc) sweepGroup(within time.Duration) error { return sweep(p.pid, within) }

// terminate asks the group to stop (SIGTERM); true: the grace period applies.
func (p *Proc) terminate() bool {
	_ = signalGroup(p.pid, syscall.SIGTERM)
	return true
}

func (p *Proc) killGroup() { _ = signalGroup(p.pid, syscall.SIGKILL) }

// signalGroup sends sig to every process of group pgid.
func signalGroup(pgid int, sig syscall.Signal) error {
	return syscall.Kill(-pgid, sig)
}

// sweep SIGKILLs the group until no live member is left (zombies count as
// dead: on hosts whose init does not reap, orphans stay zombies forever) or
// within has passed. It reports a failed kill, or the pids still alive at the
// deadline.
func sweep(pgid int, within time.Duration) error {
	deadline := time.Now().Add(within)
	pause := time.Millisecond
	for {
		err := syscall.Kill(-pgid, syscall.SIGKILL)
		if errors.Is(err, syscall.ESRCH) {
			return nil // the common case: nothing outlived the leader
		}
		if err != nil {
			return fmt.Errorf("kill group %d: %w", pgid, err)
		}
		live := liveMembers(pgid)
		if len(live) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("group %d still has live processes %v after %v", pgid, live, within)
		}
		time.Sleep(pause)
		pause = min(pause*2, 50*time.Millisecond)
	}
}
