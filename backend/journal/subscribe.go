package journal

import (
	"context"
	"errors"
	"sync"

	"github.com/loopforge/loopforge/backend/event"
)

// Subscription delivers a run's events in seq order. C is closed after the
// run_finished event, when ctx ends, when the journal closes, or early on an
// error (Err then says why: ErrDropped when the reader fell behind;
// resubscribe from the last seq seen).
type Subscription struct {
	C   <-chan event.Event
	mu  sync.Mutex
	err error
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

// subscriber is a live subscription's queue, guarded by the run's mu: the
// run appends (publish), the subscription's goroutine takes what is there
// (feed.take). A queue grows with the events waiting, where a channel of
// SubscriberBuffer events was allocated (and zeroed, and scanned by the
// GC) whole for every subscription: in a class, one per run and reader.
type subscriber struct {
	queue   []event.Event
	spare   []event.Event // the last batch taken, emptied, for the next queue
	inHand  int           // events taken and not yet all delivered
	notify  chan struct{} // holds one token when queue or ended changed
	ended   bool          // no more events: the run closed, or dropped us
	dropped bool          // ended because the queue was full
}

func newSubscriber() *subscriber { return &subscriber{notify: make(chan struct{}, 1)} }

// push queues e, or drops the subscriber if SubscriberBuffer events wait
// already, queued or taken and not yet delivered (false). The run's mu is
// held.
func (s *subscriber) push(e event.Event) bool {
	if len(s.queue)+s.inHand >= SubscriberBuffer {
		s.dropped = true
		s.end()
		return false
	}
	if s.queue == nil {
		s.queue, s.spare = s.spare, nil
	}
	s.queue = append(s.queue, e)
	s.wake()
	return true
}

// end says no more events come. The run's mu is held.
func (s *subscriber) end() {
	s.ended = true
	s.wake()
}

func (s *subscriber) wake() {
	select {
	case s.notify <- struct{}{}:
	default: // a wake-up is pending already
	}
}

// feed is where a subscription's events come from: the store up to
// storedUpTo (-1: all of it), then pending (published, not stored yet),
// then sub's live events. sub is nil when the run's log is not open.
type feed struct {
	run        *Run
	sub        *subscriber
	storedUpTo int64
	pending    []event.Event
}

// join registers a subscriber on r and says what it must replay to join
// the live stream with no gap and no duplicate.
func (r *Run) join() feed {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return feed{storedUpTo: -1}
	}
	sub := newSubscriber()
	r.subs[sub] = struct{}{}
	// The store holds every event up to stored, all published; the
	// published unsaved ones come from here, the rest live.
	f := feed{run: r, sub: sub, storedUpTo: r.stored}
	for _, e := range r.unsaved {
		if e.Seq > r.pub {
			break
		}
		f.pending = append(f.pending, e)
	}
	return f
}

// leave unregisters the subscriber (if the run has not already).
func (f feed) leave() {
	if f.sub == nil {
		return
	}
	f.run.mu.Lock()
	delete(f.run.subs, f.sub)
	f.sub.queue, f.sub.spare = nil, nil
	f.run.mu.Unlock()
}

// take returns the live events queued so far (in seq order) and whether
// the subscription has ended after them, and why. done hands the batch
// back once delivered, so that the next queue reuses it.
func (f feed) take() (batch []event.Event, ended, dropped bool) {
	f.run.mu.Lock()
	defer f.run.mu.Unlock()
	batch, f.sub.queue = f.sub.queue, nil
	f.sub.inHand = len(batch)
	return batch, f.sub.ended, f.sub.dropped
}

func (f feed) done(batch []event.Event) {
	clear(batch) // hold no payload past its delivery
	f.run.mu.Lock()
	f.sub.inHand = 0
	if f.sub.spare == nil {
		f.sub.spare = batch[:0]
	}
	f.run.mu.Unlock()
}

// Subscribe streams the events of runID with seq > after: live ones while
// this journal has the run's log open, else what the store holds. A run the
// store does not know ends the subscription with the store's error.
func (j *Journal) Subscribe(ctx context.Context, runID string, after int64) *Subscription {
	return j.SubscribeView(ctx, runID, after, nil)
}

// SubscribeView is Subscribe with each event passed through view before it
// is delivered (what a reader may see of it, e.g. a student's view of
// hidden tests); nil delivers the events as stored.
func (j *Journal) SubscribeView(ctx context.Context, runID string, after int64, view func(event.Event) event.Event) *Subscription {
	out := make(chan event.Event, 64)
	sub := &Subscription{C: out}
	j.mu.Lock()
	if j.shut {
		j.mu.Unlock()
		sub.err = ErrClosed
		close(out)
		return sub
	}
	r := j.open[runID]
	j.wg.Add(1)
	j.mu.Unlock()
	f := feed{storedUpTo: -1}
	if r != nil {
		f = r.join()
	}
	d := &delivery{j: j, ctx: ctx, runID: runID, out: out, last: after, sub: sub, view: view}
	go func() {
		defer j.wg.Done()
		defer close(out)
		defer f.leave()
		d.run(f)
	}()
	return sub
}

// delivery is one subscription's goroutine.
type delivery struct {
	j     *Journal
	ctx   context.Context
	runID string
	out   chan<- event.Event
	last  int64 // the last seq delivered
	sub   *Subscription
	view  func(event.Event) event.Event // nil: as stored
}

func (d *delivery) run(f feed) {
	if !d.fromStore(f.storedUpTo) {
		return
	}
	for _, e := range f.pending {
		if !d.send(e) {
			return
		}
	}
	if f.sub == nil {
		return
	}
	for {
		batch, ended, dropped := f.take()
		for _, e := range batch {
			if !d.send(e) {
				return
			}
		}
		f.done(batch)
		if ended {
			if dropped {
				d.sub.setErr(ErrDropped)
			}
			return
		}
		select {
		case <-f.sub.notify:
		case <-d.ctx.Done():
			return
		case <-d.j.closing:
			return
		}
	}
}

// fromStore replays the stored events after d.last up to upTo (-1: all),
// in pages; false when the subscription must end.
func (d *delivery) fromStore(upTo int64) bool {
	for upTo < 0 || d.last < upTo {
		page, err := d.j.st.EventsAfter(d.ctx, d.runID, d.last, replayPage)
		if err != nil {
			d.sub.setErr(err)
			return false
		}
		from := d.last
		for _, e := range page {
			if upTo >= 0 && e.Seq > upTo {
				break
			}
			if !d.send(e) {
				return false
			}
		}
		if d.last == from { // the end of what is stored
			break
		}
	}
	return true
}

// send delivers e unless it was delivered already; false when the
// subscription must end.
func (d *delivery) send(e event.Event) bool {
	if e.Seq <= d.last {
		return true
	}
	if d.view != nil {
		e = d.view(e)
	}
	select {
	case d.out <- e:
		d.last = e.Seq
		return true
	case <-d.ctx.Done():
		return false
	case <-d.j.closing:
		return false
	}
}

// Follow calls fn for every event of runID after seq `after`, in order,
// resubscribing when it falls behind, until the run_finished event (or ctx
// ends, or fn fails). A stored run whose end was never recorded ends the
// follow when its stored events are delivered.
func (j *Journal) Follow(ctx context.Context, runID string, after int64, fn func(event.Event) error) error {
	last := after
	for {
		sub := j.Subscribe(ctx, runID, last)
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
			return nil
		}
	}
}
