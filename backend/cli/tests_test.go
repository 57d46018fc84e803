package cli

import (
	"context"
	"encoding/json"
	"iter"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/loopforge/loopforge/backend/event"
	"github.com/loopforge/loopforge/backend/provider"
	"github.com/loopforge/loopforge/backend/sandbox"
	"github.com/loopforge/loopforge/backend/service"
)

// answers replies with its programs in turn (the last one again when they
// run out) and keeps what it was asked.
type answers struct {
	mu       sync.Mutex
	programs []string
	asked    []string // each request's last message
}

func (*answers) Name() string                        { return "fake" }
func (*answers) Capabilities() provider.Capabilities { return provider.Capabilities{} }
func (a *answers) Stream(_ context.Context, req provider.Request) iter.Seq2[provider.Delta, error] {
	a.mu.Lock()
	a.asked = append(a.asked, req.Messages[len(req.Messages)-1].Content)
	text := "```python\n" + a.programs[0] + "\n```\n"
	if len(a.programs) > 1 {
		a.programs = a.programs[1:]
	}
	a.mu.Unlock()
	return func(yield func(provider.Delta, error) bool) {
		if yield(provider.Delta{Text: text}, nil) {
			yield(provider.Delta{Done: &provider.Response{Content: text}}, nil)
		}
	}
}

const (
	subtracts = "a, b = map(int, input().split())\nprint(a - b)"
	adds      = "a, b = map(int, input().split())\nprint(a + b)"
)

func testsFile(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "sum.yml")
	y := "tests:\n  - {name: small, stdin: '2 3', expected: '5'}\n  - {name: secret, stdin: '10 -4', expected: '6', hidden: true}\n"
	if err := os.WriteFile(p, []byte(y), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// loopforge run --tests: the loop goes on past a program that runs but
// adds wrongly, and ends with the one that passes every test.
func TestRunWithTestsEndToEnd(t *testing.T) {
	if _, err := sandbox.NewRunner(sandbox.Options{}); err != nil {
		t.Skipf("no sandbox on this machine: %v", err)
	}
	m := &answers{programs: []string{subtracts, adds}}
	code, stdout, stderr := cliRunModel(t, t.TempDir(), "", m, "run", "-p", "fake", "-n", "3", "--no-reflect", "--tests", testsFile(t), "sum two numbers")
	if code != ExitOK {
		t.Fatalf("exit %d:\n%s", code, stderr)
	}
	if strings.TrimSpace(stdout) != adds {
		t.Errorf("stdout %q", stdout)
	}
	for _, want := range []string{
		"iteration 1: tests 0/2 passed ✗✗\n", "  test 1 (small): wrong answer\n", "│ -5\n", "│ +-1\n",
		"iteration 2: tests 2/2 passed ✓✓\n", "success after 2 iterations (2/2 tests passed, ",
		"the code gets 3 bytes on its standard input\n", // the first visible test's, for the program's own run
		"  │ 5\n", // what that run printed, under the success
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if len(m.asked) != 2 || !strings.Contains(m.asked[1], "Test 1 (small): wrong answer") ||
		!strings.Contains(m.asked[1], "Test 2 (secret): wrong answer (a hidden test") || strings.Contains(m.asked[1], "10 -4") {
		t.Errorf("the fix request:\n%s", m.asked[len(m.asked)-1])
	}
}

// --json carries the tested events and the counts in run_finished; a run
// whose program never passes exits 1 even though it runs cleanly.
func TestRunWithTestsJSONAndFailure(t *testing.T) {
	if _, err := sandbox.NewRunner(sandbox.Options{}); err != nil {
		t.Skipf("no sandbox on this machine: %v", err)
	}
	m := &answers{programs: []string{subtracts}}
	code, stdout, stderr := cliRunModel(t, t.TempDir(), "", m, "run", "-p", "fake", "-n", "2", "--no-reflect", "--json", "--tests", testsFile(t), "sum")
	if code != ExitFailed {
		t.Fatalf("exit %d:\n%s", code, stderr)
	}
	var tested int
	var fin event.RunFinishedPayload
	for _, line := range strings.Split(strings.TrimSpace(stdout), "\n") {
		var e event.Event
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		switch e.Type {
		case event.Tested:
			tested++
		case event.RunFinished:
			_ = e.Decode(&fin)
		}
	}
	if tested != 2 || fin.Status != event.RunStatusLimitReached || fin.TestsPassed != 0 || fin.TestsTotal != 2 {
		t.Errorf("%d tested events, run_finished %+v", tested, fin)
	}
}

func TestTestsFlagMistakesExit2(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yml")
	if err := os.WriteFile(bad, []byte("tests: [{stdin: '1'}]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	assert := filepath.Join(dir, "assert.yml")
	if err := os.WriteFile(assert, []byte("tests: [{assert: 'assert True'}]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"run", "-p", "fake", "--tests", filepath.Join(dir, "missing.yml"), "x"},
		{"run", "-p", "fake", "--tests", bad, "x"},
		{"run", "-p", "fake", "--tests", assert, "--language", "sh", "x"},
		{"run", "-p", "fake", "--tests", assert, "--mode", "workspace", "x"},
	} {
		code, _, stderr := cliRun(t, args...)
		if code != ExitUsage || strings.Count(strings.TrimSpace(stderr), "\n") > 1 {
			t.Errorf("%v: exit %d:\n%s", args, code, stderr)
		}
	}
}

// stats sums the tests of the runs that had some.
func TestStatsShowTestsPassed(t *testing.T) {
	if _, err := sandbox.NewRunner(sandbox.Options{}); err != nil {
		t.Skipf("no sandbox on this machine: %v", err)
	}
	home := t.TempDir()
	m := &answers{programs: []string{subtracts, adds}}
	if code, _, stderr := cliRunModel(t, home, "", m, "run", "-p", "fake", "-n", "1", "--no-reflect", "--tests", testsFile(t), "sum"); code != ExitFailed {
		t.Fatalf("exit %d:\n%s", code, stderr)
	}
	code, stdout, stderr := cliRunModel(t, home, "", m, "stats")
	if code != ExitOK {
		t.Fatalf("exit %d:\n%s", code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if !strings.HasSuffix(strings.TrimSpace(lines[0]), "TESTS") || !strings.HasSuffix(strings.TrimSpace(lines[len(lines)-1]), "0/2") {
		t.Errorf("stats:\n%s", stdout)
	}
}

func TestComparisonTableHasTestsWhenTheRunsHad(t *testing.T) {
	rows := []service.ComparisonRow{{Provider: "a", TestsPassed: 3, TestsTotal: 5}, {Provider: "b", TestsPassed: 5, TestsTotal: 5}}
	var b strings.Builder
	printComparison(&b, rows)
	out := strings.Split(strings.TrimSpace(b.String()), "\n")
	if !strings.HasSuffix(out[0], "TESTS") || !strings.HasSuffix(out[1], "3/5") || !strings.HasSuffix(out[2], "5/5") {
		t.Errorf("table:\n%s", b.String())
	}
	b.Reset()
	printComparison(&b, []service.ComparisonRow{{Provider: "a"}})
	if strings.Contains(b.String(), "TESTS") {
		t.Errorf("a comparison without tests has a TESTS column:\n%s", b.String())
	}
}
