package journal

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/loopforge/loopforge/backend/event"
	"github.com/loopforge/loopforge/backend/store"
)

// A child process of this test binary streams a run's tokens through a
// journal and prints every event its subscriber gets, as a page would see
// them (TestMain). These variables configure it.
const (
	childDBEnv      = "LOOPFORGE_JOURNAL_CHILD_DB"
	childWindowEnv  = "LOOPFORGE_JOURNAL_CHILD_WINDOW"
	childUnsavedEnv = "LOOPFORGE_JOURNAL_CHILD_MAX_UNSAVED"
	// childTokensEnv: that many tokens, then the run waits to be killed;
	// 0: tokens until killed, each once the page has printed the one before.
	childTokensEnv = "LOOPFORGE_JOURNAL_CHILD_TOKENS"
	childOwner     = "journal-test-child"
)

func TestMain(m *testing.M) {
	if db := os.Getenv(childDBEnv); db != "" {
		if err := streamChild(db); err != nil {
			fmt.Fprintln(os.Stderr, "child:", err)
			os.Exit(2)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// streamChild is the child: a run in a real history whose events a
// subscriber prints on stdout, one JSON line each, while tokens stream
// (until the parent kills this process).
func streamChild(db string) error {
	ctx := context.Background()
	window, err := time.ParseDuration(os.Getenv(childWindowEnv))
	if err != nil {
		return err
	}
	maxUnsaved, _ := strconv.Atoi(os.Getenv(childUnsavedEnv))
	tokens, _ := strconv.Atoi(os.Getenv(childTokensEnv))
	st, err := store.Open(ctx, db)
	if err != nil {
		return err
	}
	sess := &store.Session{Title: "t", Prompt: "p", Mode: "script"}
	if err := st.CreateSession(ctx, sess); err != nil {
		return err
	}
	run := &store.Run{SessionID: sess.ID, Provider: "fake", Prompt: "p", Status: event.RunStatusRunning, Owner: childOwner}
	if err := st.CreateRun(ctx, run); err != nil {
		return err
	}
	j := New(st, Options{Window: window, MaxUnsaved: maxUnsaved})
	r := j.Open(run.ID)
	if err := r.EmitNow(event.New(event.RunStarted, event.RunStartedPayload{Prompt: "p"})); err != nil {
		return err
	}
	printed := make(chan int64, 1)
	go func() {
		enc := json.NewEncoder(os.Stdout) // unbuffered: a line printed is a line the page saw
		_ = j.Follow(ctx, run.ID, 0, func(e event.Event) error {
			if err := enc.Encode(e); err != nil {
				return err
			}
			select {
			case printed <- e.Seq:
			default:
			}
			return nil
		})
	}()
	for i := 0; tokens == 0 || i < tokens; i++ {
		if err := r.Emit(token(1, event.PhaseGenerate, fmt.Sprintf("t%d ", i))); err != nil {
			return err
		}
		if tokens == 0 { // at the page's pace
			for seq := r.Seq(); <-printed < seq; {
			}
		}
	}
	// Mid-stream: the run goes on until the process is killed. Waiting
	// for a signal, not a bare select{}, which the runtime could take for
	// a deadlock once every goroutine waits; the parent's SIGKILL ends it.
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM)
	<-stop
	return nil
}

// TestReconnectAcrossKillAndRecovery: a process streaming a run is killed
// with SIGKILL mid-stream, after its page saw tokens the history may never
// have got; the next process recovers the run (store.MarkInterrupted), and
// the page, reconnecting from the last seq it saw, must get the run's end.
func TestReconnectAcrossKillAndRecovery(t *testing.T) {
	cases := []struct {
		name       string
		window     time.Duration
		maxUnsaved int
		tokens     int   // 0: endless
		killAfter  int64 // seq the page must have seen
		unstored   bool  // the page surely saw seqs the history never got
	}{
		// Nothing is written after run_started: every token seen is lost.
		{"tokens never written", time.Hour, 0, 50, 51, true},
		// The ordinary window, tokens streaming at the page's pace.
		{"default window", DefaultWindow, 0, 0, 5000, false},
		// A backlog larger than the gap: the page sees no further than it.
		{"backlog past the gap", time.Hour, 2 * store.SeqGap, store.SeqGap + 100, 1 + store.SeqGap, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			db := filepath.Join(t.TempDir(), "history.db")
			seen, runID := killMidStream(t, db, c.window, c.maxUnsaved, c.tokens, c.killAfter)
			if c.tokens > 0 && seen > c.killAfter {
				t.Fatalf("the page saw #%d, more than %d past the stored run_started", seen, store.SeqGap)
			}
			checkRecovery(t, db, runID, seen, c.unstored)
		})
	}
}

// killMidStream starts the child, reads what its page prints until it has
// seen seq killAfter, kills it with SIGKILL and returns the last seq the
// page printed (its whole output, read to the end) and the run's ID.
func killMidStream(t *testing.T, db string, window time.Duration, maxUnsaved, tokens int, killAfter int64) (int64, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childDBEnv+"="+db, childWindowEnv+"="+window.String(),
		childUnsavedEnv+"="+strconv.Itoa(maxUnsaved), childTokensEnv+"="+strconv.Itoa(tokens))
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr lockedBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	killed := false
	t.Cleanup(func() {
		if !killed {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	})
	var (
		seen  int64
		runID string
	)
	lines := bufio.NewScanner(stdout)
	lines.Buffer(nil, 1<<20)
	for lines.Scan() {
		var e event.Event
		if err := json.Unmarshal(lines.Bytes(), &e); err != nil {
			t.Fatalf("the child printed %q: %v", lines.Text(), err)
		}
		if e.Seq <= seen {
			t.Fatalf("the page saw #%d after #%d", e.Seq, seen)
		}
		seen, runID = e.Seq, e.RunID
		if seen >= killAfter && !killed {
			if err := cmd.Process.Kill(); err != nil { // SIGKILL
				t.Fatal(err)
			}
			killed = true
			// Read on: what the page printed before the kill was seen.
		}
	}
	_ = cmd.Wait()
	if !killed {
		t.Fatalf("the child ended before the page saw #%d (saw #%d): %v\n%s", killAfter, seen, lines.Err(), stderr.String())
	}
	return seen, runID
}

// checkRecovery recovers the killed run as the next process does, then
// reconnects from seen: the run's end must come, after every seq seen.
func checkRecovery(t *testing.T, db, runID string, seen int64, unstored bool) {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	before, err := st.EventsAfter(ctx, runID, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	stored := before[len(before)-1].Seq
	t.Logf("the page saw #%d, the history holds #1…#%d", seen, stored)
	if unstored && stored >= seen {
		t.Fatalf("the history holds #%d, the page saw #%d: the kill lost nothing the page saw", stored, seen)
	}
	if n, err := st.MarkInterrupted(ctx, []string{childOwner}, nil); err != nil || n != 1 {
		t.Fatalf("MarkInterrupted = %d, %v; want the killed run", n, err)
	}
	j := New(st, Options{})
	defer j.Close()
	var got []event.Event
	rctx, cancel := context.WithTimeout(ctx, time.Minute) // only so a broken reconnect fails instead of hanging
	defer cancel()
	if err := j.Follow(rctx, runID, seen, func(e event.Event) error { got = append(got, e); return nil }); err != nil {
		t.Fatal(err)
	}
	var p event.RunFinishedPayload
	if len(got) != 1 || !got[0].Terminal() || got[0].Decode(&p) != nil || p.Status != event.RunStatusInterrupted {
		t.Fatalf("reconnecting after #%d gave %d events %+v; want the run's interrupted end", seen, len(got), got)
	}
	if got[0].Seq <= seen {
		t.Fatalf("the end has seq %d, one the page saw already (#%d)", got[0].Seq, seen)
	}
}
