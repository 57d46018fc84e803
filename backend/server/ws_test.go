package server

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"iter"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/loopforge/loopforge/backend/config"
	"github.com/loopforge/loopforge/backend/event"
	"github.com/loopforge/loopforge/backend/provider"
	"github.com/loopforge/loopforge/backend/sandbox"
	"github.com/loopforge/loopforge/backend/service"
	"github.com/loopforge/loopforge/backend/testwait"
	"github.com/loopforge/loopforge/backend/wire"
)

func TestMain(m *testing.M) {
	sandbox.RunChildIfRequested()
	os.Exit(m.Run())
}

// wordModel streams a fixed program one line at a time; each line waits on
// gate when gate is set, so a test controls the run's pace.
type wordModel struct {
	lines int
	width int // filler characters per line
	gate  chan struct{}
	// program, when set, ends the program (after its print).
	program string
}

func (wordModel) Name() string                        { return "fake" }
func (wordModel) Capabilities() provider.Capabilities { return provider.Capabilities{} }

// Models makes it a provider with a models list (GET /api/providers/fake/models).
func (wordModel) Models(context.Context) ([]provider.Model, error) {
	return []provider.Model{{ID: "fake-2"}, {ID: "fake-1", Name: "Fake One"}}, nil
}
func (m wordModel) Stream(ctx context.Context, _ provider.Request) iter.Seq2[provider.Delta, error] {
	return func(yield func(provider.Delta, error) bool) {
		var all strings.Builder
		send := func(s string) bool {
			if m.gate != nil {
				select {
				case <-m.gate:
				case <-ctx.Done():
					yield(provider.Delta{}, ctx.Err())
					return false
				}
			}
			all.WriteString(s)
			return yield(provider.Delta{Text: s}, nil)
		}
		if !send("```python\n") {
			return
		}
		for i := 0; i < m.lines; i++ {
			if !send("# " + strings.Repeat("x", m.width) + "\n") {
				return
			}
		}
		if !send("print('ok')\n" + m.program + "```\n") {
			return
		}
		yield(provider.Delta{Done: &provider.Response{Content: all.String()}}, nil)
	}
}

// newBackend is a real service whose profile "fake", and each of also, is m.
func newBackend(t *testing.T, m wordModel, also ...string) *service.Service {
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
	reg := service.DefaultRegistry()
	for _, name := range slices.Backward(append([]string{"fake"}, also...)) {
		cfg.Profiles[name] = provider.Profile{Name: name, Kind: name}
		cfg.Order = append([]string{name}, cfg.Order...)
		reg[name] = func(provider.Profile) (provider.Provider, error) { return m, nil }
	}
	svc, err := service.New(context.Background(), service.Options{Config: cfg, Registry: reg})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Close() })
	return svc
}

func apiServer(t *testing.T, b *service.Service) (*httptest.Server, string) {
	t.Helper()
	tok := NewToken()
	ts := httptest.NewServer(New(Options{Token: tok, Backend: b}))
	t.Cleanup(ts.Close)
	return ts, tok
}

func dial(t *testing.T, ts *httptest.Server, tok, origin string) (*websocket.Conn, *http.Response, error) {
	t.Helper()
	h := http.Header{}
	if origin != "" {
		h.Set("Origin", origin)
	}
	return websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(ts.URL, "http")+"/api/ws?token="+tok, h)
}

func startRun(t *testing.T, ts *httptest.Server, tok string) service.RunInfo {
	t.Helper()
	req, _ := http.NewRequest("POST", ts.URL+"/api/runs", strings.NewReader(`{"prompt":"p","provider":"fake","max_iterations":1}`))
	req.Header.Set("Authorization", "Bearer "+tok)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var info service.RunInfo
	if err := json.NewDecoder(resp.Body).Decode(&info); err != nil || resp.StatusCode != http.StatusCreated {
		t.Fatalf("start run: %d %v", resp.StatusCode, err)
	}
	return info
}

func readUntilFinished(t *testing.T, c *websocket.Conn) []event.Event {
	t.Helper()
	_ = c.SetReadDeadline(time.Now().Add(time.Minute))
	var evs []event.Event
	for {
		var e event.Event
		if err := c.ReadJSON(&e); err != nil {
			t.Fatalf("after %d events: %v", len(evs), err)
		}
		evs = append(evs, e)
		if e.Terminal() {
			return evs
		}
	}
}

