package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/loopforge/loopforge/backend/access"
	"github.com/loopforge/loopforge/backend/config"
	"github.com/loopforge/loopforge/backend/event"
	"github.com/loopforge/loopforge/backend/provider"
	"github.com/loopforge/loopforge/backend/service"
	"github.com/loopforge/loopforge/backend/store"
	"github.com/loopforge/loopforge/backend/wire"
)

// chatServer is an OpenAI-compatible model on httptest, streaming one
// program per answer: good's runs succeed at once, bad's always exit 3,
// held's answer nothing until the request ends (a run to cancel).
type chatServer struct{ program string }

func (c chatServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	if c.program == "" {
		<-r.Context().Done()
		return
	}
	var answer string
	if strings.Contains(r.URL.Path, "chat/completions") {
		answer = "```python\n" + c.program + "\n```\n"
	}
	w.Header().Set("Content-Type", "text/event-stream")
	chunk := func(v string) { fmt.Fprintf(w, "data: %s\n\n", v); w.(http.Flusher).Flush() }
	delta, _ := json.Marshal(answer)
	chunk(`{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":` + string(delta) + `},"finish_reason":null}]}`)
	chunk(`{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`)
	chunk(`{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[],"usage":{"prompt_tokens":12,"completion_tokens":7,"total_tokens":19}}`)
	chunk("[DONE]")
}

// repeatBackend is a real service (SQLite in a temp dir, the real sandbox)
// whose providers are OpenAI profiles pointing at chatServers.
func repeatBackend(t *testing.T) (*service.Service, *httptest.Server, string) {
	t.Helper()
	svc := newBackend(t, wordModel{})
	cfg := svc.Config()
	for name, program := range map[string]string{"good": "print('ok')", "bad": "raise SystemExit(3)", "held": ""} {
		ts := httptest.NewServer(chatServer{program: program})
		t.Cleanup(ts.Close)
		cfg.Profiles[name] = provider.Profile{Name: name, Kind: config.KindOpenAI, Model: "m-" + name, BaseURL: ts.URL + "/v1"}
		cfg.Order = append(cfg.Order, name)
	}
	ts, tok := apiServer(t, svc)
	return svc, ts, tok
}

func callAPI(t *testing.T, ts *httptest.Server, tok, method, path, body string, out any) int {
	t.Helper()
	req, _ := http.NewRequest(method, ts.URL+path, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+tok)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if out != nil && resp.StatusCode < 300 {
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("%s %s: %v in %s", method, path, err, b)
		}
	}
	if resp.StatusCode >= 300 && out != nil {
		if e, ok := out.(*wire.ErrorBody); ok {
			_ = json.Unmarshal(b, e)
		}
	}
	return resp.StatusCode
}

// followRepeat asks for each new version of the repeat's status (the long
// poll the app makes) until it ends, and returns every status seen.
func followRepeat(t *testing.T, ts *httptest.Server, tok string, st wire.RepeatStatus) []wire.RepeatStatus {
	t.Helper()
	seen := []wire.RepeatStatus{st}
	for st.State == "running" {
		var next wire.RepeatStatus
		if code := callAPI(t, ts, tok, "GET", fmt.Sprintf("/api/repeats/%s?after=%d", st.ID, st.Version), "", &next); code != http.StatusOK {
			t.Fatalf("repeat status: %d", code)
		}
		if next.Version < st.Version {
			t.Fatalf("version went back: %d after %d", next.Version, st.Version)
		}
		st = next
		seen = append(seen, st)
	}
	return seen
}

