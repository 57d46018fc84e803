package service

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/loopforge/loopforge/backend/config"
	"github.com/loopforge/loopforge/backend/event"
	"github.com/loopforge/loopforge/backend/loop"
	"github.com/loopforge/loopforge/backend/store"
	"github.com/loopforge/loopforge/backend/testwait"
)

// newBareService opens a Service on a fresh history in a temp dir, with the
// given token window; its runs are driven by hand (startBareRun, emit,
// finish), without a model or the loop.
func newBareService(tb testing.TB, window time.Duration) *Service {
	tb.Helper()
	home := tb.TempDir()
	cfg, err := config.Load(config.Options{LookupEnv: func(k string) (string, bool) {
		if k == "LOOPFORGE_HOME" {
			return home, true
		}
		return "", false
	}})
	if err != nil {
		tb.Fatal(err)
	}
	svc, err := New(context.Background(), Options{Config: cfg, TokenWindow: window})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { svc.Close() })
	return svc
}

// startBareRun records a session and a run and registers it as active, as
// launch does, without starting a loop.
func startBareRun(tb testing.TB, s *Service) (*activeRun, *store.Run) {
	tb.Helper()
	ctx := context.Background()
	sess := &store.Session{Title: "t", Prompt: "p", Mode: "script"}
	if err := s.store.CreateSession(ctx, sess); err != nil {
		tb.Fatal(err)
	}
	run := &store.Run{SessionID: sess.ID, Provider: "fake", Prompt: "p", Status: event.RunStatusRunning, Owner: s.owner.ID(), MaxIterations: 1}
	if err := s.store.CreateRun(ctx, run); err != nil {
		tb.Fatal(err)
	}
	ar := newActiveRun(run.ID, func(error) {})
	s.mu.Lock()
	s.runs[run.ID] = ar
	s.mu.Unlock()
	return ar, run
}

func endBareRun(s *Service, ar *activeRun, run *store.Run) {
	s.finish(ar, run, loop.Outcome{Status: event.RunStatusSuccess}, time.Now())
}

func token(it int, phase event.Phase, text string) event.Event {
	return event.New(event.Token, event.TokenPayload{Iteration: it, Phase: phase, Text: text})
}

// waitFor polls cond until it holds; it fails the test only if that takes
// absurdly long (nothing here is timed).
func waitFor(tb testing.TB, what string, cond func() bool) {
	tb.Helper()
	testwait.Until(tb, what, 30*time.Second, cond)
}

// lastSeq is the highest seq stored for the run, 0 if none yet.
func lastSeq(tb testing.TB, s *Service, runID string) int64 {
	tb.Helper()
	evs, err := s.store.EventsAfter(context.Background(), runID, 0, 0)
	if err != nil {
		tb.Fatal(err)
	}
	if len(evs) == 0 {
		return 0
	}
	return evs[len(evs)-1].Seq
}

// drain reads sub until it closes.
func drain(sub *Subscription) []event.Event {
	var evs []event.Event
	for e := range sub.C {
		evs = append(evs, e)
	}
	return evs
}

// sameStream fails unless got is want (type and payload, in order) numbered
// from first on, for runID.
func sameStream(t *testing.T, what string, got, want []event.Event, runID string, first int64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d events, want %d", what, len(got), len(want))
	}
	for i, e := range got {
		w := want[i]
		if e.Seq != first+int64(i) || e.RunID != runID || e.Type != w.Type || string(e.Payload) != string(w.Payload) {
			t.Fatalf("%s: event %d is #%d %s %s %s; want #%d %s %s", what, i, e.Seq, e.RunID, e.Type, e.Payload, first+int64(i), w.Type, w.Payload)
		}
	}
}