func TestWebsocketStreamsAndResumes(t *testing.T) {
	svc := newBackend(t, wordModel{lines: 20})
	ts, tok := apiServer(t, svc)
	info := startRun(t, ts, tok)

	c, _, err := dial(t, ts, tok, ts.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.WriteJSON(wire.StreamRequest{Op: "subscribe", RunID: info.RunID})
	all := readUntilFinished(t, c)
	for i, e := range all {
		if e.Seq != int64(i+1) {
			t.Fatalf("event %d has seq %d", i, e.Seq)
		}
	}

	// A reconnecting client asks for what it missed: no gap, no duplicate.
	c2, _, err := dial(t, ts, tok, "")
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	_ = c2.WriteJSON(wire.StreamRequest{Op: "subscribe", RunID: info.RunID, After: 10})
	rest := readUntilFinished(t, c2)
	if len(rest) != len(all)-10 || rest[0].Seq != 11 {
		t.Fatalf("resume after 10: %d events from %d; want %d from 11", len(rest), rest[0].Seq, len(all)-10)
	}
}

func TestWebsocketGuards(t *testing.T) {
	svc := newBackend(t, wordModel{})
	ts, tok := apiServer(t, svc)
	if _, resp, err := dial(t, ts, "wrong", ""); err == nil || resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("no token: %v", err)
	}
	if _, resp, err := dial(t, ts, tok, "http://evil.example"); err == nil || resp.StatusCode != http.StatusForbidden {
		t.Fatalf("foreign origin: %v", err)
	}
	c, _, err := dial(t, ts, tok, "")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.WriteJSON(wire.StreamRequest{Op: "subscribe", RunID: "nope"})
	var e event.Event
	_ = c.SetReadDeadline(time.Now().Add(30 * time.Second))
	if err := c.ReadJSON(&e); err != nil || e.Type != "error" || !strings.Contains(string(e.Payload), "not found") {
		t.Fatalf("unknown run: %+v %v", e, err)
	}
}

func TestSlowWebsocketClientIsDroppedWithoutBlockingTheRun(t *testing.T) {
	gate := make(chan struct{})
	svc := newBackend(t, wordModel{lines: 3 * wsSendBuffer, width: 100, gate: gate})
	// Tiny socket buffers, so the client's silence reaches the server's send
	// queue after a few kilobytes instead of megabytes.
	tok := NewToken()
	ts := httptest.NewUnstartedServer(New(Options{Token: tok, Backend: svc}))
	ts.Listener = smallBufListener{ts.Listener}
	ts.Start()
	defer ts.Close()
	info := startRun(t, ts, tok)

	// Subscribe, then never read: the client's socket buffers fill up.
	d := websocket.Dialer{NetDial: func(network, addr string) (net.Conn, error) {
		conn, err := net.Dial(network, addr)
		if tc, ok := conn.(*net.TCPConn); ok {
			_ = tc.SetReadBuffer(4096)
		}
		return conn, err
	}}
	c, _, err := d.Dial("ws"+strings.TrimPrefix(ts.URL, "http")+"/api/ws?token="+tok, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.WriteJSON(wire.StreamRequest{Op: "subscribe", RunID: info.RunID})
	close(gate)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	run, err := svc.Wait(ctx, info.RunID)
	if err != nil || run.Status != "success" {
		t.Fatalf("the run should finish although the client never reads: %+v %v", run, err)
	}
	// The server closed the connection (with 1013 when the close frame could
	// still be written, else the socket just ends).
	_ = c.SetReadDeadline(time.Now().Add(time.Minute))
	for {
		if _, _, err := c.ReadMessage(); err != nil {
			if !websocket.IsCloseError(err, websocket.CloseTryAgainLater, websocket.CloseAbnormalClosure) {
				t.Fatalf("want the connection closed, got %v", err)
			}
			break
		}
	}
}

func TestRunAPIErrors(t *testing.T) {
	svc := newBackend(t, wordModel{})
	ts, tok := apiServer(t, svc)
	for body, want := range map[string]int{
		`{"prompt":"p","provider":"skynet"}`:                   http.StatusBadRequest,
		`{"prompt":"","provider":"fake"}`:                      http.StatusBadRequest,
		`{"prompt":"p","provider":"openai"}`:                   http.StatusBadRequest, // no key
		`{"prompt":"p","bogus":1}`:                             http.StatusBadRequest,
		`{"prompt":"p","provider":"fake","max_iterations":-1}`: http.StatusBadRequest,
	} {
		req, _ := http.NewRequest("POST", ts.URL+"/api/runs", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+tok)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var e map[string]string
		_ = json.NewDecoder(resp.Body).Decode(&e)
		resp.Body.Close()
		if resp.StatusCode != want || e["error"] == "" {
			t.Errorf("%s: %d %v, want %d with a message", body, resp.StatusCode, e, want)
		}
	}
	req, _ := http.NewRequest("GET", ts.URL+"/api/sessions/nope", nil)
	req.Header.Set("Authorization", "Bearer "+tok)
	resp, _ := http.DefaultClient.Do(req)
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Fatalf("missing session: %d", resp.StatusCode)
	}
	req, _ = http.NewRequest("GET", ts.URL+"/api/defaults", nil)
	req.Header.Set("Authorization", "Bearer "+tok)
	resp, _ = http.DefaultClient.Do(req)
	var d service.Defaults
	_ = json.NewDecoder(resp.Body).Decode(&d)
	resp.Body.Close()
	if d.MaxIterations != 5 || !d.Reflect || d.TimeoutSeconds != 30 || d.Language != "python" || d.Provider != "" {
		t.Fatalf("defaults %+v", d)
	}
	if d.Limits.MemoryBytes != 1<<30 || d.Limits.Processes != 128 || d.Limits.OutputBytes != 8<<20 ||
		d.CommandTimeoutSeconds != 300 || !d.CommandsSandboxed {
		t.Fatalf("limits in the defaults: %+v", d)
	}
}