// TestRepeatOverTheWire: the app's repeat, over HTTP: two rounds with
// reflection on and off on two providers are eight real runs, four
// comparison sessions in the history; the progress counts them as they
// end and the summary is per provider × reflection.
func TestRepeatOverTheWire(t *testing.T) {
	_, ts, tok := repeatBackend(t)
	var st wire.RepeatStatus
	body := `{"prompt":"print ok","providers":["good","bad"],"max_iterations":2,"repeat":2,"reflect_ab":true}`
	if code := callAPI(t, ts, tok, "POST", "/api/repeats", body, &st); code != http.StatusCreated {
		t.Fatalf("start: %d", code)
	}
	if st.State != "running" || st.Repeat != 2 || st.Rounds != 4 || st.RunsTotal != 8 || st.Round != 1 || !st.Reflect || len(st.Runs) != 2 {
		t.Fatalf("started: %+v", st)
	}
	seen := followRepeat(t, ts, tok, st)
	end := seen[len(seen)-1]
	if end.State != "done" || end.RunsDone != 8 || end.Round != 4 || end.Reflect || len(end.Sessions) != 4 || end.Error != nil {
		t.Fatalf("ended: %+v", end)
	}
	// Progress was live: the runs-done count was seen between 0 and 8.
	if !slices.ContainsFunc(seen, func(s wire.RepeatStatus) bool { return s.RunsDone > 0 && s.RunsDone < 8 }) {
		t.Errorf("no progress between start and end: %d statuses", len(seen))
	}
	type want struct {
		provider string
		reflect  bool
		passAll  bool
		passAt1  float64
		green    int // runs that reached green
	}
	wants := []want{{"good", true, true, 1, 2}, {"bad", true, false, 0, 0}, {"good", false, true, 1, 2}, {"bad", false, false, 0, 0}}
	if len(end.Groups) != len(wants) {
		t.Fatalf("groups: %+v", end.Groups)
	}
	for i, w := range wants {
		g := end.Groups[i]
		if g.Provider != w.provider || g.Reflect != w.reflect || g.PassAll != w.passAll || g.PassAt1 != w.passAt1 ||
			g.Runs != 2 || g.IterationsToGreen.N != w.green || g.Model != "m-"+w.provider {
			t.Errorf("group %d: %+v, want %+v", i, g, w)
		}
	}
	if g := end.Groups[0]; g.IterationsToGreen.Mean != 1 || g.IterationsToGreen.SD != 0 || g.WallMS.N != 2 {
		t.Errorf("good's spreads: %+v", g)
	}
	// The rounds are comparison sessions in the history, like any other.
	var sessions []wire.SessionSummary
	if code := callAPI(t, ts, tok, "GET", "/api/sessions", "", &sessions); code != http.StatusOK {
		t.Fatalf("sessions: %d", code)
	}
	for _, id := range end.Sessions {
		if !slices.ContainsFunc(sessions, func(s wire.SessionSummary) bool { return s.ID == id && s.Mode == event.SessionModeCompare }) {
			t.Errorf("round session %s is not in the history", id)
		}
	}
}

// TestRepeatClampedAndCancelled: N beyond the limit is clamped; cancel
// stops the round's runs (cancelled, in the history) and starts no other.
func TestRepeatClampedAndCancelled(t *testing.T) {
	svc, ts, tok := repeatBackend(t)
	var st wire.RepeatStatus
	if code := callAPI(t, ts, tok, "POST", "/api/repeats", `{"prompt":"p","providers":["held","good"],"repeat":500}`, &st); code != http.StatusCreated {
		t.Fatalf("start: %d", code)
	}
	if st.Repeat != service.MaxRepeat || st.Rounds != service.MaxRepeat {
		t.Errorf("repeat 500: %d rounds of %d, want clamped to %d", st.Repeat, st.Rounds, service.MaxRepeat)
	}
	// Wait for good's run to end so the round is half done, held's still running.
	seen := followRepeat(t, ts, tok, untilRunsDone(t, ts, tok, st, 1))
	end := seen[len(seen)-1]
	if end.State != "cancelled" || len(end.Sessions) != 1 || end.RunsDone != 2 {
		t.Fatalf("after cancel: %+v", end)
	}
	// No other round started: the history holds that round's comparison alone.
	if list := mustSessions(t, svc); len(list) != 1 || list[0].ID != end.Sessions[0] {
		t.Errorf("sessions after a cancelled repeat: %+v", list)
	}
	held := end.Runs[0]
	run, err := svc.Wait(context.Background(), held.RunID)
	if !errors.Is(err, service.ErrCancelled) || run == nil || run.Status != event.RunStatusCancelled {
		t.Errorf("held's run: %+v %v, want cancelled", run, err)
	}
	// Cancel again, or an unknown repeat.
	if code := callAPI(t, ts, tok, "POST", "/api/repeats/"+st.ID+"/cancel", "", nil); code != http.StatusOK {
		t.Errorf("cancel an ended repeat: %d", code)
	}
	var e wire.ErrorBody
	if code := callAPI(t, ts, tok, "GET", "/api/repeats/rp_nope?after=-1", "", &e); code != http.StatusNotFound {
		t.Errorf("an unknown repeat: %d %+v", code, e)
	}
}

