package journal

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/loopforge/loopforge/backend/event"
	"github.com/loopforge/loopforge/backend/store"
)

// heldStore is the real store whose first write waits for release, as
// behind a slow disk, and which records the runs of each write.
type heldStore struct {
	*store.Store
	release chan struct{}
	once    sync.Once
	mu      sync.Mutex
	writes  [][]string // the run of each event, per AppendEvents call
}

func (h *heldStore) AppendEvents(ctx context.Context, evs []event.Event, its ...store.Iteration) error {
	h.once.Do(func() { <-h.release })
	runs := make([]string, len(evs))
	for i, e := range evs {
		runs[i] = e.RunID
	}
	h.mu.Lock()
	h.writes = append(h.writes, runs)
	h.mu.Unlock()
	return h.Store.AppendEvents(ctx, evs, its...)
}

// Batches that become ready while a commit is under way go in the next one
// together; one that the store refuses fails its own run only.
func TestGroupCommitSharesATransactionAndIsolatesAFailure(t *testing.T) {
	f := newFixture(t, Options{Window: time.Hour})
	held := &heldStore{Store: f.st, release: make(chan struct{})}
	j := New(held, Options{Window: time.Hour})
	t.Cleanup(j.Close)
	ctx := context.Background()
	first, good, bad := j.Open(createRun(t, f.st, "")), j.Open(createRun(t, f.st, "")), j.Open(createRun(t, f.st, ""))
	// Occupy bad's seq 1 behind the journal's back: its write will fail.
	if err := f.st.AppendEvent(ctx, event.Event{RunID: bad.ID(), Seq: 1, Type: event.Log, TS: time.Now()}); err != nil {
		t.Fatal(err)
	}
	logEvent := event.New(event.Log, event.LogPayload{Message: "m"})
	errs := make(chan error, 3)
	go func() { errs <- first.EmitNow(logEvent) }()
	waitFor(t, "the first write to lead", func() bool {
		j.commits.mu.Lock()
		defer j.commits.mu.Unlock()
		return j.commits.leading
	})
	goodErr, badErr := make(chan error, 1), make(chan error, 1)
	go func() { goodErr <- good.EmitNow(logEvent) }()
	go func() { badErr <- bad.EmitNow(logEvent) }()
	waitFor(t, "two batches to wait for the next commit", func() bool {
		j.commits.mu.Lock()
		defer j.commits.mu.Unlock()
		return len(j.commits.waiting) == 2
	})
	close(held.release)
	if err := <-errs; err != nil {
		t.Fatalf("the first run: %v", err)
	}
	if err := <-goodErr; err != nil {
		t.Fatalf("the run beside a refused batch: %v", err)
	}
	if err := <-badErr; !errors.Is(err, store.ErrDuplicate) {
		t.Fatalf("the refused batch: %v; want ErrDuplicate", err)
	}
	if n := f.lastSeq(t, good.ID()); n != 1 {
		t.Fatalf("the run beside a refused batch: stored up to #%d; want #1", n)
	}
	held.mu.Lock()
	writes := held.writes
	held.mu.Unlock()
	// first alone; good and bad together; then, the group refused, each alone.
	if len(writes) != 4 || len(writes[0]) != 1 || len(writes[1]) != 2 || len(writes[2]) != 1 || len(writes[3]) != 1 {
		t.Fatalf("writes by run: %v; want [first] [good bad] [good] [bad] (in either order)", writes)
	}
	for _, r := range []*Run{first, good} {
		endRun(t, r)
	}
	_ = bad.Close() // its batch is still refused
}

// The window writes the tokens of every run in it in one transaction; a
// run whose part the store refuses fails alone, and keeps its events.
func TestWindowWritesEveryRunInOneTransaction(t *testing.T) {
	f := newFixture(t, Options{Window: time.Hour}) // the window ends when the test says
	held := &heldStore{Store: f.st, release: make(chan struct{})}
	close(held.release)
	j := New(held, Options{Window: time.Hour})
	t.Cleanup(j.Close)
	ctx := context.Background()
	a, b, bad := j.Open(createRun(t, f.st, "")), j.Open(createRun(t, f.st, "")), j.Open(createRun(t, f.st, ""))
	for _, r := range []*Run{a, b} {
		for range 3 {
			if err := r.Emit(token(1, event.PhaseGenerate, "x")); err != nil {
				t.Fatal(err)
			}
		}
	}
	j.endWindow()
	held.mu.Lock()
	writes := held.writes
	held.writes = nil
	held.mu.Unlock()
	if len(writes) != 1 || len(writes[0]) != 6 {
		t.Fatalf("writes by run: %v; want one of 6 events", writes)
	}
	for _, r := range []*Run{a, b} {
		if n := f.lastSeq(t, r.ID()); n != 3 {
			t.Fatalf("run stored up to #%d; want #3", n)
		}
	}

	// Occupy bad's seq 1 behind the journal's back.
	if err := f.st.AppendEvent(ctx, event.Event{RunID: bad.ID(), Seq: 1, Type: event.Log, TS: time.Now()}); err != nil {
		t.Fatal(err)
	}
	for _, r := range []*Run{a, bad} {
		if err := r.Emit(token(1, event.PhaseGenerate, "y")); err != nil {
			t.Fatal(err)
		}
	}
	j.endWindow()
	if n := f.lastSeq(t, a.ID()); n != 4 {
		t.Fatalf("the run beside a refused part: stored up to #%d; want #4", n)
	}
	bad.mu.Lock()
	err, pending := bad.flushErr, len(bad.unsaved)
	bad.mu.Unlock()
	if !errors.Is(err, store.ErrDuplicate) || pending != 1 {
		t.Fatalf("the refused part: error %v, %d events kept; want ErrDuplicate, 1", err, pending)
	}
	for _, r := range []*Run{a, b} {
		endRun(t, r)
	}
	_ = bad.Close() // its batch is still refused
}

// failingStore fails every write with err, counting them.
type failingStore struct {
	Store
	err    error
	writes atomic.Int64
}

func (f *failingStore) AppendEvents(context.Context, []event.Event, ...store.Iteration) error {
	f.writes.Add(1)
	return f.err
}

// A write that fails for a reason no batch of it is to blame for (a busy
// or full disk) is not tried again run by run: each run keeps its events
// and hears the error.
func TestWindowFailingForAllIsNotRetriedPerRun(t *testing.T) {
	f := newFixture(t, Options{Window: time.Hour})
	failing := &failingStore{Store: f.st, err: errors.New("the disk is busy")}
	j := New(failing, Options{Window: time.Hour})
	t.Cleanup(j.Close)
	runs := []*Run{j.Open(createRun(t, f.st, "")), j.Open(createRun(t, f.st, "")), j.Open(createRun(t, f.st, ""))}
	for _, r := range runs {
		if err := r.Emit(token(1, event.PhaseGenerate, "x")); err != nil {
			t.Fatal(err)
		}
	}
	j.endWindow()
	if n := failing.writes.Load(); n != 1 {
		t.Fatalf("%d writes; want the window's one", n)
	}
	for _, r := range runs {
		if err := r.Emit(token(1, event.PhaseGenerate, "y")); !errors.Is(err, failing.err) {
			t.Fatalf("next emit: %v; want the window's error", err)
		}
		if err := r.Close(); !errors.Is(err, failing.err) {
			t.Fatalf("Close: %v; want the store's error", err)
		}
	}
}