type smallBufListener struct{ net.Listener }

func (l smallBufListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetWriteBuffer(4096)
	}
	return c, err
}

func TestCompareAPI(t *testing.T) {
	svc := newBackend(t, wordModel{})
	ts, tok := apiServer(t, svc)
	do := func(method, path, body string) (*http.Response, []byte) {
		req, _ := http.NewRequest(method, ts.URL+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+tok)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var b strings.Builder
		_, _ = io.Copy(&b, resp.Body)
		return resp, []byte(b.String())
	}
	resp, body := do("POST", "/api/compare", `{"prompt":"p","providers":["fake"]}`)
	if resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("one provider: %d %s", resp.StatusCode, body)
	}
	svc.Config().Profiles["fake2"] = provider.Profile{Name: "fake2", Kind: "fake"}
	resp, body = do("POST", "/api/compare", `{"prompt":"p","providers":["fake","fake2"],"max_iterations":1}`)
	var info service.CompareInfo
	if err := json.Unmarshal(body, &info); err != nil || resp.StatusCode != http.StatusCreated || len(info.Runs) != 2 {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	for _, r := range info.Runs {
		if _, err := svc.Wait(context.Background(), r.RunID); err != nil {
			t.Fatal(err)
		}
	}
	resp, body = do("GET", "/api/sessions/"+info.SessionID+"/comparison", "")
	var rows []service.ComparisonRow
	if err := json.Unmarshal(body, &rows); err != nil || resp.StatusCode != 200 || len(rows) != 2 || rows[1].Provider != "fake2" {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
}

// wsServer is apiServer with the *Server at hand and a short ping interval.
func wsServer(t *testing.T, b *service.Service, ping time.Duration) (*Server, *httptest.Server, string) {
	t.Helper()
	tok := NewToken()
	srv := New(Options{Token: tok, Backend: b, PingInterval: ping})
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	return srv, ts, tok
}

// waitFor polls cond until it holds, failing the test after a minute.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	testwait.Until(t, what, time.Minute, cond)
}

// A client that reads but never answers the server's pings (a peer gone
// without closing looks like this to the server) is disconnected.
func TestWebsocketDropsClientThatStopsAnsweringPings(t *testing.T) {
	svc := newBackend(t, wordModel{})
	_, ts, tok := wsServer(t, svc, 50*time.Millisecond)
	c, _, err := dial(t, ts, tok, "")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var pings atomic.Int32
	c.SetPingHandler(func(string) error { pings.Add(1); return nil }) // no pong
	_ = c.SetReadDeadline(time.Now().Add(time.Minute))                // only a safety net
	_, _, err = c.ReadMessage()
	var ne net.Error
	if err == nil || (errors.As(err, &ne) && ne.Timeout()) {
		t.Fatalf("want the server to close the connection, got %v", err)
	}
	if pings.Load() == 0 {
		t.Fatalf("closed (%v) before any ping", err)
	}
}

