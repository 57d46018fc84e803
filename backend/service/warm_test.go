package service

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/loopforge/loopforge/backend/event"
	"github.com/loopforge/loopforge/backend/sandbox"
)

// gatePrepExec is a gateExec that prepares: its prepared sandboxes run
// through the same gate. Cold runs and closed sandboxes are counted.
type gatePrepExec struct {
	*gateExec
	prepared, cold, closed atomic.Int32
}

func (g *gatePrepExec) Run(ctx context.Context, req sandbox.Request) (sandbox.Result, error) {
	g.cold.Add(1)
	return g.gateExec.Run(ctx, req)
}

func (g *gatePrepExec) Prepare(context.Context, sandbox.Request) (sandbox.Prepared, error) {
	g.prepared.Add(1)
	return gatePrepared{g}, nil
}

type gatePrepared struct{ g *gatePrepExec }

func (p gatePrepared) Run(ctx context.Context, req sandbox.Request) (sandbox.Result, error) {
	return p.g.gateExec.Run(ctx, req)
}

func (p gatePrepared) Close() { p.g.closed.Add(1) }

// boQueuedBehindAna opens a class with one execution slot: Ana's run holds
// it (its execution waits for g.release), Bo's waits in the queue.
func boQueuedBehindAna(t *testing.T) (*gatePrepExec, *Service, RunInfo, RunInfo) {
	t.Helper()
	g := &gatePrepExec{gateExec: newGateExec()}
	svc := classService(t, &echoModel{answers: []string{"print(1)"}}, g)
	v := openClass(t, svc, ClassLimits{ConcurrentExecutions: 1})
	ana, _ := joinAs(t, svc, v.JoinCode, "Ana")
	bo, _ := joinAs(t, svc, v.JoinCode, "Bo")
	first := mustRun(t, svc, ana)
	<-g.started // Ana holds the only slot
	second := mustRun(t, svc, bo)
	waitUntil(t, "Bo's run to queue", func() bool { _, w := svc.classOf().queue.stats(); return w == 1 })
	return g, svc, first, second
}

// TestQueuedRunsPrepareBeforeTheirSlot: in class mode a run prepares its
// sandbox while it is still in the execution queue (preparing takes no
// slot) and hands its code over only once it has the slot; the queue
// tells its places as for a cold run.
func TestQueuedRunsPrepareBeforeTheirSlot(t *testing.T) {
	g, svc, first, second := boQueuedBehindAna(t)
	if n := g.prepared.Load(); n != 2 {
		t.Fatalf("%d sandboxes prepared while Bo waits in line, want 2", n)
	}
	g.release <- struct{}{}
	<-g.started // Bo's turn
	g.release <- struct{}{}
	for _, id := range []string{first.RunID, second.RunID} {
		if r, _ := svc.Wait(context.Background(), id); r.Status != event.RunStatusSuccess {
			t.Errorf("run %s: %s", id, r.Status)
		}
	}
	if g.cold.Load() != 0 || g.closed.Load() != 0 {
		t.Errorf("%d cold runs, %d prepared sandboxes closed unused; want none", g.cold.Load(), g.closed.Load())
	}
	var places []int
	for _, e := range collect(t, svc, second.RunID, 0) {
		if e.Type == event.Queued {
			var p event.QueuedPayload
			_ = e.Decode(&p)
			places = append(places, p.Ahead)
		}
	}
	if len(places) != 2 || places[0] != 1 || places[1] != 0 {
		t.Errorf("Bo's queued events: %v, want [1 0]", places)
	}
	if busy, waiting := svc.classOf().queue.stats(); busy != 0 || waiting != 0 {
		t.Errorf("queue at the end: %d busy, %d waiting", busy, waiting)
	}
}

// TestQueuedPreparedClosedWhenCancelledInLine: a run cancelled while its
// prepared sandbox waits for a slot tears the sandbox down.
func TestQueuedPreparedClosedWhenCancelledInLine(t *testing.T) {
	g, svc, first, second := boQueuedBehindAna(t)
	svc.Cancel(second.RunID)
	if r, _ := svc.Wait(context.Background(), second.RunID); r.Status != event.RunStatusCancelled {
		t.Errorf("the run cancelled in the queue: %s", r.Status)
	}
	if g.closed.Load() != 1 {
		t.Errorf("%d prepared sandboxes closed, want Bo's", g.closed.Load())
	}
	g.release <- struct{}{}
	if r, _ := svc.Wait(context.Background(), first.RunID); r.Status != event.RunStatusSuccess {
		t.Errorf("Ana's run: %s", r.Status)
	}
}
