package cliproc

import (
	"bytes"
	"errors"
	"os"
	"strconv"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// waitExit blocks until pid has exited but leaves it unreaped (WNOWAIT):
// while the zombie exists its pid, and so the group id, cannot be reused, so
// signalling -pid can only reach the call's own group.
func waitExit(pid int) {
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if !errors.Is(err, unix.EINTR) {
			return
		}
	}
}

// signalGroup sends sig to every process of group pgid.
func signalGroup(pgid int, sig syscall.Signal) {
	_ = syscall.Kill(-pgid, sig)
}

// sweepGroup SIGKILLs the group until no live member is left (zombies count
// as dead: where init does not reap, orphans stay zombies) or within passes.
func sweepGroup(pgid int, within time.Duration) {
	deadline := time.Now().Add(within)
	pause := time.Millisecond
	for {
		if err := syscall.Kill(-pgid, syscall.SIGKILL); errors.Is(err, syscall.ESRCH) {
			return
		}
		if len(LiveGroupMembers(pgid)) == 0 || time.Now().After(deadline) {
			return
		}
		time.Sleep(pause)
		pause = min(pause*2, 50*time.Millisecond)
	}
}

// LiveGroupMembers lists the processes of group pgid that are not zombies.
func LiveGroupMembers(pgid int) []int {
	dir, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var live []int
	for _, e := range dir {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if state, pg, ok := ProcState(pid); ok && pg == pgid && state != 'Z' && state != 'X' {
			live = append(live, pid)
		}
	}
	return live
}

// ProcState returns the state letter and process group of pid from
// /proc/pid/stat; ok is false when there is no such process.
func ProcState(pid int) (state byte, pgid int, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, 0, false
	}
	// "pid (comm) state ppid pgrp ..."; comm may hold spaces and parens.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, 0, false
	}
	f := bytes.Fields(b[i+1:])
	if len(f) < 3 || len(f[0]) != 1 {
		return 0, 0, false
	}
	pg, err := strconv.Atoi(string(f[2]))
	if err != nil {
		return 0, 0, false
	}
	return f[0][0], pg, true
}
