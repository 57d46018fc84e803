package service

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/loopforge/loopforge/backend/access"
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
	// class is the open class when the run started (its executions queue);
	// student the student whose run it is ("" = the instructor's).
	class   *classroom
	student string
	// iteration is the one under way (for the queued events).
	iteration atomic.Int64

	// flushMu serialises the writes of this run's events, so the store
	// always holds a prefix of the run's stream (no gap: a crash loses a
	// tail, never a middle). It also guards iters. Lock order: flushMu,
	// then mu.
	flushMu sync.Mutex
	iters   map[int]*store.Iteration // the iterations' rows as the events so far make them

	mu     sync.Mutex
	seq    int64 // the last seq given
	pub    int64 // the last seq published: subscribers have seen a prefix of the stream
	subs   map[*subscriber]struct{}
	closed bool
	run    *store.Run
	err    error
	// unsaved holds the events given a seq but not yet committed, in seq
	// order: always the tail of the stream, ending at seq. Those up to pub
	// are published already (tokens); the rest wait for the store. A flush
	// takes a prefix and removes it only once it is committed, so
	// Subscribe can replay the store up to unsaved[0] and the published
	// rest from here.
	unsaved []event.Event
	timer   *time.Timer // flushes unsaved one window after the first token
	armed   bool        // timer is set and has not taken its batch yet
	urgent  bool        // a flush is on its way at once and has not taken its batch yet
	// flushErr is why a background flush failed; the next emit returns it
	// (the events stay in unsaved and are written with the next batch).
	flushErr error
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

// closeRun writes what is left, publishes it and ends every live
// subscription after the last event (run_finished, emitted just before).
// If that write fails (a full disk), what could not be saved is logged and
// published all the same: this is the run's end, and a face that never saw
// run_finished could not tell its user why the run stopped (a --json
// stream would just stop). It is the one exception to "a subscriber sees
// only what the store holds"; the next start stores the run's end under a
// seq after these (see ends.go), so a client that saw them never sees
// their seqs reused.
func (s *Service) closeRun(a *activeRun) {
	a.flushMu.Lock()
	a.mu.Lock()
	a.closed = true
	if a.timer != nil {
		a.timer.Stop()
		a.armed = false
	}
	if n := len(a.unsaved); n > 0 {
		if err := s.writeEvents(a.unsaved, a.track(a.unsaved)); err != nil {
			s.log.Error("events of a run could not be saved", "run", a.id, "events", n, "err", err)
		}
		s.committed(a, n)
		a.unsaved = nil
	}
	for sub := range a.subs {
		close(sub.live)
		delete(a.subs, sub)
	}
	a.mu.Unlock()
	a.flushMu.Unlock()
	close(a.done)
}

type subscriber struct {
	live    chan event.Event
	dropped bool
}

// DefaultTokenWindow is how long token events wait to be written together
// (Options.TokenWindow).
const DefaultTokenWindow = 30 * time.Millisecond

// maxUnsaved bounds the events given a seq but not yet written: past it, the
// producer writes them itself (and so waits for the store) instead of
// letting memory, and what a crash would lose, grow.
const maxUnsaved = 1024

// emit stamps one event with the run's next seq and hands it to the store
// and the subscribers, always in seq order. It never waits for the store
// (unless maxUnsaved events are pending): the loop goes on generating and
// executing while its events are written, so a run's pace does not depend
// on the disk, nor on the other runs sharing the history.
//
// Token events (the model's text deltas, by far the most numerous) and
// exec_output events (the running code's output, already gathered per window
// by the loop) are published at once (unless an earlier event still waits
// for the store) and written later, in one transaction per window of
// s.tokenWindow. Every other event is written at once, in the background,
// with the tokens before it and the iteration row it changes, and is
// published only once committed, so a subscriber that sees run_finished (or
// a generated, an exec_finished…) can count on the store holding everything
// up to it. What a crash can lose is therefore the tail of the stream: the
// tokens of about one window, and the other events not yet committed, which
// nobody has seen. The store never has a gap (see flushMu). With a window of
// zero or less every event is written by the producer before it is
// published, one transaction each.
func (s *Service) emit(a *activeRun, e event.Event) error {
	a.mu.Lock()
	err := a.flushErr
	a.flushErr = nil
	a.seq++
	e.RunID, e.Seq, e.TS = a.id, a.seq, time.Now().UTC()
	a.unsaved = append(a.unsaved, e)
	first := s.publishedFirst(e)
	if first && a.pub == e.Seq-1 {
		a.publish(e)
	}
	inline := s.tokenWindow <= 0 || len(a.unsaved) >= s.maxUnsaved
	if !inline {
		s.schedule(a, !first)
	}
	a.mu.Unlock()
	if inline {
		err = errors.Join(err, s.flush(a))
	}
	return err
}

