package service

import (
	"context"
	"testing"

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