// A client that answers the pings stays connected for many ping intervals.
// The interval is long enough (a pong may be late by up to one interval)
// that a loaded machine's scheduling delays do not look like a silent peer:
// at 100 ms this test failed once under a load average of 24.
func TestWebsocketKeepsClientThatAnswersPings(t *testing.T) {
	svc := newBackend(t, wordModel{})
	_, ts, tok := wsServer(t, svc, 700*time.Millisecond)
	c, _, err := dial(t, ts, tok, "")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	pings := make(chan struct{}, 100)
	c.SetPingHandler(func(data string) error {
		err := c.WriteControl(websocket.PongMessage, []byte(data), time.Now().Add(time.Second))
		pings <- struct{}{}
		return err
	})
	msgs := make(chan event.Event)
	readErr := make(chan error, 1)
	go func() {
		for {
			var e event.Event
			if err := c.ReadJSON(&e); err != nil {
				readErr <- err
				return
			}
			msgs <- e
		}
	}()
	// Four pings are twice the silence a client is allowed.
	for range 4 {
		select {
		case <-pings:
		case err := <-readErr:
			t.Fatalf("a client answering pings was dropped: %v", err)
		case <-time.After(time.Minute):
			t.Fatal("no ping")
		}
	}
	_ = c.WriteJSON(wire.StreamRequest{Op: wire.StreamOpSubscribe, RunID: "nope"})
	select {
	case e := <-msgs:
		if e.Type != "error" {
			t.Fatalf("want an error event, got %+v", e)
		}
	case err := <-readErr:
		t.Fatalf("a client answering pings was dropped: %v", err)
	case <-time.After(time.Minute):
		t.Fatal("no answer")
	}
}

// A subscription leaves the connection's map when its run finishes, when it
// fails, when it is unsubscribed, and a resubscribe replaces it.
func TestWebsocketFinishedSubscriptionsLeave(t *testing.T) {
	gate := make(chan struct{})
	svc := newBackend(t, wordModel{lines: 3, gate: gate})
	srv, ts, tok := wsServer(t, svc, 0)
	open := func(n int64) func() bool { return func() bool { return srv.wsSubs.Load() == n } }
	c, _, err := dial(t, ts, tok, "")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetReadDeadline(time.Now().Add(time.Minute))

	// An unknown run: the error is sent and the subscription is gone.
	_ = c.WriteJSON(wire.StreamRequest{Op: wire.StreamOpSubscribe, RunID: "nope"})
	var e event.Event
	if err := c.ReadJSON(&e); err != nil || e.Type != "error" {
		t.Fatalf("unknown run: %+v %v", e, err)
	}
	waitFor(t, "the failed subscription to leave", open(0))

	// A running run, subscribed twice (the second replaces the first), then
	// unsubscribed.
	info := startRun(t, ts, tok)
	_ = c.WriteJSON(wire.StreamRequest{Op: wire.StreamOpSubscribe, RunID: info.RunID})
	_ = c.WriteJSON(wire.StreamRequest{Op: wire.StreamOpSubscribe, RunID: info.RunID})
	waitFor(t, "one subscription", open(1))
	_ = c.WriteJSON(wire.StreamRequest{Op: wire.StreamOpUnsubscribe, RunID: info.RunID})
	waitFor(t, "the unsubscribed run to leave", open(0))

	// Subscribed again, the run finishes: it leaves, and the connection can
	// subscribe to the finished run once more.
	_ = c.WriteJSON(wire.StreamRequest{Op: wire.StreamOpSubscribe, RunID: info.RunID})
	waitFor(t, "the resubscription", open(1))
	close(gate)
	if _, err := svc.Wait(context.Background(), info.RunID); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the finished run to leave", open(0))
	// Whatever the earlier subscriptions sent is discarded up to the
	// terminal event of the last one.
	readUntilFinished(t, c)
	_ = c.WriteJSON(wire.StreamRequest{Op: wire.StreamOpSubscribe, RunID: info.RunID})
	all := readUntilFinished(t, c)
	if all[0].Seq != 1 {
		t.Fatalf("the replay starts at seq %d", all[0].Seq)
	}
	waitFor(t, "the replayed run to leave", open(0))
	if n := srv.wsSubs.Load(); n != 0 {
		t.Fatalf("%d subscriptions counted", n)
	}
}
