package procgroup

import (
	"context"
	"os"
	"strings"
	"testing"
	"unsafe"

	"github.com/loopforge/loopforge/backend/testproc"
	"golang.org/x/sys/windows"
)

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
	wantGone(t, pids)
	if p.sys.job != 0 {
		t.Error("the job is still open after Wait")
	}
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