// emitNow is emit waiting for the write: for a run's first event, so that
// a history that cannot be written fails the launch, where the caller sees
// it, rather than the run's first step.
func (s *Service) emitNow(a *activeRun, e event.Event) error {
	return errors.Join(s.emit(a, e), s.flush(a))
}

// publishedFirst says whether e is published before it is written.
func (s *Service) publishedFirst(e event.Event) bool {
	return s.tokenWindow > 0 && (e.Type == event.Token || e.Type == event.ExecOutput)
}

// schedule arranges for unsaved to be written: at once in the background
// (now), or one token window after the first token. a.mu is held.
func (s *Service) schedule(a *activeRun, now bool) {
	switch {
	case now && !a.urgent:
		a.urgent = true
		s.flushes.Add(1)
		go func() {
			defer s.flushes.Done()
			s.flushInBackground(a)
		}()
	case !now && !a.armed && !a.urgent:
		a.armed = true
		if a.timer == nil {
			a.timer = time.AfterFunc(s.tokenWindow, func() { s.flushInBackground(a) })
		} else {
			a.timer.Reset(s.tokenWindow)
		}
	}
}

func (s *Service) flushInBackground(a *activeRun) {
	if err := s.flush(a); err != nil {
		a.mu.Lock()
		a.flushErr = err
		a.mu.Unlock()
	}
}

// flush writes the events given a seq so far and not yet written, in one
// transaction with the iteration rows they change, without holding the
// run's lock during the write (tokens keep flowing to subscribers
// meanwhile), then publishes those that waited for it.
func (s *Service) flush(a *activeRun) error {
	a.flushMu.Lock()
	defer a.flushMu.Unlock()
	a.mu.Lock()
	a.armed, a.urgent = false, false
	n := len(a.unsaved)
	batch := a.unsaved[:n:n] // emit only appends past n meanwhile
	closed := a.closed
	a.mu.Unlock()
	if n == 0 || closed {
		return nil
	}
	if err := s.writeEvents(batch, a.track(batch)); err != nil {
		return err
	}
	a.mu.Lock()
	s.committed(a, n)
	a.mu.Unlock()
	return nil
}

// committed takes the first n unsaved events, now in the store, out of
// unsaved and publishes, in order, those that waited for the store, with
// the tokens that came after them up to the next event that waits. a.mu is
// held.
func (s *Service) committed(a *activeRun, n int) {
	last := a.unsaved[n-1].Seq
	for _, e := range a.unsaved {
		if e.Seq <= a.pub {
			continue
		}
		if e.Seq > last && !s.publishedFirst(e) {
			break
		}
		a.publish(e)
	}
	a.unsaved = append(a.unsaved[:0], a.unsaved[n:]...)
}

// writeEvents commits events (of one run, in seq order) and the iteration
// rows they change in one transaction.
func (s *Service) writeEvents(evs []event.Event, its []store.Iteration) error {
	// A cancelled run still records its last events: use a context of our own.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return s.store.AppendEvents(ctx, evs, its...)
}

// publish hands e to every subscriber; one that is too far behind is
// dropped (it catches up from the store). Called with a.mu held, in seq
// order.
func (a *activeRun) publish(e event.Event) {
	a.pub = e.Seq
	for sub := range a.subs {
		select {
		case sub.live <- e:
		default:
			sub.dropped = true
			close(sub.live)
			delete(a.subs, sub)
		}
	}
}

