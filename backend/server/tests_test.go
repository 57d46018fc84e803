package server

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/loopforge/loopforge/backend/event"
	"github.com/loopforge/loopforge/backend/sandbox"
	"github.com/loopforge/loopforge/backend/service"
	"github.com/loopforge/loopforge/backend/wire"
)

// What a student's browser receives of a run with a hidden test, read off
// the wire: its websocket events, its session and its export hold the
// hidden test's verdict and nothing else of it; the instructor's socket
// has the evidence.
func TestStudentSocketCarriesNoHiddenTestEvidence(t *testing.T) {
	if _, err := sandbox.NewRunner(sandbox.Options{}); err != nil {
		t.Skipf("no sandbox here: %v", err)
	}
	c := newClassroom(t, wordModel{program: "import sys\nprint(sys.stdin.read())\n"})
	ana := c.join(t, "Ana")
	tests := "tests:\n  - {name: shown, stdin: visible-in, expected: ok visible-in}\n" +
		"  - {name: edge, stdin: SECRET-IN, expected: SECRET-EXPECTED, hidden: true}\n"
	body, _ := json.Marshal(wire.RunRequest{Prompt: "echo", Provider: "fake", MaxIterations: 1, Tests: tests})
	status, out := c.call(t, ana.token, "POST", "/api/runs", string(body))
	if status != http.StatusCreated {
		t.Fatalf("start: %d %s", status, out)
	}
	var info service.RunInfo
	if err := json.Unmarshal(out, &info); err != nil {
		t.Fatal(err)
	}
	if _, err := c.svc.Wait(context.Background(), info.RunID); err != nil {
		t.Fatal(err)
	}
	stream := func(cred string) (string, event.TestsPayload) {
		ws := c.dialAs(t, cred)
		_ = ws.WriteJSON(wire.StreamRequest{Op: wire.StreamOpSubscribe, RunID: info.RunID})
		var all strings.Builder
		var tested event.TestsPayload
		for {
			_ = ws.SetReadDeadline(time.Now().Add(time.Minute))
			_, msg, err := ws.ReadMessage()
			if err != nil {
				t.Fatalf("reading the socket: %v", err)
			}
			all.Write(msg)
			var e event.Event
			if err := json.Unmarshal(msg, &e); err != nil {
				t.Fatal(err)
			}
			if e.Type == event.Tested {
				_ = e.Decode(&tested)
			}
			if e.Type == event.RunFinished || e.Type == wire.StreamErrorType {
				_ = ws.WriteMessage(websocket.CloseMessage, nil)
				return all.String(), tested
			}
		}
	}
	seen, tested := stream(ana.token)
	if len(tested.Results) != 2 || tested.Results[0].Verdict != event.VerdictPassed ||
		!tested.Results[1].Redacted || tested.Results[1].Verdict != event.VerdictWrongAnswer {
		t.Fatalf("the student's tested event: %+v", tested)
	}
	if !strings.Contains(seen, "visible-in") {
		t.Errorf("the student's socket lacks the visible test's input")
	}
	mine, _ := stream("instructor")
	if !strings.Contains(mine, "SECRET-EXPECTED") {
		t.Errorf("the instructor's socket lacks the hidden test's evidence")
	}
	for _, path := range []string{"/api/sessions/" + info.SessionID, "/api/sessions/" + info.SessionID + "/export?format=json",
		"/api/sessions/" + info.SessionID + "/export?format=html"} {
		status, b := c.call(t, ana.token, "GET", path, "")
		if status != http.StatusOK {
			t.Fatalf("%s: %d %s", path, status, b)
		}
		seen += string(b)
	}
	for _, secret := range []string{"SECRET-IN", "SECRET-EXPECTED"} {
		if strings.Contains(seen, secret) {
			t.Errorf("the student received %q of the hidden test", secret)
		}
	}
}
