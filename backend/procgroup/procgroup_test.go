package procgroup

import (
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

func TestProcState(t *testing.T) {
	state, pgid, ok := ProcState(os.Getpid())
	if !ok || state == 'Z' || pgid != syscall.Getpgrp() {
		t.Errorf("ProcState(self) = %c, %d, %v; want pgid %d", state, pgid, ok, syscall.Getpgrp())
	}
	if _, _, ok := ProcState(-1); ok {
		t.Error("ProcState(-1) reported a process")
	}
}

// A leader that exits leaving a background child behind: WaitExit returns
// once the leader is gone, Sweep kills the child.
func TestWaitExitSweep(t *testing.T) {
	cmd := exec.Command("/bin/sh", "-c", "sleep 60 & echo started")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	t.Cleanup(func() { _ = Signal(pid, syscall.SIGKILL) })
	if err := WaitExit(pid); err != nil {
		t.Fatal(err)
	}
	if err := Sweep(pid, 2*time.Second); err != nil {
		t.Fatal(err)
	}
	if live := LiveMembers(pid); len(live) != 0 {
		t.Errorf("live members %v after Sweep", live)
	}
	_ = cmd.Wait()
	if err := Sweep(pid, time.Second); err != nil {
		t.Errorf("Sweep of a gone group: %v", err)
	}
}