// tokenText concatenates the text of the token events, per iteration and
// phase, in order.
func tokenText(t *testing.T, evs []event.Event) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, e := range evs {
		if e.Type != event.Token {
			continue
		}
		var p event.TokenPayload
		if err := e.Decode(&p); err != nil {
			t.Fatal(err)
		}
		out[fmt.Sprintf("%d/%s", p.Iteration, p.Phase)] += p.Text
	}
	return out
}

var runes = []rune("abcxyz \n\t{}\"\\é—日本🙂")

func randomText(rng *rand.Rand) string {
	var b strings.Builder
	for range 1 + rng.IntN(8) {
		b.WriteRune(runes[rng.IntN(len(runes))])
	}
	return b.String()
}

// randomStream is a run's events: run_started, then many token deltas
// interleaved with other events (run_finished is added by finish).
func randomStream(rng *rand.Rand, n int) []event.Event {
	evs := []event.Event{event.New(event.RunStarted, event.RunStartedPayload{Prompt: "p", MaxIterations: 1})}
	it, phase := 1, event.PhaseGenerate
	for range n {
		switch r := rng.IntN(100); {
		case r < 70:
			evs = append(evs, token(it, phase, randomText(rng)))
		case r < 85: // the running code's output travels the same way
			evs = append(evs, event.New(event.ExecOutput, event.ExecOutputPayload{Iteration: it, Stream: event.StreamStdout, Text: randomText(rng)}))
		case r < 90:
			evs = append(evs, event.New(event.Log, event.LogPayload{Level: "info", Message: randomText(rng)}))
		case r < 94:
			evs = append(evs, event.New(event.Generated, event.GeneratedPayload{Iteration: it, Content: randomText(rng)}))
			phase = event.PhaseReflect
		default:
			it++
			phase = event.PhaseGenerate
			evs = append(evs, event.New(event.IterationStarted, event.IterationPayload{Iteration: it}))
		}
	}
	return evs
}

// TestCoalescingNeverReordersOrDrops drives several concurrent runs through
// emit with random token deltas interleaved with other events, for windows
// from "flush at once" to "never by timer" (and the per-token path), some
// with a tiny backlog bound so producers flush too. Every live subscriber,
// whenever it joined, and the replay from the store must give exactly the
// emitted stream, with the same seqs.
func TestCoalescingNeverReordersOrDrops(t *testing.T) {
	cases := []struct {
		window     time.Duration
		maxUnsaved int
	}{
		{time.Nanosecond, maxUnsaved},
		{time.Millisecond, 3},
		{DefaultTokenWindow, maxUnsaved},
		{time.Hour, 5},
		{time.Hour, maxUnsaved},
		{-1, maxUnsaved}, // per-token transactions
	}
	for ci, c := range cases {
		t.Run(fmt.Sprintf("window=%v,backlog=%d", c.window, c.maxUnsaved), func(t *testing.T) {
			t.Parallel()
			s := newBareService(t, c.window)
			s.maxUnsaved = c.maxUnsaved
			for r := range 3 {
				t.Run(fmt.Sprint("run", r), func(t *testing.T) {
					t.Parallel() // the runs share the service and its store
					checkRandomRun(t, s, rand.New(rand.NewPCG(uint64(ci), uint64(r))))
				})
			}
		})
	}
}