// untilRunsDone follows st until n runs have ended, then cancels it.
func untilRunsDone(t *testing.T, ts *httptest.Server, tok string, st wire.RepeatStatus, n int) wire.RepeatStatus {
	t.Helper()
	for st.RunsDone < n {
		var next wire.RepeatStatus
		if code := callAPI(t, ts, tok, "GET", fmt.Sprintf("/api/repeats/%s?after=%d", st.ID, st.Version), "", &next); code != http.StatusOK || next.State != "running" {
			t.Fatalf("repeat status: %d %+v", code, next)
		}
		st = next
	}
	if code := callAPI(t, ts, tok, "POST", "/api/repeats/"+st.ID+"/cancel", "", nil); code != http.StatusOK {
		t.Fatalf("cancel: %d", code)
	}
	return st
}

// TestRepeatRefusals: a bad request starts nothing and says why; a student
// may not repeat (the route refuses, and so does the service).
func TestRepeatRefusals(t *testing.T) {
	svc, ts, tok := repeatBackend(t)
	var e wire.ErrorBody
	if code := callAPI(t, ts, tok, "POST", "/api/repeats", `{"prompt":"p","providers":["good"],"repeat":2}`, &e); code != http.StatusBadRequest || e.Code != string(service.CodeCompareTooFew) {
		t.Errorf("one provider: %d %+v", code, e)
	}
	e = wire.ErrorBody{}
	if code := callAPI(t, ts, tok, "POST", "/api/repeats", `{"prompt":"p","providers":["good","nope"],"repeat":2}`, &e); code != http.StatusBadRequest || e.Code == "" {
		t.Errorf("an unknown provider: %d %+v", code, e)
	}
	if n := len(mustSessions(t, svc)); n != 0 {
		t.Errorf("refused repeats left %d sessions", n)
	}

	student := access.With(context.Background(), access.Caller{Role: access.Student, StudentID: "s1", ClassID: "c1"})
	_, err := svc.StartRepeat(student, service.RepeatRequest{CompareRequest: service.CompareRequest{
		RunRequest: service.RunRequest{Prompt: "p"}, Providers: []string{"good", "bad"}}, Repeat: 2})
	var se *service.Error
	if !errors.As(err, &se) || se.Code != service.CodeStudentOnly || !errors.Is(err, service.ErrForbidden) {
		t.Errorf("a student's repeat: %v", err)
	}
	if _, err := svc.RepeatStatus(student, "rp_x", -1); !errors.Is(err, service.ErrForbidden) {
		t.Errorf("a student's status: %v", err)
	}
	if err := svc.CancelRepeat(student, "rp_x"); !errors.Is(err, service.ErrForbidden) {
		t.Errorf("a student's cancel: %v", err)
	}
}

// TestStudentCannotRepeat: in class mode a student's repeat is refused at
// the route, before the service (403, class.instructor_only), and nothing runs.
func TestStudentCannotRepeat(t *testing.T) {
	c := newClassroom(t, wordModel{})
	ana := c.join(t, "Ana")
	status, body := c.call(t, ana.token, "POST", "/api/repeats", `{"prompt":"p","providers":["fake","fake2"],"repeat":3}`)
	var e wire.ErrorBody
	_ = json.Unmarshal(body, &e)
	if status != http.StatusForbidden || e.Code != string(service.CodeStudentOnly) {
		t.Fatalf("a student's repeat: %d %s", status, body)
	}
	if n := len(mustSessions(t, c.svc)); n != 0 {
		t.Errorf("the refused repeat left %d sessions", n)
	}
}

func mustSessions(t *testing.T, svc *service.Service) []store.SessionSummary {
	t.Helper()
	list, err := svc.Sessions(context.Background(), "", 100)
	if err != nil {
		t.Fatal(err)
	}
	return list
}
