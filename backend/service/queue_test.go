package service

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/loopforge/loopforge/backend/testwait"
)

// waitUntil polls cond (a condition, never a duration to sleep).
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	testwait.Until(t, what, 30*time.Second, cond)
}

// waiter acquires in a goroutine and reports what it is told.
type waiter struct {
	told   chan int
	got    chan func()
	err    chan error
	cancel context.CancelFunc
}

func startWaiter(q *execQueue) *waiter {
	ctx, cancel := context.WithCancel(context.Background())
	w := &waiter{told: make(chan int, 64), got: make(chan func(), 1), err: make(chan error, 1), cancel: cancel}
	go func() {
		rel, err := q.acquire(ctx, func(ahead int) { w.told <- ahead })
		if err != nil {
			w.err <- err
			return
		}
		w.got <- rel
	}()
	return w
}

func (w *waiter) expect(t *testing.T, name string, ahead int) {
	t.Helper()
	select {
	case got := <-w.told:
		if got != ahead {
			t.Fatalf("%s told %d, want %d", name, got, ahead)
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("%s: no place told (want %d)", name, ahead)
	}
}

func (w *waiter) slot(t *testing.T, name string) func() {
	t.Helper()
	select {
	case rel := <-w.got:
		return rel
	case <-time.After(30 * time.Second):
		t.Fatalf("%s never got its slot", name)
		return nil
	}
}

// TestQueueFIFOPositionsAndCancel: with one slot, waiters are served in
// arrival order, each told its place when it starts waiting and when it
// moves, 0 on getting the slot; one cancelled while waiting leaves the line
// (those behind move up) and holds nothing.
func TestQueueFIFOPositionsAndCancel(t *testing.T) {
	q := newExecQueue(1)
	q.every = 0 // every move told at once (TestQueueTellsAPlaceAtMostEvery: the pace)
	relA, err := q.acquire(context.Background(), func(int) { t.Error("served at once, yet told a place") })
	if err != nil {
		t.Fatal(err)
	}
	b := startWaiter(q)
	b.expect(t, "B", 1)
	c := startWaiter(q)
	c.expect(t, "C", 2)
	d := startWaiter(q)
	d.expect(t, "D", 3)

	relA()
	b.expect(t, "B", 0)
	relB := b.slot(t, "B")
	c.expect(t, "C", 1)
	d.expect(t, "D", 2)

	c.cancel()
	if err := <-c.err; !errors.Is(err, context.Canceled) {
		t.Fatalf("C cancelled: %v", err)
	}
	d.expect(t, "D", 1)
	if busy, waiting := q.stats(); busy != 1 || waiting != 1 {
		t.Fatalf("after C left: %d busy, %d waiting", busy, waiting)
	}
	relB()
	relB() // a second release is a no-op
	d.expect(t, "D", 0)
	d.slot(t, "D")()
	if busy, waiting := q.stats(); busy != 0 || waiting != 0 {
		t.Fatalf("at the end: %d busy, %d waiting", busy, waiting)
	}
}

// TestQueueGrowsLetsWaitersIn: a larger size admits waiters at once.
func TestQueueGrowsLetsWaitersIn(t *testing.T) {
	q := newExecQueue(1)
	q.every = 0
	rel, _ := q.acquire(context.Background(), func(int) {})
	b := startWaiter(q)
	b.expect(t, "B", 1)
	q.setSize(2)
	b.expect(t, "B", 0)
	b.slot(t, "B")()
	rel()
	if busy, waiting := q.stats(); busy != 0 || waiting != 0 {
		t.Fatalf("%d busy, %d waiting", busy, waiting)
	}
}

// TestQueueTellsAPlaceAtMostEvery: a waiter is told its place when it
// starts waiting and its slot at once, but a new place no sooner than
// q.every after the last one told: the moves in between are skipped, and
// the newest place is told by a timer the queue sets. On a fake clock,
// with the timer's function held by the test.
func TestQueueTellsAPlaceAtMostEvery(t *testing.T) {
	q := newExecQueue(1)
	var now time.Time
	var timers []func()
	var after []time.Duration
	q.now = func() time.Time { return now }
	q.afterFunc = func(d time.Duration, f func()) { timers, after = append(timers, f), append(after, d) }
	rel, err := q.acquire(context.Background(), func(int) {})
	if err != nil {
		t.Fatal(err)
	}
	var ahead []*waiter
	for i := range 4 {
		w := startWaiter(q)
		w.expect(t, "a waiter", i+1)
		ahead = append(ahead, w)
	}
	b := startWaiter(q)
	b.expect(t, "B", 5)
	// move lets the next waiter in at the given time.
	move := func(at time.Duration) {
		t.Helper()
		now = time.Time{}.Add(at)
		rel()
		rel = ahead[0].slot(t, "the first in line")
		ahead = ahead[1:]
	}
	quiet := func(when string) {
		t.Helper()
		select {
		case p := <-b.told:
			t.Fatalf("B told %d %s", p, when)
		default:
		}
	}

	// Two moves within B's second (places 4, 3): nothing told, one timer
	// set for the end of the second.
	move(300 * time.Millisecond)
	move(600 * time.Millisecond)
	quiet("twice within a second")
	if len(timers) != 1 || after[0] != 700*time.Millisecond {
		t.Fatalf("timers set: %v, want one in 700ms", after)
	}
	// The timer tells B its newest place, not the one it went through.
	now = time.Time{}.Add(time.Second)
	timers[0]()
	b.expect(t, "B at its second", 3)
	// Again: two moves (2, 1), then the line stops; the next timer tells 1.
	move(1300 * time.Millisecond)
	move(1400 * time.Millisecond)
	quiet("twice within its next second")
	if len(timers) != 2 || after[1] != 700*time.Millisecond {
		t.Fatalf("timers set: %v, want a second one in 700ms", after)
	}
	now = time.Time{}.Add(2 * time.Second)
	timers[1]()
	b.expect(t, "B at its next second", 1)
	// The slot is told at once, whatever the pace.
	now = time.Time{}.Add(2100 * time.Millisecond)
	rel()
	b.expect(t, "B given the slot", 0)
	b.slot(t, "B")()
	quiet("after its slot")
	if busy, waiting := q.stats(); busy != 0 || waiting != 0 {
		t.Fatalf("at the end: %d busy, %d waiting", busy, waiting)
	}
}

// TestQueueNeverLeaksASlot: many goroutines acquire, some cancelled while
// waiting (or just as they are served); never more than size run at once,
// and at the end no slot is held and no one waits. Run with -race.
func TestQueueNeverLeaksASlot(t *testing.T) {
	const size, n = 3, 300
	q := newExecQueue(size)
	var running, peak atomic.Int64
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if i%3 == 0 {
				go cancel() // races with being served
			}
			rel, err := q.acquire(ctx, func(int) {})
			if err != nil {
				return
			}
			if r := running.Add(1); r > peak.Load() {
				peak.Store(r)
			}
			running.Add(-1)
			rel()
		}()
	}
	wg.Wait()
	if p := peak.Load(); p > size {
		t.Errorf("%d ran at once with %d slots", p, size)
	}
	if busy, waiting := q.stats(); busy != 0 || waiting != 0 {
		t.Fatalf("slots leaked: %d busy, %d waiting", busy, waiting)
	}
}

