package service

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/loopforge/loopforge/backend/event"
	"github.com/loopforge/loopforge/backend/store"
)

// subBuffer is how many live events a subscriber may fall behind before it is
// dropped. A dropped subscriber resubscribes from its last seq and catches up
// from the store, so nothing is lost; the run never waits for it.
const subBuffer = 4096

// ErrDropped ends a subscription whose reader fell too far behind.
var ErrDropped = errors.New("subscriber fell behind and was dropped")

type activeRun struct {
	id     string
	cancel context.CancelCauseFunc
	done   chan struct{}

	mu     sync.Mutex
	seq    int64
	subs   map[*subscriber]struct{}
	iters  map[int]*store.Iteration
	closed bool
	run    *store.Run
	err    error
}

func newActiveRun(id string, cancel context.CancelCauseFunc) *activeRun {
	return &activeRun{id: id, cancel: cancel, done: make(chan struct{}),
		subs: map[*subscriber]struct{}{}, iters: map[int]*store.Iteration{}}
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

// close ends every live subscription after the last event was delivered.
func (a *activeRun) close() {
	a.mu.Lock()
	a.closed = true
	for sub := range a.subs {
		close(sub.live)
		delete(a.subs, sub)
	}
	a.mu.Unlock()
	close(a.done)
}

type subscriber struct {
	live    chan event.Event
	dropped bool
}

// emit stamps, persists, and then publishes one event. Holding the run's lock
// across the write keeps seq order equal to store order equal to delivery
// order.
func (s *Service) emit(a *activeRun, e event.Event) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.seq++
	e.RunID, e.Seq, e.TS = a.id, a.seq, time.Now().UTC()
	// A cancelled run still records its last events: use a context of our own.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.store.AppendEvent(ctx, e); err != nil {
		a.seq--
		return err
	}
	if err := s.trackIteration(ctx, a, e); err != nil {
		return err
	}
	for sub := range a.subs {
		select {
		case sub.live <- e:
		default:
			sub.dropped = true
			close(sub.live)
			delete(a.subs, sub)
		}
	}
	return nil
}

// trackIteration keeps the iterations table in step with the events, so
// history views need not replay the event stream.
func (s *Service) trackIteration(ctx context.Context, a *activeRun, e event.Event) error {
	var n struct {
		Iteration int `json:"iteration"`
	}
	switch e.Type {
	case event.IterationStarted, event.Generated, event.ExecFinished, event.Reflection, event.IterationDone:
	default:
		return nil
	}
	if err := e.Decode(&n); err != nil {
		return err
	}
	it := a.iters[n.Iteration]
	if it == nil {
		it = &store.Iteration{RunID: a.id, N: n.Iteration, Status: "running"}
		a.iters[n.Iteration] = it
	}
	switch e.Type {
	case event.Generated:
		var p event.GeneratedPayload
		if err := e.Decode(&p); err != nil {
			return err
		}
		it.Code, it.Content = p.Code, p.Content
		if p.FormatError != "" {
			it.Summary = p.FormatError
		}
	case event.ExecFinished:
		var p event.ExecPayload
		if err := e.Decode(&p); err != nil {
			return err
		}
		it.ExecStatus, it.ExitCode, it.Stdout, it.Stderr = p.Status, p.ExitCode, p.Stdout, p.Stderr
		it.Truncated, it.ExecMS, it.Isolation = p.Truncated, p.DurationMS, p.Isolation
	case event.Reflection:
		var p event.ReflectionPayload
		if err := e.Decode(&p); err != nil {
			return err
		}
		it.Reflection = p.Text
	case event.IterationDone:
		var p event.IterationDonePayload
		if err := e.Decode(&p); err != nil {
			return err
		}
		it.Status, it.Summary = p.Status, p.Summary
	}
	return s.store.PutIteration(ctx, *it)
}

