package store

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/loopforge/loopforge/backend/event"
)

func testEvent(runID string, seq int64) event.Event {
	e := event.New(event.Token, event.TokenPayload{Iteration: 1, Phase: event.PhaseGenerate, Text: fmt.Sprint("tok ", seq)})
	e.RunID, e.Seq, e.TS = runID, seq, time.Now()
	return e
}

func TestPutIterationUpserts(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	_, run := seed(t, s)

	// The loop saves an iteration as it goes: generated, executed, reflected.
	it := Iteration{RunID: run.ID, N: 1, Code: "print(x)", Content: "```python\nprint(x)\n```", Status: "running"}
	if err := s.PutIteration(ctx, it); err != nil {
		t.Fatal(err)
	}
	it.ExecStatus, it.ExitCode, it.Stderr, it.Truncated, it.ExecMS, it.Isolation =
		"error", 1, "NameError: x", true, 42, "landlock"
	if err := s.PutIteration(ctx, it); err != nil {
		t.Fatal(err)
	}
	it.Reflection, it.Status, it.Summary = "x is undefined", "error", "exit 1: NameError"
	if err := s.PutIteration(ctx, it); err != nil {
		t.Fatal(err)
	}
	second := Iteration{RunID: run.ID, N: 2, Code: "x=1\nprint(x)", ExecStatus: "ok", Status: "success"}
	if err := s.PutIteration(ctx, second); err != nil {
		t.Fatal(err)
	}

	got, err := s.ListIterations(ctx, run.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0] != it || got[1] != second {
		t.Errorf("ListIterations =\n%+v\nwant\n%+v", got, []Iteration{it, second})
	}
}

// AppendEvents with iterations: one transaction for both, so a rejected
// event leaves the iteration rows as they were, and an accepted batch saves
// each iteration's last state.
func TestAppendEventsWithIterationsIsAllOrNone(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	_, run := seed(t, s)
	first := Iteration{RunID: run.ID, N: 1, Code: "print(1)", Status: "running"}
	if err := s.AppendEvents(ctx, []event.Event{testEvent(run.ID, 1)}, first); err != nil {
		t.Fatal(err)
	}
	later := first
	later.ExecStatus, later.Status = "ok", "success"
	err := s.AppendEvents(ctx, []event.Event{testEvent(run.ID, 2), testEvent(run.ID, 1)}, later)
	if !errors.Is(err, ErrDuplicate) {
		t.Fatalf("batch with a duplicate: %v, want ErrDuplicate", err)
	}
	if got, err := s.ListIterations(ctx, run.ID); err != nil || len(got) != 1 || got[0] != first {
		t.Fatalf("after the rejected batch: %+v, %v; want only %+v", got, err, first)
	}
	second := Iteration{RunID: run.ID, N: 2, Code: "print(2)"}
	if err := s.AppendEvents(ctx, []event.Event{testEvent(run.ID, 2)}, later, second); err != nil {
		t.Fatal(err)
	}
	if got, err := s.ListIterations(ctx, run.ID); err != nil || len(got) != 2 || got[0] != later || got[1] != second {
		t.Fatalf("ListIterations = %+v, %v; want %+v and %+v", got, err, later, second)
	}
	if seq, _ := s.LastSeq(ctx, run.ID); seq != 2 {
		t.Errorf("LastSeq = %d, want 2", seq)
	}
}

// A thread saved in one call is numbered in order, after what the run has,
// and a batch with a conflicting seq saves nothing.
func TestAppendMessagesNumbersInOrderAllOrNone(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	_, run := seed(t, s)
	if err := s.AppendMessage(ctx, Message{RunID: run.ID, Role: "user", Content: "first"}); err != nil {
		t.Fatal(err)
	}
	thread := []Message{{RunID: run.ID, Role: "assistant", Content: "a"}, {RunID: run.ID, Role: "user", Content: "b"}}
	if err := s.AppendMessages(ctx, thread); err != nil {
		t.Fatal(err)
	}
	bad := []Message{{RunID: run.ID, Role: "assistant", Content: "c"}, {RunID: run.ID, Seq: 1, Role: "user", Content: "dup"}}
	if err := s.AppendMessages(ctx, bad); !errors.Is(err, ErrDuplicate) {
		t.Fatalf("batch with a duplicate seq: %v, want ErrDuplicate", err)
	}
	msgs, err := s.ListMessages(ctx, run.ID)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range msgs {
		got = append(got, fmt.Sprintf("%d:%s", m.Seq, m.Content))
	}
	if fmt.Sprint(got) != "[1:first 2:a 3:b]" {
		t.Errorf("thread = %v, want [1:first 2:a 3:b]", got)
	}
	if err := s.AppendMessages(ctx, nil); err != nil {
		t.Errorf("empty thread: %v", err)
	}
}

