package procgroup

// Start on every OS, with the test binary as the children (testproc): no
// Python, no shell, so these run under Wine too. The OS's own tests are in
// run_test.go and reaper_test.go (Linux) and group_windows_test.go.

import (
	"bufio"
	"context"
	"io"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/loopforge/loopforge/backend/testproc"
)

// startTree starts script under Start and reads n "pid N" lines from it.
func startTree(t *testing.T, ctx context.Context, o Options, script string, n int) (*Proc, []int) {
	t.Helper()
	cmd := testproc.Command(script)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(ctx)
	p, err := Start(ctx, cmd, o)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); p.Wait() })
	return p, readPids(t, out, n)
}

func readPids(t *testing.T, out io.Reader, n int) []int {
	t.Helper()
	var pids []int
	sc := bufio.NewScanner(out)
	for len(pids) < n && sc.Scan() {
		if s, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "pid "); ok {
			pid, err := strconv.Atoi(s)
			if err != nil {
				t.Fatal(err)
			}
			pids = append(pids, pid)
		}
	}
	if len(pids) < n {
		t.Fatalf("read pids %v, want %d (%v)", pids, n, sc.Err())
	}
	return pids
}

// wantGone: Wait returns once every process of the group is gone.
func wantGone(t *testing.T, pids []int) {
	t.Helper()
	for _, pid := range pids {
		if Alive(pid) {
			t.Errorf("process %d outlived Wait", pid)
		}
	}
}

func TestGroupExitCode(t *testing.T) {
	p, err := Start(context.Background(), testproc.Command("exit 3"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	x := p.Wait()
	if x.Code != 3 || x.Signal != 0 || x.ShellCode() != 3 || x.Stopped || x.Err == nil {
		t.Errorf("%+v", x)
	}
}

// Cancelling kills the whole tree, and the leader reads as killed (on
// Windows too, where the job is terminated).
func TestGroupCancelKillsTree(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	p, pids := startTree(t, ctx, Options{}, "tree 2", 3)
	cancel()
	x := p.Wait()
	if !x.Stopped || x.TimedOut || x.Signal != syscall.SIGKILL || x.Code != -1 || x.SweepErr != nil {
		t.Errorf("%+v", x)
	}
	wantGone(t, pids)
}

// The timeout kills the tree too, and reads as one. The deadline passes
// once the tree is up (expiring), whatever the machine's speed.
func TestGroupTimeoutKillsTree(t *testing.T) {
	ctx := newExpiring()
	p, pids := startTree(t, ctx, Options{}, "tree 2", 3)
	ctx.expire()
	x := p.Wait()
	if !x.Stopped || !x.TimedOut || x.Signal != syscall.SIGKILL {
		t.Errorf("%+v", x)
	}
	wantGone(t, pids)
}

// What the leader leaves running dies when it exits.
func TestGroupLeaderExitKillsTree(t *testing.T) {
	p, pids := startTree(t, context.Background(), Options{}, "orphans 2", 2)
	x := p.Wait()
	if x.Stopped || x.Code != 0 || x.Signal != 0 || x.SweepErr != nil {
		t.Errorf("%+v", x)
	}
	wantGone(t, pids)
}

// expiring is a context whose deadline passes when expire is called.
type expiring struct {
	context.Context // Background's values
	done            chan struct{}
	once            sync.Once
}

func newExpiring() *expiring {
	return &expiring{Context: context.Background(), done: make(chan struct{})}
}

func (e *expiring) Done() <-chan struct{} { return e.done }

func (e *expiring) Err() error {
	select {
	case <-e.done:
		return context.DeadlineExceeded
	default:
		return nil
	}
}

func (e *expiring) expire() { e.once.Do(func() { close(e.done) }) }
