//go:build linux

package sandbox

import (
	"bytes"
	"context"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// liveCopy is a Request.LiveStdout/LiveStderr that records what it was
// given and signals when its text first contains want.
type liveCopy struct {
	want string
	seen chan struct{}

	mu  sync.Mutex
	buf bytes.Buffer
}

func newLiveCopy(want string) *liveCopy { return &liveCopy{want: want, seen: make(chan struct{})} }

func (l *liveCopy) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	had := strings.Contains(l.buf.String(), l.want)
	l.buf.Write(p)
	if !had && strings.Contains(l.buf.String(), l.want) {
		close(l.seen)
	}
	return len(p), nil
}

func (l *liveCopy) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// waitSeen waits for the live copy to show its text; the bound only ends a
// broken test.
func waitSeen(t *testing.T, l *liveCopy, what string) {
	t.Helper()
	select {
	case <-l.seen:
	case <-time.After(time.Minute):
		t.Fatalf("%s never arrived live (got %q)", what, l.String())
	}
}

// TestLiveOutputBeforeTheEnd: what the program prints reaches the live
// writers while it still runs. The program cannot end by itself (it sleeps
// for an hour under a longer timeout): the run ends only because the test
// cancels it, which it does once both lines arrived. The cancelled run's
// result keeps them too.
func TestLiveOutputBeforeTheEnd(t *testing.T) {
	forEachLevel(t, func(t *testing.T, level string, r *Runner) {
		out, errw := newLiveCopy("first line\n"), newLiveCopy("a warning\n")
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		code := "import sys, time\nprint('first line')\nprint('a warning', file=sys.stderr)\ntime.sleep(3600)"
		done := make(chan Result, 1)
		m := newMarker()
		go func() {
			res, err := r.Run(withMarker(ctx, m), Request{Code: code, Limits: Limits{Timeout: 2 * time.Hour}, LiveStdout: out, LiveStderr: errw})
			if err != nil {
				t.Errorf("Run: %v", err)
			}
			done <- res
		}()
		waitSeen(t, out, "stdout")
		waitSeen(t, errw, "stderr")
		select {
		case res := <-done:
			t.Fatalf("the run ended before it was cancelled: %s %q", res.Status, res.Stderr)
		default:
		}
		cancel()
		res := <-done
		wantNoSurvivors(t, m)
		wantStatus(t, res, StatusKilled)
		if res.Stdout != "first line\n" || res.Stderr != "a warning\n" {
			t.Errorf("the stopped run kept stdout %q, stderr %q", res.Stdout, res.Stderr)
		}
		if out.String() != "first line\n" || errw.String() != "a warning\n" {
			t.Errorf("live copies %q, %q", out.String(), errw.String())
		}
	})
}

// TestLiveOutputWhole: the live copy of a finished run is the whole stream,
// in order, chunked however the pipe delivered it.
func TestLiveOutputWhole(t *testing.T) {
	t.Parallel()
	out, errw := newLiveCopy("\x00"), newLiveCopy("\x00")
	code := "import sys\nfor i in range(2000):\n    print(i)\n    if i % 100 == 0: print('e', i, file=sys.stderr)"
	res := run(t, Request{Code: code, LiveStdout: out, LiveStderr: errw})
	wantStatus(t, res, StatusOK)
	var want, wantErr strings.Builder
	for i := range 2000 {
		want.WriteString(strconv.Itoa(i) + "\n")
		if i%100 == 0 {
			wantErr.WriteString("e " + strconv.Itoa(i) + "\n")
		}
	}
	if out.String() != want.String() || res.Stdout != want.String() {
		t.Errorf("live stdout %d bytes, result %d bytes, want %d", len(out.String()), len(res.Stdout), want.Len())
	}
	if errw.String() != wantErr.String() {
		t.Errorf("live stderr %q, want %q", errw.String(), wantErr.String())
	}
}
