package journal

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/loopforge/loopforge/backend/event"
	"github.com/loopforge/loopforge/backend/event/eventtest"
	"github.com/loopforge/loopforge/backend/store"
)

// TestCoalescingNeverReordersOrDrops drives several concurrent runs through
// Emit with random token deltas interleaved with other events, for windows
// from "flush at once" to "never by timer" (and the per-event path), some
// with a tiny backlog bound so producers flush too. Every live subscriber,
// whenever it joined, and the replay from the store must give exactly the
// emitted stream, with the same seqs.
func TestCoalescingNeverReordersOrDrops(t *testing.T) {
	cases := []Options{
		{Window: time.Nanosecond},
		{Window: time.Millisecond, MaxUnsaved: 3},
		{Window: DefaultWindow},
		{Window: time.Hour, MaxUnsaved: 5},
		{Window: time.Hour},
		{Window: -1}, // per-event transactions
	}
	for ci, o := range cases {
		t.Run(fmt.Sprintf("window=%v,backlog=%d", o.Window, o.MaxUnsaved), func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, o)
			for r := range 3 {
				t.Run(fmt.Sprint("run", r), func(t *testing.T) {
					t.Parallel() // the runs share the journal and its store
					checkRandomRun(t, f, rand.New(rand.NewPCG(uint64(ci), uint64(r))))
				})
			}
		})
	}
}

func checkRandomRun(t *testing.T, f *fixture, rng *rand.Rand) {
	ctx := context.Background()
	r := f.newRun(t)
	want := randomStream(rng, 400+rng.IntN(800))

	first := f.j.Subscribe(ctx, r.ID(), 0)
	type late struct {
		after int64
		evs   chan []event.Event
	}
	var lates []late
	for i, e := range want {
		if err := r.Emit(e); err != nil {
			t.Fatalf("emit %d: %v", i, err)
		}
		if rng.IntN(150) == 0 { // a subscriber joins mid-stream, from a random point
			l := late{after: rng.Int64N(int64(i) + 2), evs: make(chan []event.Event, 1)}
			sub := f.j.Subscribe(ctx, r.ID(), l.after)
			go func() { l.evs <- drain(sub) }()
			lates = append(lates, l)
		}
	}
	endRun(t, r)
	want = append(want, finished())

	live := drain(first)
	if err := first.Err(); err != nil {
		t.Fatalf("live subscriber: %v", err)
	}
	eventtest.SameStream(t, "live", live, want, r.ID(), 1)
	for _, l := range lates {
		eventtest.SameStream(t, fmt.Sprintf("subscriber after %d", l.after), <-l.evs, want[l.after:], r.ID(), l.after+1)
	}

	stored := f.stored(t, r.ID())
	eventtest.SameStream(t, "stored", stored, want, r.ID(), 1)
	for i, e := range stored {
		if !e.TS.Equal(live[i].TS) {
			t.Fatalf("event %d: stored ts %v, live %v", e.Seq, e.TS, live[i].TS)
		}
	}
	wantText, liveText, storedText := eventtest.TokenText(t, want), eventtest.TokenText(t, live), eventtest.TokenText(t, stored)
	if fmt.Sprint(liveText) != fmt.Sprint(wantText) || fmt.Sprint(storedText) != fmt.Sprint(wantText) {
		t.Fatalf("token text differs:\nwant %q\nlive %q\nstored %q", wantText, liveText, storedText)
	}
	// And replay of the finished run, from the store only.
	var replayed []event.Event
	if err := f.j.Follow(ctx, r.ID(), 0, func(e event.Event) error { replayed = append(replayed, e); return nil }); err != nil {
		t.Fatal(err)
	}
	eventtest.SameStream(t, "replayed", replayed, want, r.ID(), 1)
}