func checkRandomRun(t *testing.T, s *Service, rng *rand.Rand) {
	ctx := context.Background()
	ar, run := startBareRun(t, s)
	want := randomStream(rng, 400+rng.IntN(800))

	first, err := s.Subscribe(ctx, run.ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	type late struct {
		after int64
		evs   chan []event.Event
	}
	var lates []late
	for i, e := range want {
		if err := s.emit(ar, e); err != nil {
			t.Fatalf("emit %d: %v", i, err)
		}
		if rng.IntN(150) == 0 { // a subscriber joins mid-stream, from a random point
			l := late{after: rng.Int64N(int64(i) + 2), evs: make(chan []event.Event, 1)}
			sub, err := s.Subscribe(ctx, run.ID, l.after)
			if err != nil {
				t.Fatal(err)
			}
			go func() { l.evs <- drain(sub) }()
			lates = append(lates, l)
		}
	}
	endBareRun(s, ar, run)
	want = append(want, event.New(event.RunFinished, event.RunFinishedPayload{Status: "success"}))

	live := drain(first)
	if err := first.Err(); err != nil {
		t.Fatalf("live subscriber: %v", err)
	}
	// run_finished's payload holds a duration: compare its type only.
	want[len(want)-1].Payload = live[len(live)-1].Payload
	sameStream(t, "live", live, want, run.ID, 1)
	for _, l := range lates {
		sameStream(t, fmt.Sprintf("subscriber after %d", l.after), <-l.evs, want[l.after:], run.ID, l.after+1)
	}

	stored, err := s.store.EventsAfter(ctx, run.ID, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	sameStream(t, "stored", stored, want, run.ID, 1)
	for i, e := range stored {
		if !e.TS.Equal(live[i].TS) {
			t.Fatalf("event %d: stored ts %v, live %v", e.Seq, e.TS, live[i].TS)
		}
	}
	wantText, liveText, storedText := tokenText(t, want), tokenText(t, live), tokenText(t, stored)
	if fmt.Sprint(liveText) != fmt.Sprint(wantText) || fmt.Sprint(storedText) != fmt.Sprint(wantText) {
		t.Fatalf("token text differs:\nwant %q\nlive %q\nstored %q", wantText, liveText, storedText)
	}
	// And replay of the finished run, from the store only.
	sameStream(t, "replayed", collectAll(t, s, run.ID), want, run.ID, 1)
}

func collectAll(t *testing.T, s *Service, runID string) []event.Event {
	var evs []event.Event
	if err := s.Follow(context.Background(), runID, 0, func(e event.Event) error { evs = append(evs, e); return nil }); err != nil {
		t.Fatal(err)
	}
	return evs
}

// Tokens reach subscribers before the store; the next other event is
// written with them, and only then do subscribers see it.
func TestTokensArePublishedFirstAndFlushedBeforeOtherEvents(t *testing.T) {
	s := newBareService(t, time.Hour) // no timer flush during the test
	ctx := context.Background()
	ar, run := startBareRun(t, s)
	sub, err := s.Subscribe(ctx, run.ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.emit(ar, event.New(event.RunStarted, event.RunStartedPayload{Prompt: "p"})); err != nil {
		t.Fatal(err)
	}
	if e := <-sub.C; e.Seq != 1 { // published once written
		t.Fatalf("first live event has seq %d", e.Seq)
	}
	for i := range 10 {
		if err := s.emit(ar, token(1, event.PhaseGenerate, fmt.Sprint(i))); err != nil {
			t.Fatal(err)
		}
	}
	for i := 1; i < 11; i++ {
		if e := <-sub.C; e.Seq != int64(i+1) {
			t.Fatalf("live event %d has seq %d", i, e.Seq)
		}
	}
	if n := lastSeq(t, s, run.ID); n != 1 {
		t.Fatalf("the store holds up to #%d before any other event; want #1 (tokens pending)", n)
	}
	// A subscriber joining now gets the pending tokens from memory.
	late, err := s.Subscribe(ctx, run.ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 11 {
		if e := <-late.C; e.Seq != int64(i+1) {
			t.Fatalf("late subscriber: event %d has seq %d", i, e.Seq)
		}
	}

	if err := s.emit(ar, event.New(event.Log, event.LogPayload{Level: "info", Message: "m"})); err != nil {
		t.Fatal(err)
	}
	// Published only once written, with the tokens before it.
	if e := <-sub.C; e.Seq != 12 || e.Type != event.Log {
		t.Fatalf("after the tokens: #%d %s; want #12 log", e.Seq, e.Type)
	}
	if n := lastSeq(t, s, run.ID); n != 12 {
		t.Fatalf("when the log event is published the store holds up to #%d; want #12", n)
	}
	evs, err := s.store.EventsAfter(ctx, run.ID, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got := tokenText(t, evs)["1/generate"]; got != "0123456789" || evs[11].Type != event.Log {
		t.Fatalf("stored tokens %q, last %s", got, evs[11].Type)
	}
	endBareRun(s, ar, run)
}

// emit does not wait for the store: an event that waits for its write holds
// back the tokens after it (never reordered), and is published, then they
// are, once it is written.
func TestEmitDoesNotWaitForTheStore(t *testing.T) {
	s := newBareService(t, time.Hour)
	ctx := context.Background()
	ar, run := startBareRun(t, s)
	sub, err := s.Subscribe(ctx, run.ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	ar.flushMu.Lock() // every write of this run waits, as behind a slow disk
	if err := s.emit(ar, event.New(event.IterationStarted, event.IterationPayload{Iteration: 1})); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if err := s.emit(ar, token(1, event.PhaseGenerate, fmt.Sprint(i))); err != nil {
			t.Fatal(err)
		}
	}
	// emit returned while no write could happen; nothing is published yet.
	ar.mu.Lock()
	pub, seq := ar.pub, ar.seq
	ar.mu.Unlock()
	if pub != 0 || seq != 4 {
		t.Fatalf("with the store held: published up to #%d of #%d; want none of 4", pub, seq)
	}
	select {
	case e := <-sub.C:
		t.Fatalf("#%d %s reached a subscriber before iteration_started was written", e.Seq, e.Type)
	default:
	}
	ar.flushMu.Unlock()
	e := <-sub.C
	if e.Seq != 1 || e.Type != event.IterationStarted {
		t.Fatalf("first published: #%d %s; want #1 iteration_started", e.Seq, e.Type)
	}
	if n := lastSeq(t, s, run.ID); n < 1 {
		t.Fatal("iteration_started published before it was stored")
	}
	for want := int64(2); want <= 4; want++ {
		if e := <-sub.C; e.Seq != want || e.Type != event.Token {
			t.Fatalf("then #%d %s; want #%d token", e.Seq, e.Type, want)
		}
	}
	its, err := s.store.ListIterations(ctx, run.ID)
	if err != nil || len(its) != 1 || its[0].N != 1 || its[0].Status != "running" {
		t.Fatalf("iteration rows written with the event: %+v, %v", its, err)
	}
	endBareRun(s, ar, run)
}

func TestRunEndFlushesTokens(t *testing.T) {
	s := newBareService(t, time.Hour)
	ctx := context.Background()
	ar, run := startBareRun(t, s)
	for i := range 7 {
		if err := s.emit(ar, token(1, event.PhaseGenerate, fmt.Sprint(i))); err != nil {
			t.Fatal(err)
		}
	}
	endBareRun(s, ar, run)
	evs, err := s.store.EventsAfter(ctx, run.ID, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 8 || !evs[7].Terminal() || tokenText(t, evs)["1/generate"] != "0123456" {
		t.Fatalf("stored %d events: %+v", len(evs), evs)
	}
}

func TestWindowFlushesTokensWithoutAnotherEvent(t *testing.T) {
	s := newBareService(t, time.Millisecond)
	ar, run := startBareRun(t, s)
	for i := range 5 {
		if err := s.emit(ar, token(1, event.PhaseGenerate, fmt.Sprint(i))); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, "the window's flush", func() bool { return lastSeq(t, s, run.ID) == 5 })
	endBareRun(s, ar, run)
}

func TestBacklogIsWrittenByTheProducer(t *testing.T) {
	s := newBareService(t, time.Hour)
	s.maxUnsaved = 5
	ar, run := startBareRun(t, s)
	for i := range 12 {
		if err := s.emit(ar, token(1, event.PhaseGenerate, fmt.Sprint(i))); err != nil {
			t.Fatal(err)
		}
	}
	if n := lastSeq(t, s, run.ID); n != 10 {
		t.Fatalf("the store holds up to #%d; want #10 (two backlogs of 5)", n)
	}
	endBareRun(s, ar, run)
}

// A failed write is never silent: the tokens stay pending and the error
// reaches the loop through the next emit.
func TestFailedFlushIsReported(t *testing.T) {
	ctx := context.Background()
	t.Run("before another event", func(t *testing.T) {
		s := newBareService(t, time.Hour)
		ar, run := startBareRun(t, s)
		sub, err := s.Subscribe(ctx, run.ID, 0)
		if err != nil {
			t.Fatal(err)
		}
		// Occupy seq 2 behind the service's back.
		if err := s.store.AppendEvent(ctx, event.Event{RunID: run.ID, Seq: 2, Type: event.Log, TS: time.Now()}); err != nil {
			t.Fatal(err)
		}
		for range 2 {
			if err := s.emit(ar, token(1, event.PhaseGenerate, "x")); err != nil {
				t.Fatal(err)
			}
		}
		// The log event's write (with the tokens) fails in the background.
		if err := s.emit(ar, event.New(event.Log, event.LogPayload{Message: "m"})); err != nil {
			t.Fatalf("emit of the log event: %v; its write has not failed yet", err)
		}
		waitFor(t, "the write to fail", func() bool {
			ar.mu.Lock()
			defer ar.mu.Unlock()
			return ar.flushErr != nil
		})
		err = s.emit(ar, token(1, event.PhaseGenerate, "y"))
		if !errors.Is(err, store.ErrDuplicate) {
			t.Fatalf("emit after the failed write: %v; want ErrDuplicate", err)
		}
		ar.mu.Lock()
		seq, pending, pub := ar.seq, len(ar.unsaved), ar.pub
		ar.mu.Unlock()
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
		endBareRun(s, ar, run) // fails again, and says so in the log
	})
	t.Run("by the window", func(t *testing.T) {
		s := newBareService(t, time.Millisecond)
		ar, run := startBareRun(t, s)
		if err := s.store.AppendEvent(ctx, event.Event{RunID: run.ID, Seq: 1, Type: event.Log, TS: time.Now()}); err != nil {
			t.Fatal(err)
		}
		if err := s.emit(ar, token(1, event.PhaseGenerate, "x")); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "the window's flush to fail", func() bool {
			ar.mu.Lock()
			defer ar.mu.Unlock()
			return ar.flushErr != nil
		})
		if err := s.emit(ar, token(1, event.PhaseGenerate, "y")); !errors.Is(err, store.ErrDuplicate) {
			t.Fatalf("next emit: %v; want ErrDuplicate", err)
		}
		endBareRun(s, ar, run)
	})
}

// Through the loop: many small deltas, followed live and replayed, render
// the same text as the model's answer.
func TestStreamedAnswerIsIdenticalLiveAndReplayed(t *testing.T) {
	var prog strings.Builder
	for i := range 300 {
		fmt.Fprintf(&prog, "x%d = %d\n", i, i)
	}
	prog.WriteString("print('ok')")
	svc := newService(t, &echoModel{answers: []string{prog.String()}})
	ctx := context.Background()
	info, err := svc.StartRun(ctx, RunRequest{Prompt: "count", Provider: "fake"})
	if err != nil {
		t.Fatal(err)
	}
	live := collect(t, svc, info.RunID, 0)
	stored, err := svc.store.EventsAfter(ctx, info.RunID, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	sameStream(t, "stored", stored, live, info.RunID, 1)
	var gen event.GeneratedPayload
	for _, e := range live {
		if e.Type == event.Generated {
			_ = e.Decode(&gen)
		}
	}
	if got := tokenText(t, stored)["1/generate"]; got == "" || got != gen.Content {
		t.Fatalf("tokens render %d bytes, the answer has %d", len(got), len(gen.Content))
	}
}
