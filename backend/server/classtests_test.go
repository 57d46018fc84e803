package server

import (
	"bytes"
	"context"
	"encoding/csv"
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

// runStream is everything a socket receives of a run, and its last tested
// event.
func (c *classroom) runStream(t *testing.T, cred, runID string) (string, event.TestsPayload) {
	t.Helper()
	ws := c.dialAs(t, cred)
	_ = ws.WriteJSON(wire.StreamRequest{Op: wire.StreamOpSubscribe, RunID: runID})
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

// A prompt problem over HTTP, read off the wire as a student's browser
// receives it: the instructor pushes an assignment with a hidden test; the
// student's class stream, /api/me, run events, session and exports carry
// the hidden test's name and verdict and nothing else of it; a student's
// own tests are refused (403, with their codes) both beside the
// assignment's and over the class's cap; the instructor's wall has the
// student's best and the grade sheet parses back.
func TestPromptProblemOverTheWire(t *testing.T) {
	if _, err := sandbox.NewRunner(sandbox.Options{}); err != nil {
		t.Skipf("no sandbox here: %v", err)
	}
	c := newClassroom(t, wordModel{program: "import sys\nprint(sys.stdin.read())\n"})
	ana := c.join(t, "Ana")
	pupil := c.dialAs(t, ana.token)
	_ = pupil.WriteJSON(wire.StreamRequest{Op: wire.StreamOpSubscribeClass})
	classState(t, pupil, func(wire.ClassView) bool { return true })

	tests := "tests:\n  - {name: shown, stdin: visible-in, expected: ok visible-in}\n" +
		"  - {name: edge, stdin: SECRET-IN, expected: SECRET-EXPECTED, hidden: true}\n"
	body, _ := json.Marshal(wire.Assignment{Title: "Eco", Prompt: "Print what you read.", Tests: tests, PromptOnly: true})
	if status, b := c.call(t, "instructor", "PUT", "/api/class/assignment", string(body)); status != http.StatusOK {
		t.Fatalf("assign: %d %s", status, b)
	}
	var seen strings.Builder
	pushed := classState(t, pupil, func(v wire.ClassView) bool { return v.Assignment != nil })
	if a := pushed.Assignment; a.HiddenTests != 1 || !a.PromptOnly || !strings.Contains(a.Tests, "visible-in") {
		t.Fatalf("the assignment as the student's socket got it: %+v", a)
	}
	raw, _ := json.Marshal(pushed)
	seen.Write(raw)

	// A student's own tests beside the assignment's.
	own, _ := json.Marshal(wire.RunRequest{Prompt: "echo", Provider: "fake", Tests: "tests:\n  - {expected: ok}\n"})
	status, b := c.call(t, ana.token, "POST", "/api/runs", string(own))
	if status != http.StatusForbidden || !strings.Contains(string(b), `"class.student.tests_assigned"`) {
		t.Fatalf("own tests beside the assignment's: %d %s", status, b)
	}

	status, b = c.call(t, ana.token, "POST", "/api/runs", `{"prompt":"echo what you read","provider":"fake","max_iterations":1}`)
	if status != http.StatusCreated {
		t.Fatalf("start: %d %s", status, b)
	}
	var info service.RunInfo
	if err := json.Unmarshal(b, &info); err != nil {
		t.Fatal(err)
	}
	if _, err := c.svc.Wait(context.Background(), info.RunID); err != nil {
		t.Fatal(err)
	}
	events, tested := c.runStream(t, ana.token, info.RunID)
	seen.WriteString(events)
	if tested.Total != 2 || tested.Passed != 1 || !tested.Results[1].Redacted || tested.Results[1].Verdict != event.VerdictWrongAnswer {
		t.Fatalf("the student's tested event: %+v", tested)
	}
	for _, path := range []string{"/api/me", "/api/presets", "/api/sessions/" + info.SessionID,
		"/api/sessions/" + info.SessionID + "/export?format=json", "/api/sessions/" + info.SessionID + "/export?format=html",
		"/api/sessions/" + info.SessionID + "/export?format=md", "/api/sessions"} {
		status, b := c.call(t, ana.token, "GET", path, "")
		if status != http.StatusOK {
			t.Fatalf("%s: %d %s", path, status, b)
		}
		seen.Write(b)
	}
	for _, path := range []string{"/api/class/export?format=grades", "/api/class/export?format=grade-tests",
		"/api/class/students/" + ana.id + "/path", "/api/class/wall"} {
		if status, b := c.call(t, ana.token, "GET", path, ""); status != http.StatusForbidden {
			t.Errorf("a student's %s: %d %s", path, status, b)
		}
	}
	for _, secret := range []string{"SECRET-IN", "SECRET-EXPECTED"} {
		if strings.Contains(seen.String(), secret) {
			t.Errorf("the student received %q of the hidden test", secret)
		}
	}
	if mine, _ := c.runStream(t, "instructor", info.RunID); !strings.Contains(mine, "SECRET-EXPECTED") {
		t.Errorf("the instructor's socket lacks the hidden test's evidence")
	}

	// The instructor's wall and grade sheet.
	status, b = c.call(t, "instructor", "GET", "/api/class/wall", "")
	var wall []wire.WallEntry
	if status != http.StatusOK || json.Unmarshal(b, &wall) != nil || len(wall) != 1 {
		t.Fatalf("wall: %d %s", status, b)
	}
	if best := wall[0].Best; best == nil || best.TestsPassed != 1 || best.TestsTotal != 2 || best.Runs != 1 ||
		best.PromptChars != len("echo what you read") || best.Iterations != 1 {
		t.Errorf("Ana's best on the wall: %+v", wall[0].Best)
	}
	status, b = c.call(t, "instructor", "GET", "/api/class/export?format=grades&lang=en&tz=UTC", "")
	rows, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if status != http.StatusOK || err != nil || len(rows) != 2 {
		t.Fatalf("grades: %d %v %s", status, err, b)
	}
	if got := strings.Join(rows[1][:6], "|"); got != "Ana|Eco|1|2|50.0|1" {
		t.Errorf("Ana's grade row: %q", rows[1])
	}

	// Without an assignment's tests, the class's cap on a student's own.
	if status, b := c.call(t, "instructor", "PUT", "/api/class/assignment", `{"prompt":""}`); status != http.StatusOK {
		t.Fatalf("clear: %d %s", status, b)
	}
	limits, _ := json.Marshal(wire.ClassLimits{Providers: []string{}, Presets: []string{}, MaxStudentTests: 1})
	if status, b := c.call(t, "instructor", "PUT", "/api/class/limits", string(limits)); status != http.StatusOK {
		t.Fatalf("limits: %d %s", status, b)
	}
	two, _ := json.Marshal(wire.RunRequest{Prompt: "echo", Provider: "fake", Tests: "tests:\n  - {expected: ok}\n  - {expected: ok}\n"})
	status, b = c.call(t, ana.token, "POST", "/api/runs", string(two))
	var p struct {
		Code   string            `json:"code"`
		Params map[string]string `json:"params"`
	}
	if status != http.StatusForbidden || json.Unmarshal(b, &p) != nil || p.Code != "class.student.tests" || p.Params["max"] != "1" || p.Params["count"] != "2" {
		t.Fatalf("2 tests over a cap of 1: %d %s", status, b)
	}
}