// track applies evs to the run's iteration rows and returns the rows they
// changed, in the order first changed, so that history views need not
// replay the event stream. Applying the same events again (a batch whose
// write failed, retried) gives the same rows. a.flushMu is held.
func (a *activeRun) track(evs []event.Event) []store.Iteration {
	var changed []*store.Iteration
	for _, e := range evs {
		it := a.trackOne(e)
		if it != nil && !slices.Contains(changed, it) {
			changed = append(changed, it)
		}
	}
	rows := make([]store.Iteration, len(changed))
	for i, it := range changed {
		rows[i] = *it
	}
	return rows
}

// trackOne applies e to its iteration's row, nil when e changes none.
func (a *activeRun) trackOne(e event.Event) *store.Iteration {
	var n struct {
		Iteration int `json:"iteration"`
	}
	switch e.Type {
	case event.IterationStarted, event.Generated, event.ExecFinished, event.Reflection, event.IterationDone:
	default:
		return nil
	}
	// The service made these payloads: one that does not decode would be a
	// bug, and the event itself is still stored.
	if e.Decode(&n) != nil {
		return nil
	}
	it := a.iters[n.Iteration]
	if it == nil {
		it = &store.Iteration{RunID: a.id, N: n.Iteration, Status: "running"}
		a.iters[n.Iteration] = it
	}
	switch e.Type {
	case event.Generated:
		var p event.GeneratedPayload
		if e.Decode(&p) == nil {
			it.Code, it.Content = p.Code, p.Content
			if p.FormatError != "" {
				it.Summary = p.FormatError
			}
		}
	case event.ExecFinished:
		var p event.ExecPayload
		if e.Decode(&p) == nil {
			it.ExecStatus, it.ExitCode, it.Stdout, it.Stderr = string(p.Status), p.ExitCode, p.Stdout, p.Stderr
			it.Truncated, it.ExecMS, it.Isolation = p.Truncated, p.DurationMS, p.Isolation
		}
	case event.Reflection:
		var p event.ReflectionPayload
		if e.Decode(&p) == nil {
			it.Reflection = p.Text
		}
	case event.IterationDone:
		var p event.IterationDonePayload
		if e.Decode(&p) == nil {
			it.Status, it.Summary = p.Status, p.Summary
		}
	}
	return it
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
// ones, then those published but not yet written (tokens of the current
// window), then live ones, with no gap and no duplicate.
func (s *Service) Subscribe(ctx context.Context, runID string, after int64) (*Subscription, error) {
	if err := s.checkRun(ctx, runID); err != nil {
		return nil, err
	}
	s.mu.Lock()
	a := s.runs[runID]
	s.mu.Unlock()

	var (
		sub     *subscriber
		unsaved []event.Event // published before sub joined, not yet in the store
	)
	// What to replay from the store: everything when the run is finished.
	storedUpTo := int64(-1)
	if a != nil {
		a.mu.Lock()
		if !a.closed {
			sub = &subscriber{live: make(chan event.Event, subBuffer)}
			a.subs[sub] = struct{}{}
			// The store holds every event before the first unsaved one,
			// all of them published; the published unsaved ones (tokens)
			// come from here, and what is not published yet comes live.
			storedUpTo = a.seq
			if len(a.unsaved) > 0 {
				storedUpTo = a.unsaved[0].Seq - 1
			}
			storedUpTo = min(storedUpTo, a.pub)
			for _, e := range a.unsaved {
				if e.Seq <= a.pub {
					unsaved = append(unsaved, e)
				}
			}
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
	// A student reads hidden tests' verdicts, never their evidence.
	student := access.From(ctx).IsStudent()
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer close(out)
		last := after
		send := func(e event.Event) bool {
			if e.Seq <= last {
				return true
			}
			if student {
				e = event.ForStudent(e)
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
		// Replay from the store in pages, then what it does not hold yet.
		for storedUpTo < 0 || last < storedUpTo {
			page, err := s.store.EventsAfter(ctx, runID, last, 500)
			if err != nil {
				subn.setErr(err)
				s.unsubscribe(a, sub)
				return
			}
			from := last
			for _, e := range page {
				if storedUpTo >= 0 && e.Seq > storedUpTo {
					break
				}
				if !send(e) {
					s.unsubscribe(a, sub)
					return
				}
			}
			if last == from { // the end of what is stored
				break
			}
		}
		for _, e := range unsaved {
			if !send(e) {
				s.unsubscribe(a, sub)
				return
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
