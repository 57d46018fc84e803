package journal

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/loopforge/loopforge/backend/event"
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
