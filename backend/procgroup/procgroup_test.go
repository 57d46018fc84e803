//go:build linux

package procgroup

import (
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

func TestProcState(t *testing.T) {
	state, pgid, ok := procState(os.Getpid())
	if !ok || state == 'Z' || pgid != syscall.Getpgrp() {
		t.Errorf("procState(self) = %c, %d, %v; want pgid %d", state, pgid, ok, syscall.Getpgrp())
	}
	if _, _, ok := procState(-1); ok {
		t.Error("procState(-1) reported a process")
	}
	if !Alive(os.Getpid()) || Alive(-1) {
		t.Error("Alive(self) or Alive(-1) wrong")
	}
}

// A leader that exits leaving a background child behind: waitExit returns
// once the leader is gone, sweep kills the child.
func TestWaitExitSweep(t *testing.T) {
	cmd := exec.Command("/bin/sh", "-c", "sleep 60 & echo started")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	t.Cleanup(func() { _ = signalGroup(pid, syscall.SIGKILL) })
	if err := waitExit(pid); err != nil {
		t.Fatal(err)
	}
	if err := sweep(pid, 2*time.Second); err != nil {
		t.Fatal(err)
	}
	if live := liveMembers(pid); len(live) != 0 {
		t.Errorf("live members %v after sweep", live)
	}
	_ = cmd.Wait()
	if err := sweep(pid, time.Second); err != nil {
		t.Errorf("sweep of a gone group: %v", err)
	}
}