// Tokens reach subscribers before the store; the next other event is
// written with them, and only then do subscribers see it.
func TestTokensArePublishedFirstAndFlushedBeforeOtherEvents(t *testing.T) {
	f := newFixture(t, Options{Window: time.Hour}) // no timer flush during the test
	ctx := context.Background()
	r := f.newRun(t)
	sub := f.j.Subscribe(ctx, r.ID(), 0)
	if err := r.Emit(event.New(event.RunStarted, event.RunStartedPayload{Prompt: "p"})); err != nil {
		t.Fatal(err)
	}
	if e := <-sub.C; e.Seq != 1 { // published once written
		t.Fatalf("first live event has seq %d", e.Seq)
	}
	for i := range 10 {
		if err := r.Emit(token(1, event.PhaseGenerate, fmt.Sprint(i))); err != nil {
			t.Fatal(err)
		}
	}
	for i := 1; i < 11; i++ {
		if e := <-sub.C; e.Seq != int64(i+1) {
			t.Fatalf("live event %d has seq %d", i, e.Seq)
		}
	}
	if n := f.lastSeq(t, r.ID()); n != 1 {
		t.Fatalf("the store holds up to #%d before any other event; want #1 (tokens pending)", n)
	}
	// A subscriber joining now gets the pending tokens from memory.
	late := f.j.Subscribe(ctx, r.ID(), 0)
	for i := range 11 {
		if e := <-late.C; e.Seq != int64(i+1) {
			t.Fatalf("late subscriber: event %d has seq %d", i, e.Seq)
		}
	}

	if err := r.Emit(event.New(event.Log, event.LogPayload{Level: "info", Message: "m"})); err != nil {
		t.Fatal(err)
	}
	// Published only once written, with the tokens before it.
	if e := <-sub.C; e.Seq != 12 || e.Type != event.Log {
		t.Fatalf("after the tokens: #%d %s; want #12 log", e.Seq, e.Type)
	}
	if n := f.lastSeq(t, r.ID()); n != 12 {
		t.Fatalf("when the log event is published the store holds up to #%d; want #12", n)
	}
	evs := f.stored(t, r.ID())
	if got := eventtest.TokenText(t, evs)["1/generate"]; got != "0123456789" || evs[11].Type != event.Log {
		t.Fatalf("stored tokens %q, last %s", got, evs[11].Type)
	}
	endRun(t, r)
}

// Emit does not wait for the store: an event that waits for its write holds
// back the tokens after it (never reordered), and is published, then they
// are, once it is written.
func TestEmitDoesNotWaitForTheStore(t *testing.T) {
	f := newFixture(t, Options{Window: time.Hour})
	ctx := context.Background()
	r := f.newRun(t)
	sub := f.j.Subscribe(ctx, r.ID(), 0)
	r.flushMu.Lock() // every write of this run waits, as behind a slow disk
	if err := r.Emit(event.New(event.IterationStarted, event.IterationPayload{Iteration: 1})); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if err := r.Emit(token(1, event.PhaseGenerate, fmt.Sprint(i))); err != nil {
			t.Fatal(err)
		}
	}
	// Emit returned while no write could happen; nothing is published yet.
	r.mu.Lock()
	pub, seq := r.pub, r.seq
	r.mu.Unlock()
	if pub != 0 || seq != 4 {
		t.Fatalf("with the store held: published up to #%d of #%d; want none of 4", pub, seq)
	}
	select {
	case e := <-sub.C:
		t.Fatalf("#%d %s reached a subscriber before iteration_started was written", e.Seq, e.Type)
	default:
	}
	r.flushMu.Unlock()
	e := <-sub.C
	if e.Seq != 1 || e.Type != event.IterationStarted {
		t.Fatalf("first published: #%d %s; want #1 iteration_started", e.Seq, e.Type)
	}
	if n := f.lastSeq(t, r.ID()); n < 1 {
		t.Fatal("iteration_started published before it was stored")
	}
	for want := int64(2); want <= 4; want++ {
		if e := <-sub.C; e.Seq != want || e.Type != event.Token {
			t.Fatalf("then #%d %s; want #%d token", e.Seq, e.Type, want)
		}
	}
	its, err := f.st.ListIterations(ctx, r.ID())
	if err != nil || len(its) != 1 || its[0].N != 1 || its[0].Status != "running" {
		t.Fatalf("iteration rows written with the event: %+v, %v", its, err)
	}
	endRun(t, r)
}

func TestRunEndFlushesTokens(t *testing.T) {
	f := newFixture(t, Options{Window: time.Hour})
	r := f.newRun(t)
	for i := range 7 {
		if err := r.Emit(token(1, event.PhaseGenerate, fmt.Sprint(i))); err != nil {
			t.Fatal(err)
		}
	}
	endRun(t, r)
	evs := f.stored(t, r.ID())
	if len(evs) != 8 || !evs[7].Terminal() || eventtest.TokenText(t, evs)["1/generate"] != "0123456" {
		t.Fatalf("stored %d events: %+v", len(evs), evs)
	}
}

