//go:build linux

package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"github.com/loopforge/loopforge/backend/procgroup"
)

// infoFD is where bubblewrap writes its --info-fd document: after the status
// pipe (3) and a warm run's program pipe (4, closed in cold runs). The shim
// marks it and anything above close-on-exec, so the code never holds it.
const infoFD = 5

// nsInit follows the init process of a run's PID namespace (bubblewrap's
// pid 1 inside, a child of the bwrap that loopforge starts). The run's
// processes are in that namespace and in a session of their own, out of
// reach of the process group loopforge kills; when init dies the kernel
// kills them all, and init's exit completes only once they are gone. The
// outer bwrap exits as soon as the code's first process exits (or is
// killed), while the rest of the namespace is still dying: under load a
// fork bomb's processes were seen alive for seconds after that. Waiting for
// init's pidfd to become readable is what makes "nothing outlives Run" hold
// without a cgroup.
type nsInit struct {
	r    *os.File      // loopforge's end of the info pipe
	w    *os.File      // bwrap's end, until it is started
	done chan struct{} // closed once pidfd is settled

	mu sync.Mutex // fd: the stop and the final sweep use it concurrently
	fd int        // pidfd of the namespace's init, -1 if unknown

	// launched: the reader runs. Atomic: the run's stop and sweep
	// (procgroup's goroutines) may look before Start's caller gets to
	// started.
	launched atomic.Bool
}

func newNSInit() (*nsInit, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("sandbox: info pipe: %w", err)
	}
	return &nsInit{r: r, w: w, done: make(chan struct{}), fd: -1}, nil
}

// started closes bwrap's end in loopforge and follows the document bwrap
// writes: {"child-pid": N}. A pid is trusted only if that process is a
// child of bwrap (leader) once its pidfd is held: the code, which may
// inherit the pipe on kernels without close_range, could write first, but
// no process of its own is bwrap's child.
func (n *nsInit) started(leader int) {
	_ = n.w.Close()
	n.launched.Store(true)
	go func() {
		defer close(n.done)
		var info struct {
			ChildPid int `json:"child-pid"`
		}
		err := json.NewDecoder(n.r).Decode(&info)
		_ = n.r.Close()
		if err != nil || info.ChildPid <= 0 {
			return // bwrap failed before it cloned; nothing is inside
		}
		fd, err := unix.PidfdOpen(info.ChildPid, 0)
		if err != nil {
			return // already gone and reaped
		}
		if ppid, ok := procgroup.Parent(info.ChildPid); !ok || ppid != leader {
			unix.Close(fd)
			return
		}
		n.mu.Lock()
		n.fd = fd
		n.mu.Unlock()
	}()
}

// await waits until bwrap has named its namespace's init (or ended
// without a namespace), at most within. The run's stop calls it before
// killing bwrap: bwrap killed between its clone and that document leaves an
// init behind that nothing would kill (seen: orphaned inits alive for
// minutes), and its --die-with-parent may not be armed yet.
func (n *nsInit) await(within time.Duration) bool {
	if !n.launched.Load() {
		return true
	}
	// Done already? (With a zero timer the select below would pick either
	// case at random when both are ready.)
	select {
	case <-n.done:
		return true
	default:
	}
	if within <= 0 {
		return false
	}
	t := time.NewTimer(within)
	defer t.Stop()
	select {
	case <-n.done:
		return true
	case <-t.C:
		return false
	}
}

// kill sends SIGKILL to the namespace's init, if known, and says whether
// it did.
func (n *nsInit) kill() bool {
	if !n.launched.Load() || !n.await(0) {
		return false
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.fd >= 0 && unix.PidfdSendSignal(n.fd, unix.SIGKILL, nil, 0) == nil
}

// killAndWait kills the namespace's init, which takes every process inside
// with it, and waits until it has exited, at most within.
func (n *nsInit) killAndWait(within time.Duration) error {
	deadline := time.Now().Add(within)
	if !n.await(within) {
		return errors.New("sandbox: bubblewrap never said which process is the namespace's init")
	}
	n.mu.Lock()
	fd := n.fd
	n.mu.Unlock()
	if fd < 0 {
		return nil
	}
	defer func() {
		n.mu.Lock()
		n.fd = -1
		n.mu.Unlock()
		unix.Close(fd)
	}()
	_ = unix.PidfdSendSignal(fd, unix.SIGKILL, nil, 0)
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	for {
		left := time.Until(deadline)
		if left <= 0 {
			return errors.New("sandbox: the PID namespace's processes are still alive")
		}
		k, err := unix.Poll(fds, int(left/time.Millisecond)+1)
		if k > 0 {
			return nil // init has exited: so has everything in its namespace
		}
		if err != nil && !errors.Is(err, unix.EINTR) {
			return fmt.Errorf("sandbox: wait for the namespace's init: %w", err)
		}
	}
}

// close releases what is left: the pipe, and the pidfd when the run never
// got to killAndWait.
func (n *nsInit) close() {
	_ = n.w.Close()
	_ = n.r.Close() // ends a reader still waiting for bwrap
	if n.launched.Load() {
		<-n.done
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.fd >= 0 {
		unix.Close(n.fd)
		n.fd = -1
	}
}
