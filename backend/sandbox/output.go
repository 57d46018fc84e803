//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"
)

// outputPipe is one output stream of the code: the child writes into w; a
// goroutine copies from the read end into a buffer until EOF, or until
// drain gives up on writers that outlived the run.
//
// The read end is a raw non-blocking descriptor served by poll(2), not an
// *os.File: draining must read everything already in the pipe even when
// the copying goroutine was starved of CPU past the deadline (a Go read
// past its deadline fails without consuming buffered bytes), and it must
// never block on a writer that escaped the run.
type outputPipe struct {
	w       *os.File // the child's end
	rfd     int
	stop    atomic.Int64 // UnixNano after which the copier stops waiting; 0 = wait for EOF
	done    chan struct{}
	started bool
}

// pollInterval bounds how long the copier sleeps in poll(2) before it looks
// at the stop time again.
const pollInterval = 50 * time.Millisecond

func newOutputPipe() (*outputPipe, error) {
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC); err != nil {
		return nil, fmt.Errorf("sandbox: output pipe: %w", err)
	}
	if err := unix.SetNonblock(p[0], true); err != nil {
		unix.Close(p[0])
		unix.Close(p[1])
		return nil, fmt.Errorf("sandbox: output pipe: %w", err)
	}
	return &outputPipe{w: os.NewFile(uintptr(p[1]), "sandbox-output"), rfd: p[0], done: make(chan struct{})}, nil
}

// closeWriter closes the parent's copy of the write end once the child
// holds its own: EOF must come from the child alone.
func (o *outputPipe) closeWriter() { _ = o.w.Close() }

// start starts copying into dst. A warm run starts it only when its code
// is handed over (its live writers are known then); until then what the
// interpreter writes waits in the pipe.
func (o *outputPipe) start(dst io.Writer) {
	o.started = true
	go o.copy(dst)
}

func (o *outputPipe) copy(dst io.Writer) {
	defer close(o.done)
	buf := make([]byte, 32*kib)
	// Once stopped, an escaped writer that keeps writing may add this much
	// more (a pipe holds at most its capacity once the writers are gone).
	budget := 2 * mib
	fds := []unix.PollFd{{Fd: int32(o.rfd), Events: unix.POLLIN}}
	for {
		// The copy gives up only on a read that began after the stop
		// time and found the pipe empty. Judging an older empty read by
		// the clock after it lost output: under load this goroutine can
		// be descheduled for longer than drainGrace between the read and
		// the check, while the code's last words arrive (seen: a
		// program's final line, in the pipe, never read).
		began := time.Now().UnixNano()
		n, err := unix.Read(o.rfd, buf)
		if n > 0 {
			_, _ = dst.Write(buf[:n])
			if s := o.stop.Load(); s != 0 && time.Now().UnixNano() > s {
				if budget -= n; budget <= 0 {
					return
				}
			}
			continue
		}
		switch {
		case n == 0 && err == nil:
			return // EOF: every writer is gone
		case errors.Is(err, unix.EINTR):
			continue
		case !errors.Is(err, unix.EAGAIN):
			return
		}
		if testHookEmptyRead != nil {
			testHookEmptyRead(o)
		}
		wait := pollInterval
		if s := o.stop.Load(); s != 0 {
			if began > s {
				return // drained what was there; the writer outlived the run
			}
			wait = min(wait, max(time.Until(time.Unix(0, s)), 0))
		}
		_, _ = unix.Poll(fds, int(wait/time.Millisecond)+1)
	}
}

// testHookEmptyRead, when set (by tests), runs after each read that found
// the pipe empty, before the copy decides whether to stop.
var testHookEmptyRead func(*outputPipe)

// drain waits for the copy to reach EOF, at most grace longer. It reports
// whether a writer still held the pipe.
func (o *outputPipe) drain(grace time.Duration) bool {
	select {
	case <-o.done:
		return false
	default:
	}
	o.stop.Store(time.Now().Add(grace).UnixNano())
	<-o.done
	return true
}

// close stops the copy if it still runs and releases both ends.
func (o *outputPipe) close() {
	if o.started {
		select {
		case <-o.done:
		default:
			if o.stop.Load() == 0 {
				o.stop.Store(time.Now().UnixNano())
			}
			<-o.done
		}
	}
	_ = o.w.Close()
	unix.Close(o.rfd)
}
