package journal

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/loopforge/loopforge/backend/event"
	"github.com/loopforge/loopforge/backend/store"
)

// BenchmarkTokenStream drives 8 concurrent runs of synthetic token streams
// through Emit, the real store (a temp-file SQLite) and one subscriber per
// run (Follow), and reports:
//
//   - tokens/s: token events per second, counted until each run's end is
//     written (so every token is persisted);
//   - p50-µs, p99-µs: from the producer handing a token to emit to its
//     subscriber receiving it.
//
// "saturated" emits as fast as it can (throughput); "200tps" paces each run
// at 200 tokens/s (latency under a realistic load). "per-token" is the old
// path (one transaction per token, before it is published), for the ratio.
// Numbers are reported, not asserted:
//
//	go test -run '^$' -bench TokenStream -benchtime 3x ./backend/journal
func BenchmarkTokenStream(b *testing.B) {
	const runs = 8
	loads := []struct {
		name   string
		tokens int     // per run and iteration
		rate   float64 // tokens/s per run; 0 = as fast as possible
	}{
		{"saturated", 2000, 0},
		{"200tps", 200, 200},
	}
	paths := []struct {
		name   string
		window time.Duration
	}{
		{"coalesced", DefaultWindow},
		{"per-token", -1},
	}
	for _, l := range loads {
		for _, p := range paths {
			b.Run(l.name+"/"+p.name, func(b *testing.B) { benchTokens(b, runs, l.tokens, l.rate, p.window) })
		}
	}
}

func benchTokens(b *testing.B, runs, tokens int, rate float64, window time.Duration) {
	f := newFixture(b, Options{Window: window})
	var (
		busy time.Duration // from the first token to the last run's end, stored
		mu   sync.Mutex
		lat  []time.Duration // token handed to emit → received by the subscriber
	)
	for b.Loop() {
		var producers, subscribers sync.WaitGroup
		start := make(chan struct{})
		for range runs {
			r := f.newRun(b)
			if err := r.Emit(event.New(event.RunStarted, event.RunStartedPayload{Prompt: "bench"})); err != nil {
				b.Fatal(err)
			}
			sentAt := make([]time.Time, tokens+3) // by seq; seq 1 is run_started
			// The subscriber joins before the first token: all it gets is live.
			sub := f.j.Subscribe(context.Background(), r.ID(), 1)
			subscribers.Go(func() {
				var mine []time.Duration
				for e := range sub.C {
					if e.Type == event.Token {
						mine = append(mine, time.Since(sentAt[e.Seq]))
					}
				}
				if err := sub.Err(); err != nil {
					b.Error(err)
				}
				mu.Lock()
				lat = append(lat, mine...)
				mu.Unlock()
			})
			producers.Go(func() {
				defer endRun(b, r) // writes what is pending
				var tick <-chan time.Time
				if rate > 0 {
					t := time.NewTicker(time.Duration(float64(time.Second) / rate))
					defer t.Stop()
					tick = t.C
				}
				<-start
				for n := range tokens {
					if tick != nil {
						<-tick
					}
					sentAt[n+2] = time.Now()
					if err := r.Emit(token(1, event.PhaseGenerate, fmt.Sprintf("tok%d ", n))); err != nil {
						b.Error(err)
						return
					}
				}
			})
		}
		t0 := time.Now()
		close(start)
		producers.Wait()
		busy += time.Since(t0)
		subscribers.Wait()
	}
	b.ReportMetric(float64(b.N*runs*tokens)/busy.Seconds(), "tokens/s")
	if len(lat) > 0 {
		slices.Sort(lat)
		b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
		b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
	}
}

// BenchmarkClassBurst drives a class's burst through the journal and the
// real store: 40 runs at once, each with the events of a short run (the
// first written at once, iteration_started, a streamed answer, generated,
// two places in the execution queue, the execution and its output, the
// iteration's and the run's end), tokens paced as a model streams them. It
// reports the process's CPU a run (user+system, from getrusage; the
// benchmark's own goroutines are in it too) and how many events a
// transaction carried. The same file runs on an older tree for the ratio:
//
//	go test -run '^$' -bench ClassBurst -count 4 ./backend/journal
func BenchmarkClassBurst(b *testing.B) {
	const runs = 40
	f := newFixture(b, Options{})
	counted := &countingStore{Store: f.st}
	j := New(counted, Options{})
	defer j.Close()
	var cpu time.Duration
	for b.Loop() {
		var wg sync.WaitGroup
		start := make(chan struct{})
		for range runs {
			r := j.Open(createRun(b, f.st, ""))
			wg.Go(func() {
				<-start
				if err := burstRun(r); err != nil {
					b.Error(err)
				}
			})
		}
		c0 := processCPU()
		close(start)
		wg.Wait()
		cpu += processCPU() - c0
	}
	if cpu > 0 {
		b.ReportMetric(float64(cpu.Microseconds())/float64(b.N*runs), "cpu-µs/run")
	}
	b.ReportMetric(float64(counted.events.Load())/float64(max(1, counted.txs.Load())), "events/tx")
}

// countingStore counts the transactions of AppendEvents and their events.
type countingStore struct {
	Store
	txs, events atomic.Int64
}

func (c *countingStore) AppendEvents(ctx context.Context, evs []event.Event, its ...store.Iteration) error {
	c.txs.Add(1)
	c.events.Add(int64(len(evs)))
	return c.Store.AppendEvents(ctx, evs, its...)
}

// burstRun emits the events of one short run and closes its log.
func burstRun(r *Run) error {
	const tokens = 40
	errs := []error{r.EmitNow(event.New(event.RunStarted, event.RunStartedPayload{Prompt: "print the sum", MaxIterations: 3}))}
	emit := func(k event.Kind, p any) { errs = append(errs, r.Emit(event.New(k, p))) }
	emit(event.IterationStarted, event.IterationPayload{Iteration: 1})
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for n := range tokens {
		<-tick.C
		emit(event.Token, event.TokenPayload{Iteration: 1, Phase: event.PhaseGenerate, Text: fmt.Sprintf("tok%d ", n)})
	}
	emit(event.Generated, event.GeneratedPayload{Iteration: 1, Content: "```python\nprint(1+2)\n```", Code: "print(1+2)", Language: "python", DurationMS: 40})
	emit(event.Queued, event.QueuedPayload{Iteration: 1, Ahead: 3, WaitMS: 500})
	emit(event.Queued, event.QueuedPayload{Iteration: 1, Ahead: 0})
	emit(event.ExecStarted, event.IterationPayload{Iteration: 1})
	for range 2 {
		emit(event.ExecOutput, event.ExecOutputPayload{Iteration: 1, Stream: event.StreamStdout, Text: "3\n"})
	}
	emit(event.ExecFinished, event.ExecPayload{Iteration: 1, Status: event.ExecStatusOK, Stdout: "3\n3\n", DurationMS: 30, Isolation: "bwrap", Description: "exit 0"})
	emit(event.IterationDone, event.IterationDonePayload{Iteration: 1, Status: event.IterationStatusSuccess})
	emit(event.RunFinished, event.RunFinishedPayload{Status: event.RunStatusSuccess})
	errs = append(errs, r.Close())
	return errors.Join(errs...)
}
