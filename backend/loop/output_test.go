package loop

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/loopforge/loopforge/backend/event"
	"github.com/loopforge/loopforge/backend/sandbox"
)

// sent records what a liveOutput sends, safely across its goroutine.
type sent struct {
	mu  sync.Mutex
	all []event.ExecOutputPayload
	err error // returned by send when set
}

func (s *sent) send(p event.ExecOutputPayload) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return s.err
	}
	s.all = append(s.all, p)
	return nil
}

// text joins one stream's pieces; capped reports whether one was marked.
func (s *sent) text(stream string) (text string, events int, capped bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var b strings.Builder
	for _, p := range s.all {
		if p.Stream == stream {
			b.WriteString(p.Text)
			events++
			capped = capped || p.Capped
		}
	}
	return b.String(), events, capped
}

// TestLiveOutputCoalesces: however small the writes, a window gathers them
// into one event per stream, in order, nothing lost; a character split
// between two writes arrives whole.
func TestLiveOutputCoalesces(t *testing.T) {
	var s sent
	// A window longer than the test: everything is sent by close.
	l := newLiveOutput(3, 1<<20, time.Hour, s.send, nil)
	var wantOut, wantErr strings.Builder
	for i := range 500 {
		line := []byte("ação " + strings.Repeat("é", i%5) + "\n")
		// Byte by byte: every multi-byte character is split.
		for _, b := range line {
			_, _ = l.stdout().Write([]byte{b})
		}
		wantOut.Write(line)
		if i%50 == 0 {
			_, _ = l.stderr().Write([]byte("warn\n"))
			wantErr.WriteString("warn\n")
		}
	}
	if err := l.close(); err != nil {
		t.Fatal(err)
	}
	out, nOut, capped := s.text(event.StreamStdout)
	errText, nErr, _ := s.text(event.StreamStderr)
	if out != wantOut.String() || errText != wantErr.String() || capped {
		t.Fatalf("stdout %d bytes (want %d), stderr %q, capped %v", len(out), wantOut.Len(), errText, capped)
	}
	if nOut != 1 || nErr != 1 {
		t.Errorf("%d stdout and %d stderr events for one window, want one each", nOut, nErr)
	}
	for _, p := range s.all {
		if p.Iteration != 3 {
			t.Errorf("event for iteration %d", p.Iteration)
		}
	}
	// Written after close: ignored.
	_, _ = l.stdout().Write([]byte("late"))
	if out2, _, _ := s.text(event.StreamStdout); out2 != out {
		t.Error("a write after close was sent")
	}
}

// TestLiveOutputShortWindow: with windows passing during the writes, the
// pieces of each stream are consecutive (never reordered, never dropped)
// and each is valid UTF-8 even though the writes split characters.
func TestLiveOutputShortWindow(t *testing.T) {
	var s sent
	l := newLiveOutput(1, 1<<20, time.Millisecond, s.send, nil)
	var want strings.Builder
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // the other stream's copier, at the same time
		defer wg.Done()
		for range 2000 {
			_, _ = l.stderr().Write([]byte("e"))
		}
	}()
	for i := range 3000 {
		chunk := []byte(strings.Repeat("ñ", i%3) + "x")
		cut := len(chunk) / 2
		_, _ = l.stdout().Write(chunk[:cut])
		_, _ = l.stdout().Write(chunk[cut:])
		want.Write(chunk)
	}
	wg.Wait()
	if err := l.close(); err != nil {
		t.Fatal(err)
	}
	out, _, _ := s.text(event.StreamStdout)
	errText, _, _ := s.text(event.StreamStderr)
	if out != want.String() || errText != strings.Repeat("e", 2000) {
		t.Fatalf("stdout %d bytes (want %d), stderr %d bytes (want 2000)", len(out), want.Len(), len(errText))
	}
	for _, p := range s.all {
		if !utf8.ValidString(p.Text) || strings.ContainsRune(p.Text, utf8.RuneError) {
			t.Fatalf("a piece is not whole UTF-8: %q", p.Text)
		}
	}
}

// TestLiveOutputCapped: each stream goes live up to the limit; the event
// that reaches it is marked, and nothing of that stream follows.
func TestLiveOutputCapped(t *testing.T) {
	var s sent
	l := newLiveOutput(1, 10, time.Hour, s.send, nil)
	_, _ = l.stdout().Write([]byte("0123456"))
	_, _ = l.stdout().Write([]byte("789ABCDEF"))
	_, _ = l.stdout().Write([]byte("more"))
	_, _ = l.stderr().Write([]byte("0123456789")) // exactly the limit: not capped
	if err := l.close(); err != nil {
		t.Fatal(err)
	}
	if out, _, capped := s.text(event.StreamStdout); out != "0123456789" || !capped {
		t.Errorf("stdout %q capped %v; want the first 10 bytes, capped", out, capped)
	}
	if errText, _, capped := s.text(event.StreamStderr); errText != "0123456789" || capped {
		t.Errorf("stderr %q capped %v; want all 10 bytes, not capped", errText, capped)
	}

	// A character cut by the limit is dropped, not sent broken.
	var s2 sent
	l = newLiveOutput(1, 4, time.Hour, s2.send, nil)
	_, _ = l.stdout().Write([]byte("abcé")) // é is 2 bytes: 5 in all
	_ = l.close()
	if out, _, capped := s2.text(event.StreamStdout); out != "abc" || !capped {
		t.Errorf("stdout %q capped %v; want abc, capped", out, capped)
	}
}

