package journal

import (
	"bytes"
	"context"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loopforge/loopforge/backend/event"
	"github.com/loopforge/loopforge/backend/store"
	"github.com/loopforge/loopforge/backend/testwait"
)

// fixture is a journal over a real history in a temp file.
type fixture struct {
	j  *Journal
	st *store.Store
}

func newFixture(tb testing.TB, o Options) *fixture {
	tb.Helper()
	st, err := store.Open(context.Background(), filepath.Join(tb.TempDir(), "history.db"))
	if err != nil {
		tb.Fatal(err)
	}
	f := &fixture{j: New(st, o), st: st}
	tb.Cleanup(func() {
		f.j.Close()
		st.Close()
	})
	return f
}

// newRun records a session and a run, as the service does before its first
// event, and opens its log.
func (f *fixture) newRun(tb testing.TB) *Run {
	tb.Helper()
	return f.j.Open(createRun(tb, f.st, ""))
}

func createRun(tb testing.TB, st *store.Store, owner string) string {
	tb.Helper()
	ctx := context.Background()
	sess := &store.Session{Title: "t", Prompt: "p", Mode: "script"}
	if err := st.CreateSession(ctx, sess); err != nil {
		tb.Fatal(err)
	}
	run := &store.Run{SessionID: sess.ID, Provider: "fake", Prompt: "p", Status: event.RunStatusRunning, Owner: owner, MaxIterations: 1}
	if err := st.CreateRun(ctx, run); err != nil {
		tb.Fatal(err)
	}
	return run.ID
}

// endRun emits run_finished and closes the log, as the service's finish does.
func endRun(tb testing.TB, r *Run) {
	tb.Helper()
	if err := r.Emit(finished()); err != nil {
		tb.Error(err)
	}
	if err := r.Close(); err != nil {
		tb.Error(err)
	}
}

func finished() event.Event {
	return event.New(event.RunFinished, event.RunFinishedPayload{Status: event.RunStatusSuccess})
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
func (f *fixture) lastSeq(tb testing.TB, runID string) int64 {
	tb.Helper()
	evs := f.stored(tb, runID)
	if len(evs) == 0 {
		return 0
	}
	return evs[len(evs)-1].Seq
}

func (f *fixture) stored(tb testing.TB, runID string) []event.Event {
	tb.Helper()
	evs, err := f.st.EventsAfter(context.Background(), runID, 0, 0)
	if err != nil {
		tb.Fatal(err)
	}
	return evs
}

// drain reads sub until it closes.
func drain(sub *Subscription) []event.Event {
	var evs []event.Event
	for e := range sub.C {
		evs = append(evs, e)
	}
	return evs
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
// interleaved with other events (run_finished is added by endRun).
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

// lockedBuffer is a bytes.Buffer a child process writes while the test may
// read it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
