package loop

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/loopforge/loopforge/backend/event"
)

// outputWindow is how long the running code's output gathers before it is
// sent as exec_output events: a program printing a character at a time
// costs at most two events (one per stream) per window, not one per write.
const outputWindow = 50 * time.Millisecond

// liveOutput turns the running code's output into exec_output events. The
// sandbox's copying goroutines write into its streams, which never block
// (they only append under a lock); one goroutine of its own sends what
// arrived once per window, one event per stream that printed, and close
// sends the rest and waits for it. Each stream is sent up to limit bytes
// (the head the final exec_finished keeps); the event that reaches the limit
// is marked Capped and nothing more of that stream follows live.
//
// Within a stream nothing is reordered or dropped below the limit: events
// carry consecutive pieces. A multi-byte character split between two reads
// is held back until its end arrives, so every event is valid UTF-8.
type liveOutput struct {
	it     int
	limit  int
	window time.Duration
	send   func(event.ExecOutputPayload) error
	onErr  func(error) // called once when send fails (stops the execution)

	mu      sync.Mutex
	streams [2]liveStream
	closed  bool
	err     error

	wake chan struct{} // something is pending (1-buffered)
	stop chan struct{}
	done chan struct{}
}

type liveStream struct {
	name    string
	pending []byte // complete characters not yet sent
	partial []byte // the start of a character split by a read
	used    int    // bytes taken for live sending
	capped  bool   // limit reached; the Capped event is owed until capSent
	capSent bool
}

// newLiveOutput starts the sending goroutine; close must be called.
func newLiveOutput(it, limit int, window time.Duration, send func(event.ExecOutputPayload) error, onErr func(error)) *liveOutput {
	l := &liveOutput{it: it, limit: limit, window: window, send: send, onErr: onErr,
		wake: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	l.streams[0].name, l.streams[1].name = event.StreamStdout, event.StreamStderr
	go l.run()
	return l
}

// stdout and stderr are the writers for the sandbox's live streams.
func (l *liveOutput) stdout() io.Writer { return streamWriter{l, 0} }
func (l *liveOutput) stderr() io.Writer { return streamWriter{l, 1} }

type streamWriter struct {
	l *liveOutput
	i int
}

// Write takes what fits under the limit and never fails: the sandbox keeps
// the capped copy whatever happens here.
func (w streamWriter) Write(p []byte) (int, error) {
	w.l.take(w.i, p)
	return len(p), nil
}

func (l *liveOutput) take(i int, p []byte) {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := &l.streams[i]
	if l.closed || s.capped || len(p) == 0 {
		return
	}
	if room := l.limit - s.used; len(p) > room {
		p, s.capped = p[:max(room, 0)], true
	}
	s.used += len(p)
	data := append(s.partial, p...)
	cut := completeEnd(data)
	s.pending = append(s.pending, data[:cut]...)
	s.partial = append([]byte(nil), data[cut:]...)
	if s.capped { // a character cut by the limit is dropped with the rest
		s.partial = nil
	}
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

// completeEnd is the length of the longest prefix of b that does not end
// inside a multi-byte character.
func completeEnd(b []byte) int {
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax+1; i-- {
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				return i
			}
			return len(b)
		}
	}
	return len(b)
}

func (l *liveOutput) run() {
	defer close(l.done)
	defer func() {
		if v := recover(); v != nil {
			l.fail(fmt.Errorf("live output: internal error: %v", v))
		}
	}()
	for {
		select {
		case <-l.wake:
		case <-l.stop:
			l.flush(true)
			return
		}
		// Let the window fill: one event per stream for all of it.
		t := time.NewTimer(l.window)
		select {
		case <-t.C:
		case <-l.stop:
			t.Stop()
			l.flush(true)
			return
		}
		l.flush(false)
	}
}

// flush sends what is pending, stdout first; final also sends a split
// character that will never be completed (as U+FFFD).
func (l *liveOutput) flush(final bool) {
	l.mu.Lock()
	var out []event.ExecOutputPayload
	for i := range l.streams {
		s := &l.streams[i]
		if final && len(s.partial) > 0 {
			s.pending, s.partial = append(s.pending, s.partial...), nil
		}
		owed := s.capped && !s.capSent
		if len(s.pending) == 0 && !owed {
			continue
		}
		out = append(out, event.ExecOutputPayload{Iteration: l.it, Stream: s.name,
			Text: strings.ToValidUTF8(string(s.pending), "\uFFFD"), Capped: owed})
		s.pending, s.capSent = nil, s.capped
	}
	failed := l.err != nil
	l.mu.Unlock()
	if failed {
		return
	}
	for _, p := range out {
		if err := l.send(p); err != nil {
			l.fail(err)
			return
		}
	}
}

func (l *liveOutput) fail(err error) {
	l.mu.Lock()
	first := l.err == nil
	if first {
		l.err = err
	}
	l.mu.Unlock()
	if first && l.onErr != nil {
		l.onErr(err)
	}
}

// close sends what is left and stops the goroutine; writes after it are
// ignored. It returns the first error of send.
func (l *liveOutput) close() error {
	l.mu.Lock()
	l.closed = true
	l.mu.Unlock()
	close(l.stop)
	<-l.done
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.err
}
