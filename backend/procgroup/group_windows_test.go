package procgroup

import (
	"bufio"
	"context"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"unsafe"

	"github.com/loopforge/loopforge/backend/testproc"
	"golang.org/x/sys/windows"
)

// The test binary plays the children (testproc): no Python, no shell, so
// these run under Wine too.
func TestMain(m *testing.M) {
	testproc.Run()
	os.Exit(m.Run())
}

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

// wantGone: Wait returns once every process of the job is gone.
func wantGone(t *testing.T, p *Proc, pids []int) {
	t.Helper()
	for _, pid := range pids {
		if Alive(pid) {
			t.Errorf("process %d outlived Wait", pid)
		}
	}
	if p.sys.job != 0 {
		t.Error("the job is still open after Wait")
	}
}

func TestJobExitCode(t *testing.T) {
	p, err := Start(context.Background(), testproc.Command("exit 3"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	x := p.Wait()
	if x.Code != 3 || x.Signal != 0 || x.ShellCode() != 3 || x.Stopped || x.Err == nil {
		t.Errorf("%+v", x)
	}
}

// Cancelling kills the whole tree: the job is terminated, and the leader
// reads as killed, as on Unix.
func TestJobCancelKillsTree(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	p, pids := startTree(t, ctx, Options{}, "tree 2", 3)
	cancel()
	x := p.Wait()
	if !x.Stopped || x.TimedOut || x.Signal != syscall.SIGKILL || x.Code != -1 || x.SweepErr != nil {
		t.Errorf("%+v", x)
	}
	wantGone(t, p, pids)
}

// The timeout kills the tree too, and reads as one. The deadline passes
// once the tree is up (expiring), whatever the machine's speed.
func TestJobTimeoutKillsTree(t *testing.T) {
	ctx := newExpiring()
	p, pids := startTree(t, ctx, Options{}, "tree 2", 3)
	ctx.expire()
	x := p.Wait()
	if !x.Stopped || !x.TimedOut || x.Signal != syscall.SIGKILL {
		t.Errorf("%+v", x)
	}
	wantGone(t, p, pids)
}

// What the leader leaves running dies when it exits.
func TestJobLeaderExitKillsTree(t *testing.T) {
	p, pids := startTree(t, context.Background(), Options{}, "orphans 2", 2)
	x := p.Wait()
	if x.Stopped || x.Code != 0 || x.Signal != 0 || x.SweepErr != nil {
		t.Errorf("%+v", x)
	}
	wantGone(t, p, pids)
}

// The process that Start returns is in the job before it runs: a child it
// starts at once is in it too.
func TestJobHoldsImmediateChildren(t *testing.T) {
	p, pids := startTree(t, context.Background(), Options{}, "tree 1", 2)
	in := jobPids(t, p.sys.job)
	for _, pid := range pids {
		if !in[pid] {
			t.Errorf("process %d is not in the job (%v)", pid, in)
		}
	}
	if parent, ok := Parent(pids[1]); !ok || parent != pids[0] {
		t.Errorf("Parent(%d) = %d, %v; want %d", pids[1], parent, ok, pids[0])
	}
	p.Cmd.Process.Kill() // the leader only: the job kills the rest
	p.Wait()
	wantGone(t, p, pids)
}

func TestJobProcessLimit(t *testing.T) {
	if v := testproc.Wine(); v != "" {
		t.Skipf("Wine %s does not enforce JOB_OBJECT_LIMIT_ACTIVE_PROCESS (real Windows does)", v)
	}
	cmd := testproc.Command("procs 5")
	var out strings.Builder
	cmd.Stdout = &out
	p, err := Start(context.Background(), cmd, Options{JobProcesses: 3})
	if err != nil {
		t.Fatal(err)
	}
	x := p.Wait()
	if !strings.Contains(out.String(), "started 2") || !strings.Contains(out.String(), "refused:") {
		t.Errorf("output %q: want 2 children (3 with the leader), then a refusal", out.String())
	}
	if !x.ProcessLimitHit {
		t.Errorf("%+v: the limit is not reported", x)
	}
}

func TestJobMemoryLimit(t *testing.T) {
	if v := testproc.Wine(); v != "" {
		t.Skipf("Wine %s does not enforce JOB_OBJECT_LIMIT_JOB_MEMORY (real Windows does)", v)
	}
	cmd := testproc.Command("alloc 512")
	var out strings.Builder
	cmd.Stdout = &out
	p, err := Start(context.Background(), cmd, Options{JobMemory: 128 << 20})
	if err != nil {
		t.Fatal(err)
	}
	x := p.Wait()
	if x.Code == 0 || strings.Contains(out.String(), "allocated") || !x.MemoryLimitHit {
		t.Errorf("%+v, output %q: want the allocation refused and the limit reported", x, out.String())
	}
}

func TestAliveWindows(t *testing.T) {
	if !Alive(os.Getpid()) || Alive(-1) || Alive(0) {
		t.Error("Alive(self), Alive(-1) or Alive(0) wrong")
	}
	cmd := testproc.Command("exit 0")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	if Alive(cmd.Process.Pid) {
		t.Errorf("an exited process %d reads as alive", cmd.Process.Pid)
	}
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

// jobPids lists the processes in job (JobObjectBasicProcessIdList; Windows
// may add its own, such as a console host).
func jobPids(t *testing.T, job windows.Handle) map[int]bool {
	t.Helper()
	var list struct {
		Assigned, Listed uint32
		IDs              [64]uintptr
	}
	err := windows.QueryInformationJobObject(job, windows.JobObjectBasicProcessIdList,
		uintptr(unsafe.Pointer(&list)), uint32(unsafe.Sizeof(list)), nil)
	if err != nil {
		t.Fatal(err)
	}
	in := map[int]bool{}
	for _, id := range list.IDs[:list.Listed] {
		in[int(id)] = true
	}
	return in
}