func TestAppendMessageSeq(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	_, run := seed(t, s)
	_, other := seed(t, s)

	at := time.Date(2026, 5, 6, 7, 8, 9, 123456789, time.FixedZone("BRT", -3*3600))
	for _, m := range []Message{
		{RunID: run.ID, Role: "user", Content: "write a script", CreatedAt: at},
		{RunID: run.ID, Role: "assistant", Content: "```python\n```"},
		{RunID: other.ID, Role: "user", Content: "independent numbering"},
		{RunID: run.ID, Seq: 10, Role: "user", Content: "explicit"},
		{RunID: run.ID, Role: "assistant", Content: "after explicit"},
	} {
		if err := s.AppendMessage(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.AppendMessage(ctx, Message{RunID: run.ID, Seq: 2, Role: "user"}); !errors.Is(err, ErrDuplicate) {
		t.Errorf("explicit duplicate seq: err = %v, want ErrDuplicate", err)
	}

	msgs, err := s.ListMessages(ctx, run.ID)
	if err != nil {
		t.Fatal(err)
	}
	var seqs []int
	for _, m := range msgs {
		seqs = append(seqs, m.Seq)
		if m.CreatedAt.IsZero() {
			t.Errorf("message %d: zero CreatedAt", m.Seq)
		}
	}
	if fmt.Sprint(seqs) != "[1 2 10 11]" {
		t.Errorf("seqs = %v, want [1 2 10 11]", seqs)
	}
	if !msgs[0].CreatedAt.Equal(at) || msgs[0].Content != "write a script" || msgs[0].Role != "user" {
		t.Errorf("first message = %+v", msgs[0])
	}
	if om, _ := s.ListMessages(ctx, other.ID); len(om) != 1 || om[0].Seq != 1 {
		t.Errorf("other run's messages = %+v", om)
	}
}

func TestConcurrentAppendMessageSeq(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	_, run := seed(t, s)
	const n = 40
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			if err := s.AppendMessage(ctx, Message{RunID: run.ID, Role: "user"}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	msgs, err := s.ListMessages(ctx, run.ID)
	if err != nil {
		t.Fatal(err)
	}
	for i, m := range msgs {
		if m.Seq != i+1 {
			t.Fatalf("message %d has seq %d", i, m.Seq)
		}
	}
	if len(msgs) != n {
		t.Errorf("%d messages, want %d", len(msgs), n)
	}
}

func TestEventsRoundTrip(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	_, run := seed(t, s)

	// Payload bytes must come back exactly: odd spacing, key order, escapes
	// and non-ASCII text included. The TS has nanoseconds, a zone and a
	// monotonic reading; only the instant must survive.
	payloads := []json.RawMessage{
		json.RawMessage(`{"iteration":1,"phase":"generate","text":"ol\u00e1 ação\n\t\"x\""}`),
		json.RawMessage(`{ "z" : 1,   "a" : [ 1 , 2 ] }`),
		json.RawMessage(`null`),
		nil,
		event.New(event.ExecFinished, event.ExecPayload{Iteration: 1, Status: "error", Stdout: "€ ok\x00?", Stderr: "boom"}).Payload,
	}
	zone := time.FixedZone("BRT", -3*3600)
	var in []event.Event
	for i, p := range payloads {
		in = append(in, event.Event{
			Type:    event.Kind([]string{"token", "log", "reflection", "run_started", "exec_finished"}[i]),
			RunID:   run.ID,
			Seq:     int64(i + 1),
			TS:      time.Now().In(zone).Add(time.Duration(i) * 1234567 * time.Nanosecond),
			Payload: p,
		})
	}
	if err := s.AppendEvent(ctx, in[0]); err != nil {
		t.Fatal(err)
	}
	if err := s.AppendEvents(ctx, in[1:]); err != nil {
		t.Fatal(err)
	}

	out, err := s.EventsAfter(ctx, run.ID, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != len(in) {
		t.Fatalf("got %d events, want %d", len(out), len(in))
	}
	for i := range in {
		w, g := in[i], out[i]
		if g.Type != w.Type || g.RunID != w.RunID || g.Seq != w.Seq {
			t.Errorf("event %d: got %s/%s/%d, want %s/%s/%d", i, g.Type, g.RunID, g.Seq, w.Type, w.RunID, w.Seq)
		}
		if !g.TS.Equal(w.TS) {
			t.Errorf("event %d: ts %v, want %v", i, g.TS, w.TS)
		}
		if !bytes.Equal(g.Payload, w.Payload) || (w.Payload == nil) != (g.Payload == nil) {
			t.Errorf("event %d: payload %q, want %q", i, g.Payload, w.Payload)
		}
	}
	var tp event.TokenPayload
	if err := out[0].Decode(&tp); err != nil || tp.Text != "olá ação\n\t\"x\"" {
		t.Errorf("decoded token = %+v, %v", tp, err)
	}

	if seq, err := s.LastSeq(ctx, run.ID); err != nil || seq != int64(len(in)) {
		t.Errorf("LastSeq = %d, %v; want %d", seq, err, len(in))
	}
}

func TestEventsAfterPagination(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	_, run := seed(t, s)
	_, other := seed(t, s)

	var batch []event.Event
	for seq := int64(1); seq <= 25; seq++ {
		batch = append(batch, testEvent(run.ID, seq), testEvent(other.ID, seq))
	}
	if err := s.AppendEvents(ctx, batch); err != nil {
		t.Fatal(err)
	}

	// A reconnecting client pages from the last seq it saw.
	var seen []int64
	after := int64(0)
	for pages := 0; ; pages++ {
		if pages > 10 {
			t.Fatal("pagination does not end")
		}
		page, err := s.EventsAfter(ctx, run.ID, after, 10)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range page {
			if e.RunID != run.ID {
				t.Fatalf("event of run %s in run %s's stream", e.RunID, run.ID)
			}
			seen = append(seen, e.Seq)
		}
		if len(page) < 10 {
			break
		}
		after = page[len(page)-1].Seq
	}
	if len(seen) != 25 {
		t.Fatalf("saw %d events, want 25: %v", len(seen), seen)
	}
	for i, seq := range seen {
		if seq != int64(i+1) {
			t.Fatalf("seen = %v, want 1..25 in order", seen)
		}
	}

	tail, err := s.EventsAfter(ctx, run.ID, 23, 100)
	if err != nil || len(tail) != 2 || tail[0].Seq != 24 {
		t.Errorf("EventsAfter(23) = %d events, %v", len(tail), err)
	}
	if none, err := s.EventsAfter(ctx, run.ID, 25, 10); err != nil || len(none) != 0 {
		t.Errorf("EventsAfter(last) = %v, %v; want empty, nil", none, err)
	}
}

func TestAppendEventDuplicateSeq(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	_, run := seed(t, s)

	first := testEvent(run.ID, 1)
	if err := s.AppendEvent(ctx, first); err != nil {
		t.Fatal(err)
	}
	dup := testEvent(run.ID, 1)
	dup.Payload = json.RawMessage(`{"overwritten":true}`)
	err := s.AppendEvent(ctx, dup)
	if !errors.Is(err, ErrDuplicate) {
		t.Fatalf("duplicate seq: err = %v, want ErrDuplicate", err)
	}

	// A batch with a duplicate is rejected whole: seq 2 must not be stored.
	err = s.AppendEvents(ctx, []event.Event{testEvent(run.ID, 2), testEvent(run.ID, 1)})
	if !errors.Is(err, ErrDuplicate) {
		t.Fatalf("batch with duplicate: err = %v, want ErrDuplicate", err)
	}
	evs, err := s.EventsAfter(ctx, run.ID, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 1 || !bytes.Equal(evs[0].Payload, first.Payload) {
		t.Errorf("stored events = %+v, want only the first", evs)
	}
	if seq, _ := s.LastSeq(ctx, run.ID); seq != 1 {
		t.Errorf("LastSeq = %d, want 1", seq)
	}
	if err := s.AppendEvents(ctx, nil); err != nil {
		t.Errorf("empty batch: %v", err)
	}
}

// Several runs stream at once, each from its own goroutine, while clients
// replay; run with -race.
func TestConcurrentAppendEvent(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	const runs, perRun = 6, 80

	ids := make([]string, runs)
	for i := range ids {
		_, r := seed(t, s)
		ids[i] = r.ID
	}

	var wg sync.WaitGroup
	for _, id := range ids {
		wg.Go(func() {
			for seq := int64(1); seq <= perRun; seq++ {
				if err := s.AppendEvent(ctx, testEvent(id, seq)); err != nil {
					t.Error(err)
					return
				}
			}
		})
		wg.Go(func() { // a reader replaying while the writer runs
			var after int64
			for after < perRun {
				evs, err := s.EventsAfter(ctx, id, after, 20)
				if err != nil {
					t.Error(err)
					return
				}
				if len(evs) < 20 {
					time.Sleep(2 * time.Millisecond) // caught up: let the writer get ahead
				}
				for _, e := range evs {
					if e.Seq != after+1 {
						t.Errorf("run %s: seq %d after %d", id, e.Seq, after)
						return
					}
					after = e.Seq
				}
			}
		})
	}
	wg.Wait()

	for _, id := range ids {
		if seq, err := s.LastSeq(ctx, id); err != nil || seq != perRun {
			t.Errorf("run %s: LastSeq = %d, %v; want %d", id, seq, err, perRun)
		}
	}
}

func BenchmarkAppendEvent(b *testing.B) {
	ctx := context.Background()
	s := openTest(b)
	_, run := seed(b, s)
	e := testEvent(run.ID, 0)
	var seq int64
	for b.Loop() {
		seq++
		e.Seq = seq
		if err := s.AppendEvent(ctx, e); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(seq)/b.Elapsed().Seconds(), "events/s")
}

func BenchmarkAppendEvents(b *testing.B) {
	const batchSize = 100
	ctx := context.Background()
	s := openTest(b)
	_, run := seed(b, s)
	batch := make([]event.Event, batchSize)
	for i := range batch {
		batch[i] = testEvent(run.ID, 0)
	}
	var seq int64
	for b.Loop() {
		for i := range batch {
			seq++
			batch[i].Seq = seq
		}
		if err := s.AppendEvents(ctx, batch); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(seq)/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkAppendGroup is the journal's write: a few runs' events with the
// iteration rows they change, in one AppendEvents. "run" is one run's batch
// (an event and its row: a class's runs, written one transaction each),
// "group" eight runs' batches in one (the journal's group commit).
func BenchmarkAppendGroup(b *testing.B) {
	for _, runs := range []int{1, 8} {
		name := map[int]string{1: "run", 8: "group"}[runs]
		b.Run(name, func(b *testing.B) {
			// The journal's writes have a deadline of their own.
			ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
			defer cancel()
			s := openTest(b)
			ids := make([]string, runs)
			for i := range ids {
				_, run := seed(b, s)
				ids[i] = run.ID
			}
			var seq int64
			for b.Loop() {
				seq++
				var evs []event.Event
				var its []Iteration
				for _, id := range ids {
					e := event.New(event.ExecFinished, event.ExecPayload{Iteration: 1, Status: event.ExecStatusOK, Stdout: "3\n", Isolation: "bwrap", Description: "exit 0"})
					e.RunID, e.Seq, e.TS = id, seq, time.Now()
					evs = append(evs, e)
					its = append(its, Iteration{RunID: id, N: 1, Code: "print(1+2)", ExecStatus: "ok", Stdout: "3\n", Isolation: "bwrap", Status: "running"})
				}
				if err := s.AppendEvents(ctx, evs, its...); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*runs), "µs/run-batch")
		})
	}
}
