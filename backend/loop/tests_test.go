package loop

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/loopforge/loopforge/backend/event"
	"github.com/loopforge/loopforge/backend/judge"
	"github.com/loopforge/loopforge/backend/sandbox"
)

const sumTests = `
tests:
  - {name: small, stdin: "2 3", expected: "5"}
  - {name: big, stdin: "40 2", expected: "42"}
  - {name: secret, stdin: "-7 -8", expected: "-15 HIDDEN-EXPECTED", hidden: true}
`

// The loop goes on while a test fails, and stops when they all pass: a
// model that first adds wrongly, then rightly, needs two iterations; the
// program's clean exit alone no longer counts as success.
func TestLoopRunsUntilTheTestsPass(t *testing.T) {
	suite, err := judge.Parse([]byte(strings.ReplaceAll(sumTests, " HIDDEN-EXPECTED", "")))
	if err != nil {
		t.Fatal(err)
	}
	wrong := "a, b = map(int, input().split())\nprint(a - b)"
	right := "a, b = map(int, input().split())\nprint(a + b)"
	m := &scripted{replies: []reply{{text: fenced(wrong)}, {text: "subtracted instead of adding"}, {text: fenced(right)}, {text: fenced(wrong)}}}
	var rec recorder
	out := Run(context.Background(), m, realSandbox(t), rec.emit,
		Settings{MaxIterations: 4, Reflect: true, Tests: suite, Stdin: "2 3", Limits: sandbox.Limits{Timeout: 20 * time.Second}},
		Input{Prompt: "read two numbers, print their sum"})
	if out.Status != event.RunStatusSuccess || out.Iterations != 2 || strings.TrimSpace(out.FinalCode) != right {
		t.Fatalf("outcome %s after %d iterations (%v), code %q", out.Status, out.Iterations, out.Err, out.FinalCode)
	}
	var results []event.TestsPayload
	for _, e := range rec.events {
		if e.Type == event.Tested {
			var p event.TestsPayload
			if err := e.Decode(&p); err != nil {
				t.Fatal(err)
			}
			results = append(results, p)
		}
	}
	if len(results) != 2 || results[0].Passed != 0 || results[0].Total != 3 || !results[1].AllPassed() {
		t.Fatalf("tested events %+v", results)
	}
	if out.Tests == nil || !out.Tests.AllPassed() {
		t.Errorf("outcome tests %+v", out.Tests)
	}
	// The first program exited cleanly, yet its iteration failed.
	if got := iterationStatuses(t, rec); got != "error,success" {
		t.Errorf("iterations %s", got)
	}
	// The fix request carried the visible tests' evidence.
	fix := m.requests[2].Messages[len(m.requests[2].Messages)-1].Content
	for _, want := range []string{"0 of 3 tests passed", "Test 1 (small): wrong answer", "--- expected output ---\n5", "--- actual output ---\n-1"} {
		if !strings.Contains(fix, want) {
			t.Errorf("fix request lacks %q:\n%s", want, fix)
		}
	}
	if refl := m.requests[1].Messages[0].Content; !strings.Contains(refl, "Test 2 (big): wrong answer") {
		t.Errorf("the reflection request lacks the tests:\n%s", refl)
	}
}

// A hidden test reaches the model as its verdict only: its input and
// expected output appear in no request, though the history has them.
func TestHiddenTestsReachTheModelAsVerdictsOnly(t *testing.T) {
	suite, err := judge.Parse([]byte(sumTests))
	if err != nil {
		t.Fatal(err)
	}
	right := "a, b = map(int, input().split())\nprint(a + b)"
	m := &scripted{replies: []reply{{text: fenced(right)}, {text: "the hidden one fails"}, {text: fenced(right)}}}
	var rec recorder
	out := Run(context.Background(), m, realSandbox(t), rec.emit,
		Settings{MaxIterations: 2, Reflect: true, Tests: suite, Limits: sandbox.Limits{Timeout: 20 * time.Second}},
		Input{Prompt: "sum"})
	if out.Status != event.RunStatusLimitReached || out.Tests == nil || out.Tests.Passed != 2 {
		t.Fatalf("outcome %+v", out)
	}
	var all strings.Builder
	for _, req := range m.requests {
		all.WriteString(req.System)
		for _, msg := range req.Messages {
			all.WriteString(msg.Content)
		}
	}
	for _, msg := range out.Messages {
		all.WriteString(msg.Content)
	}
	for _, secret := range []string{"HIDDEN-EXPECTED", "-7 -8", "-15"} {
		if strings.Contains(all.String(), secret) {
			t.Errorf("the model saw %q of the hidden test", secret)
		}
	}
	if !strings.Contains(all.String(), "Test 3 (secret): wrong answer (a hidden test") {
		t.Errorf("the model was not told the hidden test failed:\n%s", all.String())
	}
	if r := out.Tests.Results[2]; r.Expected != "-15 HIDDEN-EXPECTED" || r.Actual != "-15\n" {
		t.Errorf("the recorded result lost its evidence: %+v", r)
	}
}

func iterationStatuses(t *testing.T, rec recorder) string {
	t.Helper()
	var s []string
	for _, e := range rec.events {
		if e.Type == event.IterationDone {
			var d event.IterationDonePayload
			_ = e.Decode(&d)
			s = append(s, string(d.Status))
		}
	}
	return strings.Join(s, ",")
}
