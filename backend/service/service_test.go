package service

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"net"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loopforge/loopforge/backend/config"
	"github.com/loopforge/loopforge/backend/event"
	"github.com/loopforge/loopforge/backend/journal"
	"github.com/loopforge/loopforge/backend/provider"
	"github.com/loopforge/loopforge/backend/sandbox"
	"github.com/loopforge/loopforge/backend/store"
)

func TestMain(m *testing.M) {
	sandbox.RunChildIfRequested() // the test binary is the sandbox shim
	os.Exit(m.Run())
}

// echoModel answers every generation with a fenced program taken from its
// answers list (the last one repeats); reflections get a fixed text. gate,
// when set, is waited on before each answer.
type echoModel struct {
	mu      sync.Mutex
	answers []string
	calls   int
	gate    chan struct{}
	usage   provider.Usage // reported by every answer
}

func (m *echoModel) Capabilities() provider.Capabilities { return provider.Capabilities{} }

func (m *echoModel) Stream(ctx context.Context, req provider.Request) iter.Seq2[provider.Delta, error] {
	m.mu.Lock()
	var text string
	if strings.Contains(req.System, "review") {
		text = "It failed; fix it."
	} else {
		i := min(m.calls, len(m.answers)-1)
		m.calls++
		text = "```python\n" + m.answers[i] + "\n```"
	}
	m.mu.Unlock()
	return func(yield func(provider.Delta, error) bool) {
		if m.gate != nil {
			select {
			case <-m.gate:
			case <-ctx.Done():
				yield(provider.Delta{}, ctx.Err())
				return
			}
		}
		for _, w := range strings.SplitAfter(text, "\n") {
			if !yield(provider.Delta{Text: w}, nil) {
				return
			}
		}
		yield(provider.Delta{Done: &provider.Response{Content: text, Usage: m.usage}}, nil)
	}
}

func newService(t *testing.T, m *echoModel) *Service {
	t.Helper()
	home := t.TempDir()
	cfg, err := config.Load(config.Options{LookupEnv: func(k string) (string, bool) {
		if k == "LOOPFORGE_HOME" {
			return home, true
		}
		return "", false
	}})
	if err != nil {
		t.Fatal(err)
	}
	cfg.Profiles["fake"] = provider.Profile{Name: "fake", Kind: "fake"}
	cfg.Order = append([]string{"fake"}, cfg.Order...)
	reg := DefaultRegistry()
	reg["fake"] = func(provider.Profile) (provider.Provider, error) { return namedModel{m}, nil }
	svc, err := New(context.Background(), Options{Config: cfg, Registry: reg})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Close() })
	return svc
}

type namedModel struct{ *echoModel }

func (namedModel) Name() string { return "fake" }

func collect(t *testing.T, svc *Service, runID string, after int64) []event.Event {
	t.Helper()
	var evs []event.Event
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := svc.Follow(ctx, runID, after, func(e event.Event) error { evs = append(evs, e); return nil }); err != nil {
		t.Fatal(err)
	}
	return evs
}

func TestRunIsRecordedAndReplayable(t *testing.T) {
	svc := newService(t, &echoModel{answers: []string{"print(1/0)", "print('ok')"}})
	ctx := context.Background()
	info, err := svc.StartRun(ctx, RunRequest{Prompt: "divide", Provider: "fake"})
	if err != nil {
		t.Fatal(err)
	}
	evs := collect(t, svc, info.RunID, 0)
	for i, e := range evs {
		if e.Seq != int64(i+1) || e.RunID != info.RunID {
			t.Fatalf("event %d has seq %d run %s", i, e.Seq, e.RunID)
		}
	}
	if evs[0].Type != event.RunStarted || !evs[len(evs)-1].Terminal() {
		t.Fatalf("first %s last %s", evs[0].Type, evs[len(evs)-1].Type)
	}
	run, err := svc.Wait(ctx, info.RunID)
	if err != nil || run.Status != "success" || run.Iterations != 2 || run.FinalCode != "print('ok')\n" {
		t.Fatalf("%+v %v", run, err)
	}

	// Resume from the middle: exactly the rest, from the store.
	rest := collect(t, svc, info.RunID, 5)
	if len(rest) != len(evs)-5 || rest[0].Seq != 6 {
		t.Fatalf("resume after 5 gave %d events starting at %d; want %d from 6", len(rest), rest[0].Seq, len(evs)-5)
	}

	d, err := svc.Session(ctx, info.SessionID)
	if err != nil {
		t.Fatal(err)
	}
	its := d.Iterations[info.RunID]
	if len(its) != 2 || its[0].ExecStatus != "error" || !strings.Contains(its[0].Stderr, "ZeroDivisionError") ||
		its[0].Reflection != "It failed; fix it." || its[1].Status != "success" || its[1].Stdout != "ok\n" {
		t.Fatalf("iterations: %+v", its)
	}
}

