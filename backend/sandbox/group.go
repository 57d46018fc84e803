package sandbox

import (
	"sync"
	"syscall"
	"time"

	"github.com/loopforge/loopforge/backend/procgroup"
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
	cg     *runCgroup // the run's cgroup, nil if none; killed along with the group
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
		if g.cg != nil {
			g.cg.kill()
		}
	}
}

// started sets the pid and carries out a kill requested before it was known.
func (g *group) started(pid int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.pid = pid
	if g.reason != reasonNone {
		_ = syscall.Kill(-pid, syscall.SIGKILL)
		if g.cg != nil {
			g.cg.kill()
		}
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
// (procgroup.WaitExit), so killing -pid afterwards can only hit the run's own
// group. Killing then, rather than after cmd.Wait, matters because Wait also
// waits for the output pipes, which a leftover background child keeps open.
func waitExit(pid int) error { return procgroup.WaitExit(pid) }

// sweepGroup kills the group until no live member is left or within has
// passed (procgroup.Sweep).
func sweepGroup(pgid int, within time.Duration) error { return procgroup.Sweep(pgid, within) }

// liveGroupMembers and procStat are procgroup.LiveMembers and
// procgroup.ProcState under the names the tests use.
func liveGroupMembers(pgid int) []int { return procgroup.LiveMembers(pgid) }

func procStat(pid int) (state byte, pgid int, ok bool) { return procgroup.ProcState(pid) }