// Subscription delivers a run's events in seq order. C is closed after the
// run_finished event, when ctx ends, or when the reader fell behind (Err then
// returns ErrDropped; resubscribe from the last seq seen).
type Subscription struct {
	C   <-chan event.Event
	err error
	mu  sync.Mutex
}

// Err reports why C was closed early, or nil.
func (s *Subscription) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

func (s *Subscription) setErr(err error) {
	s.mu.Lock()
	s.err = err
	s.mu.Unlock()
}

// Subscribe streams the events of runID with seq > after: first the stored
// ones, then live ones, with no gap and no duplicate.
func (s *Service) Subscribe(ctx context.Context, runID string, after int64) (*Subscription, error) {
	s.mu.Lock()
	a := s.runs[runID]
	s.mu.Unlock()

	var sub *subscriber
	upTo := int64(-1) // replay everything stored when the run is finished
	if a != nil {
		a.mu.Lock()
		if !a.closed {
			sub = &subscriber{live: make(chan event.Event, subBuffer)}
			a.subs[sub] = struct{}{}
			upTo = a.seq
		}
		a.mu.Unlock()
	}
	if a == nil {
		if _, err := s.store.GetRun(ctx, runID); err != nil {
			if errors.Is(err, store.ErrNotFound) {
				return nil, fmt.Errorf("%w: %s", ErrRunNotFound, runID)
			}
			return nil, err
		}
	}

	out := make(chan event.Event, 64)
	subn := &Subscription{C: out}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer close(out)
		last := after
		send := func(e event.Event) bool {
			if e.Seq <= last {
				return true
			}
			select {
			case out <- e:
				last = e.Seq
				return true
			case <-ctx.Done():
				return false
			case <-s.closing:
				return false
			}
		}
		// Replay from the store in pages.
		for upTo < 0 || last < upTo {
			page, err := s.store.EventsAfter(ctx, runID, last, 500)
			if err != nil {
				subn.setErr(err)
				s.unsubscribe(a, sub)
				return
			}
			if len(page) == 0 {
				break
			}
			for _, e := range page {
				if upTo >= 0 && e.Seq > upTo {
					break
				}
				if !send(e) {
					s.unsubscribe(a, sub)
					return
				}
			}
		}
		if sub == nil {
			return
		}
		for {
			select {
			case e, ok := <-sub.live:
				if !ok {
					a.mu.Lock()
					dropped := sub.dropped
					a.mu.Unlock()
					if dropped {
						subn.setErr(ErrDropped)
					}
					return
				}
				if !send(e) {
					s.unsubscribe(a, sub)
					return
				}
			case <-ctx.Done():
				s.unsubscribe(a, sub)
				return
			case <-s.closing:
				s.unsubscribe(a, sub)
				return
			}
		}
	}()
	return subn, nil
}

func (s *Service) unsubscribe(a *activeRun, sub *subscriber) {
	if a == nil || sub == nil {
		return
	}
	a.mu.Lock()
	if _, ok := a.subs[sub]; ok {
		delete(a.subs, sub)
		close(sub.live)
	}
	a.mu.Unlock()
}

// Follow calls fn for every event of runID after seq `after`, in order,
// resubscribing transparently if it falls behind, until the run_finished
// event (or ctx ends, or fn fails).
func (s *Service) Follow(ctx context.Context, runID string, after int64, fn func(event.Event) error) error {
	last := after
	for {
		sub, err := s.Subscribe(ctx, runID, last)
		if err != nil {
			return err
		}
		progressed := false
		for e := range sub.C {
			progressed, last = true, e.Seq
			if err := fn(e); err != nil {
				return err
			}
			if e.Terminal() {
				return nil
			}
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		switch err := sub.Err(); {
		case errors.Is(err, ErrDropped):
			continue // catch up from the store
		case err != nil:
			return err
		case !progressed:
			return nil // a stored run whose end was never recorded (interrupted)
		}
	}
}