func TestUnknownProviderWritesNothing(t *testing.T) {
	svc := newService(t, &echoModel{answers: []string{"print(1)"}})
	_, err := svc.StartRun(context.Background(), RunRequest{Prompt: "x", Provider: "nope"})
	if !errors.Is(err, provider.ErrUnknownProvider) {
		t.Fatalf("%v", err)
	}
	if list, _ := svc.Sessions(context.Background(), "", 10); len(list) != 0 {
		t.Fatalf("a session was written: %+v", list)
	}
}

func TestCancelKillsRunningCode(t *testing.T) {
	svc := newService(t, &echoModel{answers: []string{"import time\nprint('start', flush=True)\ntime.sleep(600)"}})
	ctx := context.Background()
	info, err := svc.StartRun(ctx, RunRequest{Prompt: "sleep", Provider: "fake", TimeoutSeconds: 10 * 60})
	if err != nil {
		t.Fatal(err)
	}
	var evs []event.Event
	err = svc.Follow(ctx, info.RunID, 0, func(e event.Event) error {
		evs = append(evs, e)
		// Cancel once the program has printed: it is then surely running
		// (ExecStarted comes before the interpreter has started).
		var out event.ExecOutputPayload
		if e.Type == event.ExecOutput && e.Decode(&out) == nil && strings.Contains(out.Text, "start") {
			return svc.Cancel(info.RunID)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	run, _ := svc.Wait(ctx, info.RunID)
	if run.Status != "cancelled" {
		t.Fatalf("status %s", run.Status)
	}
	var fin event.RunFinishedPayload
	_ = evs[len(evs)-1].Decode(&fin)
	if fin.Status != "cancelled" {
		t.Fatalf("run_finished says %s", fin.Status)
	}
}

func TestSlowSubscriberIsDroppedWithoutBlockingTheRun(t *testing.T) {
	gate := make(chan struct{})
	m := &echoModel{answers: []string{"print('x')\n" + strings.Repeat("# filler line\n", journal.SubscriberBuffer+100)}, gate: gate}
	svc := newService(t, m)
	ctx := context.Background()
	info, err := svc.StartRun(ctx, RunRequest{Prompt: "x", Provider: "fake"})
	if err != nil {
		t.Fatal(err)
	}
	sub, err := svc.Subscribe(ctx, info.RunID, 0) // never read until the run ends
	if err != nil {
		t.Fatal(err)
	}
	close(gate)
	run, err := svc.Wait(ctx, info.RunID) // returns although nobody reads sub
	if err != nil || run.Status != "success" {
		t.Fatalf("%+v %v", run, err)
	}
	var n int
	for range sub.C {
		n++
	}
	if !errors.Is(sub.Err(), ErrDropped) {
		t.Fatalf("slow subscriber not dropped: got %d events, err %v", n, sub.Err())
	}
	// Follow catches up from the store after being dropped: nothing lost.
	all := collect(t, svc, info.RunID, 0)
	if last := lastSeq(t, svc, info.RunID); int64(len(all)) != last {
		t.Fatalf("follow got %d events, store has %d", len(all), last)
	}
}

func TestFollowUpUsesThread(t *testing.T) {
	svc := newService(t, &echoModel{answers: []string{"print(1)"}})
	ctx := context.Background()
	first, err := svc.StartRun(ctx, RunRequest{Prompt: "one", Provider: "fake"})
	if err != nil {
		t.Fatal(err)
	}
	collect(t, svc, first.RunID, 0)
	second, err := svc.StartRun(ctx, RunRequest{Prompt: "two", Provider: "fake", SessionID: first.SessionID})
	if err != nil {
		t.Fatal(err)
	}
	collect(t, svc, second.RunID, 0)
	msgs, err := svc.store.ListMessages(ctx, second.RunID)
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) != 4 || msgs[0].Content != "one" || msgs[2].Content != "two" {
		t.Fatalf("thread: %+v", msgs)
	}
	d, _ := svc.Session(ctx, first.SessionID)
	if len(d.Runs) != 2 || d.Runs[0].Prompt != "one" || d.Runs[1].Prompt != "two" {
		t.Fatalf("runs in session: %+v", d.Runs)
	}
}

func TestInterruptedRunsAreMarked(t *testing.T) {
	home := t.TempDir()
	cfg, _ := config.Load(config.Options{LookupEnv: func(k string) (string, bool) {
		if k == "LOOPFORGE_HOME" {
			return home, true
		}
		return "", false
	}})
	st, err := store.Open(context.Background(), cfg.DBPath)
	if err != nil {
		t.Fatal(err)
	}
	sess := &store.Session{Prompt: "p", Title: "p"}
	_ = st.CreateSession(context.Background(), sess)
	run := &store.Run{SessionID: sess.ID, Provider: "x", Status: event.RunStatusRunning}
	_ = st.CreateRun(context.Background(), run)
	st.Close()

	svc, err := New(context.Background(), Options{Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	got, _ := svc.Wait(context.Background(), run.ID)
	if got.Status != event.RunStatusInterrupted {
		t.Fatalf("status %s", got.Status)
	}
	// Following an interrupted run ends instead of waiting forever.
	if err := svc.Follow(context.Background(), run.ID, 0, func(event.Event) error { return nil }); err != nil {
		t.Fatal(err)
	}
}

// finalExec returns the last exec_finished payload of a run.
func finalExec(t *testing.T, svc *Service, runID string) event.ExecPayload {
	t.Helper()
	var last event.ExecPayload
	found := false
	for _, e := range collect(t, svc, runID, 0) {
		if e.Type == event.ExecFinished {
			if err := e.Decode(&last); err != nil {
				t.Fatal(err)
			}
			found = true
		}
	}
	if !found {
		t.Fatal("no exec_finished event")
	}
	return last
}

func TestNetworkIsOptInPerRun(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	code := fmt.Sprintf("import socket\ns = socket.create_connection(('127.0.0.1', %d), timeout=5)\nprint('connected')", port)
	svc := newService(t, &echoModel{answers: []string{code}})
	ctx := context.Background()
	off := false

	info, err := svc.StartRun(ctx, RunRequest{Prompt: "connect", Provider: "fake", MaxIterations: 1, Reflect: &off})
	if err != nil {
		t.Fatal(err)
	}
	if run, _ := svc.Wait(ctx, info.RunID); run.Status == "success" {
		t.Fatalf("without the opt-in the code reached a local port: %+v", run)
	}
	if x := finalExec(t, svc, info.RunID); !x.Protections["network"] {
		t.Fatalf("network protection should be ticked without the opt-in: %+v", x)
	}

	info, err = svc.StartRun(ctx, RunRequest{Prompt: "connect", Provider: "fake", MaxIterations: 1, Reflect: &off, AllowNetwork: true})
	if err != nil {
		t.Fatal(err)
	}
	run, _ := svc.Wait(ctx, info.RunID)
	x := finalExec(t, svc, info.RunID)
	if run.Status != "success" || x.Stdout != "connected\n" || x.Protections["network"] {
		t.Fatalf("with the opt-in the code should connect and the tick be off: %+v %+v", run, x)
	}
	var started event.RunStartedPayload
	if err := collect(t, svc, info.RunID, 0)[0].Decode(&started); err != nil || !started.AllowNetwork {
		t.Fatalf("run_started should record the opt-in: %+v %v", started, err)
	}
}

func TestConfiguredLimitsReachTheSandbox(t *testing.T) {
	svc := newService(t, &echoModel{answers: []string{"b = bytearray(400 * 1024 * 1024)\nprint('allocated')"}})
	ctx := context.Background()
	off := false
	run := func() event.ExecPayload {
		info, err := svc.StartRun(ctx, RunRequest{Prompt: "allocate", Provider: "fake", MaxIterations: 1, Reflect: &off})
		if err != nil {
			t.Fatal(err)
		}
		svc.Wait(ctx, info.RunID)
		return finalExec(t, svc, info.RunID)
	}
	if x := run(); x.Status != "ok" {
		t.Fatalf("400 MiB fits the default 1 GiB limit: %+v", x)
	}
	svc.conf().Limits.MemoryBytes = 128 << 20
	if x := run(); x.Status != "memory" {
		t.Fatalf("with limits.memory 128MiB the allocation should fail with status memory: %+v", x)
	}
}
