package service

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/loopforge/loopforge/backend/access"
	"github.com/loopforge/loopforge/backend/event"
	"github.com/loopforge/loopforge/backend/journal"
	"github.com/loopforge/loopforge/backend/store"
)

// A run's events go through its log in backend/journal (numbering, the
// token window, stored before shown, replay); the service adds who may read
// them, and ties a log's end to the run's.

// ErrDropped ends a subscription whose reader fell too far behind
// (journal.ErrDropped; resubscribe from the last seq seen).
var ErrDropped = journal.ErrDropped

// Subscription delivers a run's events in seq order (journal.Subscription).
type Subscription = journal.Subscription

// activeRun is a run this process executes: its control (cancel, done, its
// result, its class) and its event log.
type activeRun struct {
	id     string
	cancel context.CancelCauseFunc
	done   chan struct{}
	events *journal.Run
	// class is the open class when the run started (its executions queue);
	// student the student whose run it is ("" = the instructor's).
	class   *classroom
	student string
	// iteration is the one under way (for the queued events).
	iteration atomic.Int64

	mu  sync.Mutex
	run *store.Run
	err error
}

func (s *Service) newActiveRun(id string, cancel context.CancelCauseFunc) *activeRun {
	return &activeRun{id: id, cancel: cancel, done: make(chan struct{}), events: s.journal.Open(id)}
}

func (a *activeRun) setResult(r *store.Run, err error) {
	a.mu.Lock()
	a.run, a.err = r, err
	a.mu.Unlock()
}

func (a *activeRun) result() (*store.Run, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.run, a.err
}

// emit adds e to the run's log (journal.Run.Emit).
func (s *Service) emit(a *activeRun, e event.Event) error { return a.events.Emit(e) }

// emitNow is emit waiting for the write: for a run's first event, so that
// a history that cannot be written fails the launch, where the caller sees
// it, rather than the run's first step.
func (s *Service) emitNow(a *activeRun, e event.Event) error { return a.events.EmitNow(e) }

// closeRun writes what is left of the run's events, publishes it and ends
// every live subscription after the last event (run_finished, emitted just
// before). When that write fails (a full disk) the events are published all
// the same (see journal.Run.Close); the next start stores the run's end
// under a seq after these (see ends.go).
func (s *Service) closeRun(a *activeRun) {
	if err := a.events.Close(); err != nil {
		s.log.Error("events of a run could not be saved", "run", a.id, "err", err)
	}
	close(a.done)
}

// Subscribe streams the events of runID with seq > after: first the stored
// ones, then those published but not yet written (tokens of the current
// window), then live ones, with no gap and no duplicate.
func (s *Service) Subscribe(ctx context.Context, runID string, after int64) (*Subscription, error) {
	if err := s.checkFollow(ctx, runID); err != nil {
		return nil, err
	}
	return s.journal.SubscribeView(ctx, runID, after, viewFor(ctx)), nil
}

// viewFor is what the caller may see of a run's events: a student reads
// hidden tests' verdicts, never their evidence.
func viewFor(ctx context.Context) func(event.Event) event.Event {
	if access.From(ctx).IsStudent() {
		return event.ForStudent
	}
	return nil
}

// Follow calls fn for every event of runID after seq `after`, in order,
// resubscribing transparently if it falls behind, until the run_finished
// event (or ctx ends, or fn fails).
func (s *Service) Follow(ctx context.Context, runID string, after int64, fn func(event.Event) error) error {
	if err := s.checkFollow(ctx, runID); err != nil {
		return err
	}
	if view := viewFor(ctx); view != nil {
		inner := fn
		fn = func(e event.Event) error { return inner(view(e)) }
	}
	return s.journal.Follow(ctx, runID, after, fn)
}

// checkFollow says whether the caller may read runID's events, and whether
// there is such a run.
func (s *Service) checkFollow(ctx context.Context, runID string) error {
	if err := s.checkRun(ctx, runID); err != nil {
		return err
	}
	s.mu.Lock()
	_, active := s.runs[runID]
	s.mu.Unlock()
	if active {
		return nil
	}
	if _, err := s.store.GetRun(ctx, runID); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return fmt.Errorf("%w: %s", ErrRunNotFound, runID)
		}
		return err
	}
	return nil
}
