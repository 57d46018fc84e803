package journal

import (
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/loopforge/loopforge/backend/event"
	"github.com/loopforge/loopforge/backend/store"
)

// Run is the log of one run (Journal.Open). Emit may be called from several
// goroutines; the seqs follow the order of the calls.
type Run struct {
	j  *Journal
	id string

	// flushMu serialises the writes of this run's events (the store holds a
	// prefix of the stream) and guards rows. Lock order: flushMu, then mu.
	flushMu sync.Mutex
	rows    iterRows

	mu     sync.Mutex
	seq    int64 // the last seq given
	stored int64 // the last seq the store holds
	pub    int64 // the last seq published; stored <= pub <= seq
	subs   map[*subscriber]struct{}
	closed bool
	// unsaved holds the events given a seq but not yet committed, in seq
	// order: stored+1 … seq. Those up to pub are published already; the
	// rest wait for the store (or for the gap, see mayPublish). A flush
	// takes a prefix and removes it only once it is committed.
	unsaved []event.Event
	armed   bool // the run is in the journal's window, which has not taken its batch yet
	urgent  bool // a flush is on its way at once and has not taken its batch yet
	// flushErr is why a background flush failed; the next Emit returns it
	// (the events stay in unsaved and are written with the next batch).
	flushErr error
}

// ID is the run's ID.
func (r *Run) ID() string { return r.id }

// Seq is the last seq given.
func (r *Run) Seq() int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.seq
}

// Emit stamps e with the run's ID, next seq and the time, and hands it to
// the store and the subscribers (see the package doc for when each). It
// returns the error of an earlier background write that failed (its events
// are kept and written with the next batch), or of the write it did itself.
func (r *Run) Emit(e event.Event) error { return r.emit(e, false) }

// EmitNow is Emit waiting for the write: for a run's first event, so that a
// history that cannot be written fails the launch, where the caller sees it.
func (r *Run) EmitNow(e event.Event) error { return r.emit(e, true) }

// emit is Emit, writing at once (now) or as the contract says.
func (r *Run) emit(e event.Event, now bool) error {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return fmt.Errorf("journal: event %s of run %s: %w", e.Type, r.id, ErrClosed)
	}
	err := r.flushErr
	r.flushErr = nil
	r.seq++
	e.RunID, e.Seq, e.TS = r.id, r.seq, time.Now().UTC()
	r.unsaved = append(r.unsaved, e)
	r.advance()
	inline := now || r.j.window <= 0 || len(r.unsaved) >= r.j.maxUnsaved
	if !inline {
		r.schedule(!r.j.publishedFirst(e))
	}
	r.mu.Unlock()
	if inline {
		err = errors.Join(err, r.flush())
	}
	return err
}

// schedule arranges for unsaved to be written: at once in the background
// (now), or when the journal's window ends (window.go). r.mu is held.
func (r *Run) schedule(now bool) {
	switch {
	case now && !r.urgent:
		r.urgent = true
		r.j.wg.Go(r.flushInBackground)
	case !now && !r.armed && !r.urgent:
		r.armed = true
		r.j.inWindow(r)
	}
}

func (r *Run) flushInBackground() {
	if err := r.flush(); err != nil {
		r.failed(err)
	}
}

// failed keeps err for the next Emit to return (its events stay unsaved).
func (r *Run) failed(err error) {
	r.mu.Lock()
	r.flushErr = err
	r.mu.Unlock()
}

// flush writes the events given a seq so far and not yet written, in one
// transaction with the iteration rows they change, without holding r.mu
// during the write (tokens keep flowing to subscribers meanwhile), then
// publishes those that waited for it.
func (r *Run) flush() error {
	r.flushMu.Lock()
	defer r.flushMu.Unlock()
	batch := r.take()
	if len(batch) == 0 {
		return nil
	}
	if err := r.j.write(batch, r.rows.track(batch)); err != nil {
		return err
	}
	r.settle(len(batch))
	return nil
}

// take returns the events to write: those given a seq so far and not yet
// written (none once the run is closed: Close writes them). r.flushMu is
// held, and stays so until the write is settled (settle) or has failed.
func (r *Run) take() []event.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.armed, r.urgent = false, false
	if r.closed {
		return nil
	}
	n := len(r.unsaved)
	return r.unsaved[:n:n] // Emit only appends past n meanwhile
}

// settle records that the n events take returned are stored and
// publishes what that lets through. r.flushMu is held.
func (r *Run) settle(n int) {
	r.mu.Lock()
	r.committed(n)
	r.mu.Unlock()
}

// committed records that the first n unsaved events are in the store,
// publishes what that lets through, and drops them from unsaved. r.mu is
// held.
func (r *Run) committed(n int) {
	r.stored = r.unsaved[n-1].Seq
	r.advance()
	r.unsaved = append(r.unsaved[:0], r.unsaved[n:]...)
}

// advance publishes, in seq order, the unsaved events not yet published
// that may be, up to the first that may not. r.mu is held.
func (r *Run) advance() {
	if len(r.unsaved) == 0 {
		return
	}
	for i := max(r.pub-r.unsaved[0].Seq+1, 0); i < int64(len(r.unsaved)); i++ {
		e := r.unsaved[i]
		if !r.mayPublish(e) {
			return
		}
		r.publish(e)
	}
}

// mayPublish: e is stored, or it is a token (or exec_output) no more than
// store.SeqGap past what is stored, so that a recovery numbering the run's
// end after that gap never reuses a seq a subscriber saw. r.mu is held.
func (r *Run) mayPublish(e event.Event) bool {
	return e.Seq <= r.stored || (r.j.publishedFirst(e) && e.Seq-r.stored <= store.SeqGap)
}

// publish hands e to every subscriber; one that is too far behind is
// dropped (it catches up from the store). r.mu is held; called in seq order.
func (r *Run) publish(e event.Event) {
	r.pub = e.Seq
	for sub := range r.subs {
		if !sub.push(e) {
			delete(r.subs, sub)
		}
	}
}

// Close writes what is left, publishes it and ends every live subscription
// after the last event (run_finished, emitted just before). If that write
// fails (a full disk) the events are published all the same and the error
// is returned: this is the run's end, and a face that never saw run_finished
// could not tell its user why the run stopped. It is the one exception to
// "a subscriber sees only what the store holds"; the caller keeps the last
// seq (Seq) so that the recovery stores the end under it (store.Ending).
// Emit fails with ErrClosed afterwards.
func (r *Run) Close() error {
	r.flushMu.Lock()
	r.mu.Lock()
	r.closed = true // the window, if it holds the run, takes nothing of it
	var err error
	if n := len(r.unsaved); n > 0 {
		if err = r.j.write(r.unsaved, r.rows.track(r.unsaved)); err == nil {
			r.committed(n)
		} else {
			err = fmt.Errorf("journal: the last %d events of run %s: %w", n, r.id, err)
			for _, e := range r.unsaved {
				if e.Seq > r.pub {
					r.publish(e)
				}
			}
		}
		r.unsaved = nil
	}
	for sub := range r.subs {
		sub.end()
		delete(r.subs, sub)
	}
	r.mu.Unlock()
	r.flushMu.Unlock()
	r.j.forget(r)
	return err
}
