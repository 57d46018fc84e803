//go:build linux

package procgroup

import (
	"bytes"
	"errors"
	"os"
	"strconv"

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
