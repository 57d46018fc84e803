// Package procgroup runs a child in a process group of its own and stops
// it (Start), and captures its output in a capped buffer (HeadTail). The
// sandbox, the coding CLI providers and the workspace's commands all run
// their children through it, so that nothing a child started outlives it.
// Its primitives wait for, kill and inspect the group of a child started
// in a new session (so the group id is the leader's pid). Linux only: it
// reads /proc.
package procgroup

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// waitExit blocks until the child pid has exited but leaves it unreaped
// (WNOWAIT): while the zombie exists its pid, and so the group id, cannot be
// reused, so signalling -pid can only reach the child's own group.
func waitExit(pid int) error {
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if !errors.Is(err, unix.EINTR) {
			return err
		}
	}
}

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

// liveMembers scans /proc for the processes of group pgid that are not
// zombies.
func liveMembers(pgid int) []int {
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
		if state, pg, ok := procState(pid); ok && pg == pgid && running(state) {
			live = append(live, pid)
		}
	}
	return live
}

// Alive reports whether pid is a live process. Zombies count as dead: on
// hosts whose init does not reap, killed orphans stay zombies.
func Alive(pid int) bool {
	state, _, ok := procState(pid)
	return ok && running(state)
}

// running reports whether a state letter of /proc/pid/stat is not dead.
func running(state byte) bool { return state != 'Z' && state != 'X' }

// procState returns the state letter and process group of pid from
// /proc/pid/stat; ok is false when there is no such process.
func procState(pid int) (state byte, pgid int, ok bool) {
	st, ok := readStat(pid)
	return st.state, st.pgid, ok
}

// Parent returns the parent of pid from /proc/pid/stat; ok is false when
// there is no such process.
func Parent(pid int) (ppid int, ok bool) {
	st, ok := readStat(pid)
	return st.ppid, ok
}

type stat struct {
	state      byte
	ppid, pgid int
}

func readStat(pid int) (stat, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return stat{}, false
	}
	// "pid (comm) state ppid pgrp ..."; comm may hold spaces and parens.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return stat{}, false
	}
	f := bytes.Fields(b[i+1:])
	if len(f) < 3 || len(f[0]) != 1 {
		return stat{}, false
	}
	ppid, err1 := strconv.Atoi(string(f[1]))
	pg, err2 := strconv.Atoi(string(f[2]))
	if err1 != nil || err2 != nil {
		return stat{}, false
	}
	return stat{state: f[0][0], ppid: ppid, pgid: pg}, true
}