// TestLiveOutputSendFailure: a failed send is reported once, to onErr (which
// stops the execution) and by close, and nothing more is sent.
func TestLiveOutputSendFailure(t *testing.T) {
	boom := errors.New("store is gone")
	s := sent{err: boom}
	var got []error
	l := newLiveOutput(1, 100, time.Hour, s.send, func(err error) { got = append(got, err) })
	_, _ = l.stdout().Write([]byte("x"))
	_, _ = l.stderr().Write([]byte("y"))
	if err := l.close(); !errors.Is(err, boom) {
		t.Errorf("close = %v, want %v", err, boom)
	}
	if len(got) != 1 || !errors.Is(got[0], boom) {
		t.Errorf("onErr got %v", got)
	}
}

// liveRecorder is an Emitter for a run whose events come from two
// goroutines (the loop's and the live output's) and that a test watches.
type liveRecorder struct {
	mu     sync.Mutex
	events []event.Event
	want   string
	seen   chan struct{} // closed when exec_output has carried want
	got    strings.Builder
}

func newLiveRecorder(want string) *liveRecorder {
	return &liveRecorder{want: want, seen: make(chan struct{})}
}

func (r *liveRecorder) emit(e event.Event) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, e)
	if e.Type == event.ExecOutput {
		var p event.ExecOutputPayload
		_ = e.Decode(&p)
		had := strings.Contains(r.got.String(), r.want)
		r.got.WriteString(p.Text)
		if !had && strings.Contains(r.got.String(), r.want) {
			close(r.seen)
		}
	}
	return nil
}

func (r *liveRecorder) snapshot() []event.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]event.Event(nil), r.events...)
}

func realSandbox(t *testing.T) *sandbox.Runner {
	t.Helper()
	r, err := sandbox.NewRunner(sandbox.Options{})
	if err != nil {
		t.Skipf("no sandbox here: %v", err)
	}
	return r
}

// TestRunStreamsOutputAndKeepsItWhenStopped: with the real sandbox, what
// the code prints is emitted as exec_output while it runs (the program
// cannot end by itself; the test stops the run only after seeing the
// line), and the stopped iteration still gets exec_finished with that
// output, so it is stored and shown.
func TestRunStreamsOutputAndKeepsItWhenStopped(t *testing.T) {
	x := realSandbox(t)
	code := "import time\nprint('started')\ntime.sleep(3600)"
	m := &scripted{replies: []reply{{text: fenced(code)}}}
	rec := newLiveRecorder("started\n")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan Outcome, 1)
	go func() {
		done <- Run(ctx, m, x, rec.emit, Settings{MaxIterations: 2, Limits: sandbox.Limits{Timeout: 2 * time.Hour}}, Input{Prompt: "wait"})
	}()
	select {
	case <-rec.seen:
	case out := <-done:
		t.Fatalf("the run ended (%s, %v) before its output was seen", out.Status, out.Err)
	case <-time.After(2 * time.Minute):
		t.Fatal("the printed line never arrived")
	}
	for _, e := range rec.snapshot() {
		if e.Type == event.ExecFinished {
			t.Fatal("exec_finished came before the run was stopped")
		}
	}
	cancel()
	out := <-done
	if out.Status != event.RunStatusCancelled {
		t.Fatalf("status %s (%v), want cancelled", out.Status, out.Err)
	}
	evs := rec.snapshot()
	var kinds []event.Kind
	for _, e := range evs {
		if e.Type != event.Token {
			kinds = append(kinds, e.Type)
		}
	}
	want := []event.Kind{event.IterationStarted, event.Generated, event.ExecStarted, event.ExecOutput, event.ExecFinished}
	if !equalKinds(kinds, want) {
		t.Fatalf("events %v, want %v", kinds, want)
	}
	var fin event.ExecPayload
	if err := evs[len(evs)-1].Decode(&fin); err != nil {
		t.Fatal(err)
	}
	if fin.Status != sandbox.StatusKilled || fin.Stdout != "started\n" || fin.Iteration != 1 {
		t.Errorf("exec_finished %+v; want killed with the printed line", fin)
	}
}

// TestRunGivesStdinToTheCode: Settings.Stdin is what input() reads.
func TestRunGivesStdinToTheCode(t *testing.T) {
	x := realSandbox(t)
	code := "name = input()\nage = input()\nprint(f'hello {name}, {age}')"
	m := &scripted{replies: []reply{{text: fenced(code)}}}
	rec := newLiveRecorder("hello")
	out := Run(context.Background(), m, x, rec.emit, Settings{MaxIterations: 1, Stdin: "Ada\n36\n"}, Input{Prompt: "greet"})
	if out.Status != event.RunStatusSuccess {
		t.Fatalf("status %s (%v)", out.Status, out.Err)
	}
	var fin event.ExecPayload
	for _, e := range rec.snapshot() {
		if e.Type == event.ExecFinished {
			_ = e.Decode(&fin)
		}
	}
	if fin.Stdout != "hello Ada, 36\n" || rec.got.String() != fin.Stdout {
		t.Errorf("stdout %q, live %q; want the input echoed", fin.Stdout, rec.got.String())
	}
}

// A program's duration is rounded to the millisecond, not truncated: sums
// of many (the benchmarks' "programs' own time") would otherwise read up to
// a millisecond low per program.
func TestRoundMS(t *testing.T) {
	for _, c := range []struct {
		d    time.Duration
		want int64
	}{{3800 * time.Microsecond, 4}, {3400 * time.Microsecond, 3}, {600 * time.Microsecond, 1}, {0, 0}, {2 * time.Second, 2000}} {
		if got := roundMS(c.d); got != c.want {
			t.Errorf("roundMS(%v) = %d, want %d", c.d, got, c.want)
		}
	}
}
