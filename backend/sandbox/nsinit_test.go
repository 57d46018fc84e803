//go:build linux

package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

// namespaceRunner is a Runner at the namespace level without a cgroup: what
// ends the run's processes there is the PID namespace alone. The tests run
// with the hostile suite, whose test binary bwrap can reach as uid 65534.
func namespaceRunner(t *testing.T) *Runner {
	t.Helper()
	hostileEnabled(t)
	r, err := NewRunner(Options{Isolation: IsolationNamespace, NoCgroup: true})
	if err != nil {
		t.Fatal(err)
	}
	if r.isolation != IsolationNamespace {
		t.Skipf("the namespace level is not available here (%s)", r.Isolation())
	}
	r.tempRoot = t.TempDir()
	return r
}

// TestHostileNamespaceNothingOutlivesRun: a process the code leaves behind in a
// session of its own is dead by the time Run returns, without the grace
// wantNoSurvivors allows. bwrap exits with the code's first process; the
// rest of its namespace dies with the namespace's init, after that.
func TestHostileNamespaceNothingOutlivesRun(t *testing.T) {
	r := namespaceRunner(t)
	// The children let go of the output pipes, which Run would otherwise
	// wait for a moment.
	code := "import os, time\nif os.fork() == 0:\n    os.setsid()\n    for fd in (0, 1, 2): os.close(fd)\n    for i in range(20):\n        if os.fork() == 0: time.sleep(1000)\n    time.sleep(1000)\nprint('left them')"
	for i := range 10 {
		m := newMarker()
		res, err := r.Run(withMarker(context.Background(), m), Request{Code: code})
		if err != nil || res.Status != StatusOK {
			t.Fatalf("run %d: %v %s %q", i, err, res.Status, res.Stderr)
		}
		if live := markedProcs(m); len(live) > 0 {
			killMarked(m)
			t.Fatalf("run %d: %d processes of the run alive when Run returned", i, len(live))
		}
	}
}

// TestHostileNamespaceCodeHasNoInfoFD: bwrap's info pipe is not the code's (it
// could otherwise write a document of its own into it).
func TestHostileNamespaceCodeHasNoInfoFD(t *testing.T) {
	r := namespaceRunner(t)
	res, err := r.Run(context.Background(), Request{Code: "import os\nprint(sorted(int(f) for f in os.listdir('/proc/self/fd')))"})
	if err != nil || res.Status != StatusOK {
		t.Fatalf("%v %s %q", err, res.Status, res.Stderr)
	}
	// 0-2, and the descriptor listdir itself opened.
	if fds := strings.TrimSpace(res.Stdout); fds != "[0, 1, 2, 3]" {
		t.Errorf("the code's descriptors: %s", fds)
	}
}

// TestHostileNamespaceKilledDuringSetUp: a run stopped while bubblewrap is
// still setting the sandbox up (a timeout shorter than the set-up) leaves
// nothing behind: the code never runs on its own after Run has returned.
func TestHostileNamespaceKilledDuringSetUp(t *testing.T) {
	r := namespaceRunner(t)
	code := "import time\ntime.sleep(30)"
	for i := range 60 {
		m := newMarker()
		timeout := time.Duration(1+i%20) * time.Millisecond
		res, err := r.Run(withMarker(context.Background(), m), Request{Code: code, Limits: Limits{Timeout: timeout}})
		if err != nil && !errors.Is(err, ErrShim) {
			t.Fatalf("run %d: %v", i, err)
		}
		if res.Status == StatusOK {
			t.Fatalf("run %d: ok in %v", i, timeout)
		}
		if live := markedProcs(m); len(live) > 0 {
			for _, pid := range live {
				b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
				st, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
				t.Logf("run %d (timeout %v, %s) left %d: %q %s", i, timeout, res.Status, pid, b, st)
			}
		}
		wantNoSurvivors(t, m)
	}
}

// TestHostileNamespaceDiscardedAtOnce: a prepared sandbox closed as soon as
// Prepare returns (bwrap has only just started) leaves nothing behind.
// Killed in the middle of its set-up, bwrap used to orphan its namespace's
// init, which then lived on for minutes.
func TestHostileNamespaceDiscardedAtOnce(t *testing.T) {
	r := namespaceRunner(t)
	for i := range 30 {
		m := newMarker()
		p, err := r.Prepare(withMarker(context.Background(), m), Request{})
		if err != nil {
			t.Fatalf("Prepare %d: %v", i, err)
		}
		p.Close()
		wantNoSurvivors(t, m)
	}
}

// await(0) asks "named already?": once the reader is done it must say yes
// every time (a zero timer raced the done channel, so stops skipped the
// init's kill and scanned every cgroup instead), and no while it reads.
func TestNSInitAwaitZero(t *testing.T) {
	n, err := newNSInit()
	if err != nil {
		t.Fatal(err)
	}
	defer n.w.Close()
	defer n.r.Close()
	n.launched.Store(true)
	for i := range 200 {
		if n.await(0) {
			t.Fatalf("call %d: await(0) = true while bubblewrap has said nothing", i+1)
		}
	}
	close(n.done)
	for i := range 200 {
		if !n.await(0) {
			t.Fatalf("call %d: await(0) = false with the reader done", i+1)
		}
	}
}
