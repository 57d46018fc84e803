package service

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/loopforge/loopforge/backend/testwait"

	"github.com/loopforge/loopforge/backend/sandbox"
)

// recordingExec keeps the requests it is asked to run or prepare.
type recordingExec struct{ reqs []sandbox.Request }

func (r *recordingExec) Run(_ context.Context, req sandbox.Request) (sandbox.Result, error) {
	r.reqs = append(r.reqs, req)
	return sandbox.Result{Status: sandbox.StatusOK}, nil
}

func (r *recordingExec) Prepare(_ context.Context, req sandbox.Request) (sandbox.Prepared, error) {
	r.reqs = append(r.reqs, req)
	return nil, context.Canceled // the caller runs cold
}

// TestClassExecutionsAskToBeForked: a class's executions, cold or
// prepared, go to the sandbox with Forked set, so its zygote takes them;
// outside a class nothing sets it (the loop never does).
func TestClassExecutionsAskToBeForked(t *testing.T) {
	rec := &recordingExec{}
	q := &queuedExec{inner: rec, q: newExecQueue(1), wait: func(int) {}}
	if _, err := q.Run(context.Background(), sandbox.Request{Code: "print(1)"}); err != nil {
		t.Fatal(err)
	}
	p := &queuedPreparer{queuedExec: *q, prep: rec}
	if _, err := p.Prepare(context.Background(), sandbox.Request{Code: ""}); err == nil {
		t.Fatal("the recording preparer's refusal was lost")
	}
	if len(rec.reqs) != 2 || !rec.reqs[0].Forked || !rec.reqs[1].Forked {
		t.Fatalf("requests %+v: want both Forked", rec.reqs)
	}
}

func TestZygoteUseFromTheEnvironment(t *testing.T) {
	for env, want := range map[string]sandbox.ZygoteUse{"": sandbox.ZygoteAsked, "0": sandbox.ZygoteOff, "1": sandbox.ZygoteAll, "yes": sandbox.ZygoteAsked} {
		if got := zygoteUse(env); got != want {
			t.Errorf("LOOPFORGE_ZYGOTE=%q: %v, want %v", env, got, want)
		}
	}
}

// zygotesOf lists the PIDs of running sandbox zygotes whose command line
// names tag (the service's owner tag is in the zygote's directory name).
func zygotesOf(tag string) []int {
	var pids []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmd, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && bytes.Contains(cmd, []byte("_loopforge_zygote")) && bytes.Contains(cmd, []byte(tag)) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// hostForks says whether this host runs the sandbox's zygote: a run that
// asks for it comes back forked.
func hostForks(t *testing.T) bool {
	r, err := sandbox.NewRunner(sandbox.Options{Zygote: sandbox.ZygoteAll, TempRoot: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { r.Close(); r.Wait() }()
	res, err := r.Run(context.Background(), sandbox.Request{Code: "print(1)"})
	return err == nil && slices.Contains(res.Layers, "zygote")
}

// TestAClassRunForksAndCloseStopsTheZygote: a student's run is forked
// from the sandbox's zygote (on a host that has one), and closing the
// service stops it rather than leaving it to the process's end.
func TestAClassRunForksAndCloseStopsTheZygote(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the zygote is Linux's")
	}
	if !hostForks(t) {
		t.Skip("no zygote on this host (it needs bubblewrap, seccomp and Landlock ABI 6)")
	}
	svc := unclosedService(t, &echoModel{answers: []string{"print('olá')"}}, nil)
	closed := false
	t.Cleanup(func() {
		if !closed {
			svc.Close()
		}
	})
	v := openClass(t, svc, ClassLimits{})
	ana, _ := joinAs(t, svc, v.JoinCode, "Ana")
	info, err := svc.StartRun(ana, RunRequest{Prompt: "Imprima olá", Provider: "fake", MaxIterations: 1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Wait(context.Background(), info.RunID); err != nil {
		t.Fatal(err)
	}
	tag := svc.owner.Tag()
	if len(zygotesOf(tag)) == 0 {
		t.Fatal("the class's run did not start the sandbox's zygote (it starts for the first forked run)")
	}
	closed = true
	if err := svc.Close(); err != nil {
		t.Fatal(err)
	}
	testwait.Until(t, "the zygote to end with the service", 10*time.Second, func() bool { return len(zygotesOf(tag)) == 0 })
}