func TestWindowFlushesTokensWithoutAnotherEvent(t *testing.T) {
	f := newFixture(t, Options{Window: time.Millisecond})
	r := f.newRun(t)
	for i := range 5 {
		if err := r.Emit(token(1, event.PhaseGenerate, fmt.Sprint(i))); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, "the window's flush", func() bool { return f.lastSeq(t, r.ID()) == 5 })
	endRun(t, r)
}

func TestBacklogIsWrittenByTheProducer(t *testing.T) {
	f := newFixture(t, Options{Window: time.Hour, MaxUnsaved: 5})
	r := f.newRun(t)
	for i := range 12 {
		if err := r.Emit(token(1, event.PhaseGenerate, fmt.Sprint(i))); err != nil {
			t.Fatal(err)
		}
	}
	if n := f.lastSeq(t, r.ID()); n != 10 {
		t.Fatalf("the store holds up to #%d; want #10 (two backlogs of 5)", n)
	}
	endRun(t, r)
}

// A token is never published more than store.SeqGap past what the store
// holds, however large the backlog may grow: the recovery of a killed
// process numbers the run's end after that gap.
func TestPublishedNeverRunsPastTheGap(t *testing.T) {
	f := newFixture(t, Options{Window: time.Hour, MaxUnsaved: 2 * store.SeqGap})
	ctx := context.Background()
	r := f.newRun(t)
	if err := r.EmitNow(event.New(event.RunStarted, event.RunStartedPayload{Prompt: "p"})); err != nil {
		t.Fatal(err)
	}
	sub := f.j.Subscribe(ctx, r.ID(), 0)
	const extra = 100
	for i := range store.SeqGap + extra {
		if err := r.Emit(token(1, event.PhaseGenerate, fmt.Sprint(i))); err != nil {
			t.Fatal(err)
		}
	}
	r.mu.Lock()
	pub, seq, stored := r.pub, r.seq, r.stored
	r.mu.Unlock()
	if stored != 1 || seq != 1+store.SeqGap+extra || pub != 1+store.SeqGap {
		t.Fatalf("stored #%d, given #%d, published #%d; want 1, %d, %d", stored, seq, pub, 1+store.SeqGap+extra, 1+store.SeqGap)
	}
	for want := int64(1); want <= 1+store.SeqGap; want++ {
		if e := <-sub.C; e.Seq != want {
			t.Fatalf("live #%d; want #%d", e.Seq, want)
		}
	}
	select {
	case e := <-sub.C:
		t.Fatalf("#%d published, %d past the stored #1", e.Seq, e.Seq-1)
	default:
	}
	// Once written, the rest follows in order.
	if err := r.flush(); err != nil {
		t.Fatal(err)
	}
	for want := int64(2 + store.SeqGap); want <= seq; want++ {
		if e := <-sub.C; e.Seq != want {
			t.Fatalf("after the write: #%d; want #%d", e.Seq, want)
		}
	}
	endRun(t, r)
}

