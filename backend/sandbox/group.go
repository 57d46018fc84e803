package sandbox

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// killReason records why the sandbox killed a group; the first reason wins.
type killReason int

const (
	reasonNone killReason = iota
	reasonTimeout
	reasonCancelled
	reasonOutput
)

// group is the process group of one run (its id is the leader's pid, since
// the leader starts a new session). Kills may be requested before the pid is
// known: os/exec starts copying output during Start, and a flood can pass the
// cap before Start returns.
type group struct {
	mu     sync.Mutex
	pid    int
	reason killReason
	exited bool // leader exited on its own terms; later reasons are not recorded
}

// kill records why (unless the leader already exited) and SIGKILLs the group.
func (g *group) kill(why killReason) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.exited && g.reason == reasonNone {
		g.reason = why
	}
	if g.pid > 0 {
		_ = syscall.Kill(-g.pid, syscall.SIGKILL)
	}
}

// started sets the pid and carries out a kill requested before it was known.
func (g *group) started(pid int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.pid = pid
	if g.reason != reasonNone {
		_ = syscall.Kill(-pid, syscall.SIGKILL)
	}
}

// leaderExited freezes the reason: a timer firing after the code finished
// must not turn its result into a timeout.
func (g *group) leaderExited() killReason {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.exited = true
	return g.reason
}

func (g *group) why() killReason {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.reason
}

// waitExit blocks until the child pid has exited but leaves it unreaped
// (WNOWAIT). While the zombie exists its pid cannot be reused, so killing
// -pid afterwards can only hit the run's own group. Killing then, rather than
// after cmd.Wait, matters because Wait also waits for the output pipes, which
// a leftover background child keeps open.
func waitExit(pid int) error {
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if !errors.Is(err, unix.EINTR) {
			return err
		}
	}
}

// sweepGroup kills the group until no live member is left (zombies count as
// dead: on hosts whose init does not reap, orphans stay zombies forever) or
// the deadline passes. It reports the pids still alive at the deadline.
func sweepGroup(pgid int, within time.Duration) error {
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
		live := liveGroupMembers(pgid)
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

// liveGroupMembers scans /proc for processes in process group pgid that are
// not zombies.
func liveGroupMembers(pgid int) []int {
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
		state, pg, ok := procStat(pid)
		if ok && pg == pgid && state != 'Z' && state != 'X' {
			live = append(live, pid)
		}
	}
	return live
}

// procStat returns the state and process group of pid from /proc/pid/stat.
func procStat(pid int) (state byte, pgid int, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, 0, false
	}
	// "pid (comm) state ppid pgrp ..."; comm may contain spaces and parens.
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
