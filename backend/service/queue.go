package service

import (
	"context"
	"slices"
	"sync"
	"time"
)

// execQueue caps the executions of generated code running at once in class
// mode: a counting semaphore whose waiters are served first come, first
// served, each told its place while it waits. A slot is handed from the
// releaser straight to the first waiter, so no newcomer overtakes the line.
type execQueue struct {
	mu      sync.Mutex
	size    int
	busy    int
	waiting []*queueWaiter
	// recent holds how long the last executions kept their slot (at most
	// recentExecs), for the waits told to those in line.
	recent []time.Duration
	now    func() time.Time // time.Now; tests give a fake clock

	// every is how often at most a waiter is told a new place (tellEvery;
	// 0: at every move). A place told later than that is told by a timer
	// (afterFunc) the queue sets while one is pending.
	every     time.Duration
	afterFunc func(d time.Duration, f func()) // time.AfterFunc; tests hold the call
	pending   bool                            // a deferred tell is set
}

// recentExecs is how many executions the wait estimate looks back on: a
// class's programs change with its exercise, so only the latest count.
const recentExecs = 20

// tellEvery: in a class's burst the line moves with every execution that
// ends, tens of times a second, and each place told is an event written
// to the history and an update of the wall. Nobody reads a place at that
// pace: telling each waiter at most once a second cut the queued events of
// `go run ./bench/classload` (80 runs) from ~1,900 to ~200, with the
// place and the wait never more than about a second old.
const tellEvery = time.Second

type queueWaiter struct {
	ready   chan struct{} // closed when the slot is this waiter's
	granted bool          // under execQueue.mu
	// pos holds the newest place (1 = next); a newer one replaces an
	// unread one.
	pos chan int
	// told and toldAt: the last place sent, and when (under execQueue.mu).
	told   int
	toldAt time.Time
}

func newExecQueue(size int) *execQueue {
	return &execQueue{size: max(size, 1), now: time.Now, every: tellEvery,
		afterFunc: func(d time.Duration, f func()) { time.AfterFunc(d, f) }}
}

// acquire waits for a slot. A waiter is told its place (ahead ≥ 1) when it
// starts waiting and when it moves (at most every q.every, see tell), and
// ahead 0 once it has the slot;
// one served at once is told nothing. It fails only when ctx ends first,
// and then holds no slot. release gives the slot back; call it once.
func (q *execQueue) acquire(ctx context.Context, told func(ahead int)) (release func(), err error) {
	q.mu.Lock()
	if q.busy < q.size && len(q.waiting) == 0 {
		q.busy++
		q.mu.Unlock()
		return q.releaser(q.now()), nil
	}
	w := &queueWaiter{ready: make(chan struct{}), pos: make(chan int, 1)}
	q.waiting = append(q.waiting, w)
	ahead := len(q.waiting)
	w.told, w.toldAt = ahead, q.now()
	q.mu.Unlock()
	told(ahead)
	for {
		select {
		case <-w.ready:
			told(0)
			return q.releaser(q.now()), nil
		case p := <-w.pos:
			told(p)
		case <-ctx.Done():
			if q.leave(w) {
				return nil, context.Cause(ctx)
			}
			// The slot came as ctx ended: pass it on (no execution to count).
			q.releaser(time.Time{})()
			return nil, context.Cause(ctx)
		}
	}
}

// releaser gives back a slot taken at start (zero: not used for an
// execution, so not counted in the estimate).
func (q *execQueue) releaser(start time.Time) func() {
	var once sync.Once
	return func() {
		once.Do(func() {
			q.mu.Lock()
			if !start.IsZero() {
				q.recent = append(q.recent, q.now().Sub(start))
				if len(q.recent) > recentExecs {
					q.recent = q.recent[len(q.recent)-recentExecs:]
				}
			}
			q.busy--
			q.grant()
			q.mu.Unlock()
		})
	}
}

// grant hands free slots to the first waiters and tells the others their
// new places; q.mu is held.
func (q *execQueue) grant() {
	moved := false
	for q.busy < q.size && len(q.waiting) > 0 {
		w := q.waiting[0]
		q.waiting = q.waiting[1:]
		q.busy++
		w.granted = true
		close(w.ready)
		moved = true
	}
	if moved {
		q.tell()
	}
}

// tell sends every waiter its new place, unless it was told one less than
// q.every ago: then a timer tells it later; q.mu is held.
func (q *execQueue) tell() {
	now := q.now()
	var soonest time.Duration
	for i, w := range q.waiting {
		place := i + 1
		if place == w.told {
			continue
		}
		if wait := w.toldAt.Add(q.every).Sub(now); q.every > 0 && wait > 0 {
			if soonest == 0 || wait < soonest {
				soonest = wait
			}
			continue
		}
		w.told, w.toldAt = place, now
		select {
		case <-w.pos: // drop the unread older place
		default:
		}
		w.pos <- place
	}
	if soonest > 0 && !q.pending {
		q.pending = true
		q.afterFunc(soonest, func() {
			q.mu.Lock()
			defer q.mu.Unlock()
			q.pending = false
			q.tell()
		})
	}
}

// leave takes a waiter out of the line; false when it was granted the slot
// meanwhile (the caller then holds it).
func (q *execQueue) leave(w *queueWaiter) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if w.granted {
		return false
	}
	for i, x := range q.waiting {
		if x == w {
			q.waiting = append(q.waiting[:i], q.waiting[i+1:]...)
			break
		}
	}
	q.tell()
	return true
}

// setSize changes how many run at once; a larger size lets waiters in now,
// a smaller one lets running executions finish.
func (q *execQueue) setSize(n int) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.size = max(n, 1)
	q.grant()
}

// stats: executions running and waiting (tests, the bench).
func (q *execQueue) stats() (busy, waiting int) {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.busy, len(q.waiting)
}

// estimate is how long the execution at place ahead (1 = next) will
// likely wait: 0 when no execution has ended yet to judge by.
func (q *execQueue) estimate(ahead int) time.Duration {
	q.mu.Lock()
	defer q.mu.Unlock()
	return queueWait(ahead, q.size, q.recent)
}

// queueWait is the arithmetic of estimate: with every slot busy and each
// execution taking about the median of the recent ones (a program that
// hung until its timeout does not set the pace of the others), a slot
// frees every median/slots on average, and the one at place ahead gets
// the ahead-th. 0 when there is nothing to judge by.
func queueWait(ahead, slots int, recent []time.Duration) time.Duration {
	if ahead < 1 || slots < 1 || len(recent) == 0 {
		return 0
	}
	sorted := slices.Clone(recent)
	slices.Sort(sorted)
	median := sorted[len(sorted)/2]
	if len(sorted)%2 == 0 {
		median = (sorted[len(sorted)/2-1] + sorted[len(sorted)/2]) / 2
	}
	return time.Duration(ahead) * median / time.Duration(slots)
}