// A failed write is never silent: the tokens stay pending and the error
// reaches the producer through the next Emit.
func TestFailedFlushIsReported(t *testing.T) {
	ctx := context.Background()
	t.Run("before another event", func(t *testing.T) {
		f := newFixture(t, Options{Window: time.Hour})
		r := f.newRun(t)
		sub := f.j.Subscribe(ctx, r.ID(), 0)
		// Occupy seq 2 behind the journal's back.
		if err := f.st.AppendEvent(ctx, event.Event{RunID: r.ID(), Seq: 2, Type: event.Log, TS: time.Now()}); err != nil {
			t.Fatal(err)
		}
		for range 2 {
			if err := r.Emit(token(1, event.PhaseGenerate, "x")); err != nil {
				t.Fatal(err)
			}
		}
		// The log event's write (with the tokens) fails in the background.
		if err := r.Emit(event.New(event.Log, event.LogPayload{Message: "m"})); err != nil {
			t.Fatalf("emit of the log event: %v; its write has not failed yet", err)
		}
		waitFor(t, "the write to fail", func() bool {
			r.mu.Lock()
			defer r.mu.Unlock()
			return r.flushErr != nil
		})
		err := r.Emit(token(1, event.PhaseGenerate, "y"))
		if !errors.Is(err, store.ErrDuplicate) {
			t.Fatalf("emit after the failed write: %v; want ErrDuplicate", err)
		}
		r.mu.Lock()
		seq, pending, pub := r.seq, len(r.unsaved), r.pub
		r.mu.Unlock()
		// Nothing is lost (all four wait to be written) and the log event,
		// not in the store, was never published, nor the token behind it.
		if seq != 4 || pending != 4 || pub != 2 {
			t.Fatalf("after the failure: seq %d, %d pending, published up to #%d; want 4, 4, 2", seq, pending, pub)
		}
		for want := int64(1); want <= 2; want++ {
			if e := <-sub.C; e.Seq != want {
				t.Fatalf("published #%d; want #%d", e.Seq, want)
			}
		}
		select {
		case e := <-sub.C:
			t.Fatalf("#%d %s published though the store does not hold it", e.Seq, e.Type)
		default:
		}
		// The end's write fails again: Close says so, and publishes the
		// rest all the same, run_finished last.
		_ = r.Emit(finished()) // its write, in the background, may fail first
		if err := r.Close(); !errors.Is(err, store.ErrDuplicate) {
			t.Fatalf("Close: %v; want ErrDuplicate", err)
		}
		rest := drain(sub)
		if len(rest) != 3 || !rest[2].Terminal() || rest[2].Seq != 5 {
			t.Fatalf("after the failed end: %+v", rest)
		}
	})
	t.Run("by the window", func(t *testing.T) {
		f := newFixture(t, Options{Window: time.Millisecond})
		r := f.newRun(t)
		if err := f.st.AppendEvent(ctx, event.Event{RunID: r.ID(), Seq: 1, Type: event.Log, TS: time.Now()}); err != nil {
			t.Fatal(err)
		}
		if err := r.Emit(token(1, event.PhaseGenerate, "x")); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "the window's flush to fail", func() bool {
			r.mu.Lock()
			defer r.mu.Unlock()
			return r.flushErr != nil
		})
		if err := r.Emit(token(1, event.PhaseGenerate, "y")); !errors.Is(err, store.ErrDuplicate) {
			t.Fatalf("next emit: %v; want ErrDuplicate", err)
		}
		if err := r.Close(); !errors.Is(err, store.ErrDuplicate) {
			t.Fatalf("Close: %v; want ErrDuplicate", err)
		}
	})
}

// A subscriber that never reads is dropped, never waited for; it catches up
// from the store (Follow does so by itself).
func TestSlowSubscriberIsDroppedAndCatchesUp(t *testing.T) {
	f := newFixture(t, Options{})
	ctx := context.Background()
	r := f.newRun(t)
	sub := f.j.Subscribe(ctx, r.ID(), 0) // never read until the run ends
	n := SubscriberBuffer + 200
	for i := range n {
		if err := r.Emit(token(1, event.PhaseGenerate, fmt.Sprint(i))); err != nil {
			t.Fatal(err)
		}
	}
	endRun(t, r)
	got := drain(sub)
	if !errors.Is(sub.Err(), ErrDropped) || len(got) >= n+1 {
		t.Fatalf("a subscriber %d events behind: %d delivered, err %v; want dropped", n, len(got), sub.Err())
	}
	var all []event.Event
	if err := f.j.Follow(ctx, r.ID(), got[len(got)-1].Seq, func(e event.Event) error { all = append(all, e); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(got)+len(all) != n+1 || !all[len(all)-1].Terminal() {
		t.Fatalf("caught up %d+%d events; want %d ending with run_finished", len(got), len(all), n+1)
	}
}

// A closed log refuses events; a closed journal refuses subscriptions and
// ends those that wait.
func TestClosed(t *testing.T) {
	f := newFixture(t, Options{})
	ctx := context.Background()
	r := f.newRun(t)
	endRun(t, r)
	if err := r.Emit(token(1, event.PhaseGenerate, "late")); !errors.Is(err, ErrClosed) {
		t.Fatalf("Emit after Close: %v; want ErrClosed", err)
	}
	waiting := f.j.Subscribe(ctx, r.ID(), 0) // never read: it waits to send
	f.j.Close()
	drain(waiting)
	if sub := f.j.Subscribe(ctx, r.ID(), 0); len(drain(sub)) != 0 || !errors.Is(sub.Err(), ErrClosed) {
		t.Fatalf("a subscription after Close: err %v", sub.Err())
	}
}