// TestQueueWaitArithmetic: the wait told to a place in line, from the
// recent executions' times (their median) and the slots.
func TestQueueWaitArithmetic(t *testing.T) {
	s := time.Second
	for _, c := range []struct {
		ahead, slots int
		recent       []time.Duration
		want         time.Duration
	}{
		{3, 2, nil, 0},                                   // nothing to judge by
		{0, 2, []time.Duration{s}, 0},                    // served
		{1, 1, []time.Duration{2 * s}, 2 * s},            // next, one slot
		{4, 2, []time.Duration{s, 3 * s, 2 * s}, 4 * s},  // median 2 s, two slots free one a second
		{5, 2, []time.Duration{s, 2 * s, 30 * s}, 5 * s}, // a hung program does not set the pace
		{3, 2, []time.Duration{s, 2 * s}, 2250 * time.Millisecond},
	} {
		if got := queueWait(c.ahead, c.slots, c.recent); got != c.want {
			t.Errorf("queueWait(%d, %d, %v) = %s, want %s", c.ahead, c.slots, c.recent, got, c.want)
		}
	}
}

// TestQueueEstimateOnAFakeClock: the queue times each slot's use on its
// clock, keeps the latest recentExecs, and estimates from them.
func TestQueueEstimateOnAFakeClock(t *testing.T) {
	q := newExecQueue(2)
	var now time.Time
	q.now = func() time.Time { return now }
	if d := q.estimate(1); d != 0 {
		t.Errorf("before any execution: %s", d)
	}
	use := func(d time.Duration) {
		rel, err := q.acquire(context.Background(), func(int) {})
		if err != nil {
			t.Fatal(err)
		}
		now = now.Add(d)
		rel()
	}
	for range recentExecs {
		use(10 * time.Second) // an earlier exercise's slow programs
	}
	if d := q.estimate(2); d != 10*time.Second {
		t.Errorf("after 10 s executions, 2nd in line of 2 slots: %s", d)
	}
	for range recentExecs/2 + 1 {
		use(time.Second)
	}
	if d := q.estimate(4); d != 2*time.Second {
		t.Errorf("once most recent executions took 1 s, 4th in line: %s, want 2s", d)
	}
}
