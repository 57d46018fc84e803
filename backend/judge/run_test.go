package judge

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/loopforge/loopforge/backend/event"
	"github.com/loopforge/loopforge/backend/sandbox"
)

// runner is the real sandbox: every verdict below comes from a real
// program run as the loop runs it.
func runner(t *testing.T) Executor {
	t.Helper()
	r, err := sandbox.NewRunner(sandbox.Options{})
	if err != nil {
		t.Skipf("no sandbox here: %v", err)
	}
	return r
}

func parse(t *testing.T, y string) *Suite {
	t.Helper()
	s, err := Parse([]byte(y))
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	return s
}

func judge(t *testing.T, code, tests string) event.TestsPayload {
	t.Helper()
	base := sandbox.Request{Language: "python", Limits: sandbox.Limits{Timeout: 20 * time.Second, MemoryBytes: 256 << 20}}
	p, err := Run(context.Background(), runner(t), base, code, parse(t, tests), 1)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	return p
}

const sumProgram = `a, b = map(int, input().split())
print(a + b)
`

func TestVerdictsOfRealPrograms(t *testing.T) {
	cases := []struct {
		name, code, tests string
		want              event.Verdict
		detail            string // in Detail
	}{
		{"passed", sumProgram, "tests: [{stdin: \"2 3\\n\", expected: \"5\"}]", event.VerdictPassed, ""},
		{"wrong answer", "print(6)", "tests: [{stdin: \"2 3\\n\", expected: \"5\"}]", event.VerdictWrongAnswer, ""},
		{"runtime error", sumProgram, "tests: [{stdin: \"\", expected: \"5\"}]", event.VerdictRuntimeError, "EOFError"},
		{"time limit", "while True: pass", "tests: [{expected: \"5\", timeout: 1s}]", event.VerdictTimeLimit, ""},
		{"memory limit", "x = bytearray(2 << 30)\nprint(len(x))", "tests: [{expected: \"5\"}]", event.VerdictMemoryLimit, ""},
		{"assertion passed", "def add(a, b):\n    return a + b\n", "tests: [{assert: \"assert add(2, 3) == 5\"}]", event.VerdictPassed, ""},
		{"assertion failed", "def add(a, b):\n    return a - b\n", "tests: [{assert: \"def test_add():\\n    assert add(2, 3) == 5, 'add(2, 3)'\\n\"}]", event.VerdictWrongAnswer, "AssertionError: add(2, 3)"},
		{"assertion crash", "def add(a, b):\n    return a + c\n", "tests: [{assert: \"assert add(2, 3) == 5\"}]", event.VerdictRuntimeError, "NameError"},
		{"exit while imported", "import sys\nsys.exit(0)\n", "tests: [{assert: \"assert False\"}]", event.VerdictRuntimeError, "exit()"},
		{"os._exit while imported", "import os\nos._exit(0)\n", "tests: [{assert: \"assert False\"}]", event.VerdictRuntimeError, "ended the interpreter"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := judge(t, c.code, c.tests)
			if p.Total != 1 || len(p.Results) != 1 {
				t.Fatalf("payload %+v", p)
			}
			r := p.Results[0]
			if r.Verdict != c.want {
				t.Fatalf("verdict %s, want %s (detail %q, actual %q)", r.Verdict, c.want, r.Detail, r.Actual)
			}
			if (r.Verdict == event.VerdictPassed) != (p.Passed == 1) {
				t.Errorf("passed %d with verdict %s", p.Passed, r.Verdict)
			}
			if !strings.Contains(r.Detail, c.detail) {
				t.Errorf("detail %q lacks %q", r.Detail, c.detail)
			}
		})
	}
}

func TestWrongAnswerCarriesADiff(t *testing.T) {
	p := judge(t, "print('1')\nprint('3')\n", "tests: [{expected: \"1\\n2\\n\", match: exact}]")
	r := p.Results[0]
	if r.Verdict != event.VerdictWrongAnswer || r.Actual != "1\n3\n" || r.Expected != "1\n2\n" {
		t.Fatalf("%+v", r)
	}
	for _, want := range []string{"--- expected", "+++ actual", "-2", "+3", " 1"} {
		if !strings.Contains(r.Diff, want) {
			t.Errorf("diff lacks %q:\n%s", want, r.Diff)
		}
	}
}

func TestMatchModes(t *testing.T) {
	cases := []struct {
		mode, expected, actual string
		tol                    float64
		want                   bool
	}{
		{MatchExact, "a b\n", "a b", 0, true},
		{MatchExact, "a b", "a  b", 0, false},
		{MatchExact, "a\r\nb", "a\nb\n\n", 0, true},
		{MatchWhitespace, "a  b\n c", "a b c\n", 0, true},
		{MatchWhitespace, "a b", "a b c", 0, false},
		{MatchNumber, "pi = 3.14159", "pi = 3.1416", 0.001, true},
		{MatchNumber, "pi = 3.14159", "pi = 3.15", 0.001, false},
		{MatchNumber, "area 1e6", "area 1000000.4", 0, true}, // relative
		{MatchNumber, "x 1", "y 1", 0, false},
	}
	for _, c := range cases {
		if got := matches(c.mode, c.tol, c.expected, c.actual); got != c.want {
			t.Errorf("%s %q vs %q: %v, want %v", c.mode, c.expected, c.actual, got, c.want)
		}
	}
}

func TestEveryTestRunsAndCounts(t *testing.T) {
	p := judge(t, sumProgram, `
tests:
  - {name: small, stdin: "2 3", expected: "5"}
  - {name: negative, stdin: "-2 -3", expected: "-5", hidden: true}
  - {name: wrong on purpose, stdin: "1 1", expected: "3"}
`)
	if p.Total != 3 || p.Passed != 2 || p.AllPassed() {
		t.Fatalf("%+v", p)
	}
	if got := []event.Verdict{p.Results[0].Verdict, p.Results[1].Verdict, p.Results[2].Verdict}; got[0] != event.VerdictPassed ||
		got[1] != event.VerdictPassed || got[2] != event.VerdictWrongAnswer {
		t.Errorf("verdicts %v", got)
	}
	if !p.Results[1].Hidden || p.Results[1].Index != 2 || p.Results[1].Name != "negative" {
		t.Errorf("second result %+v", p.Results[1])
	}
}

func TestCancelledRunIsAnErrorNotAVerdict(t *testing.T) {
	x := runner(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Run(ctx, x, sandbox.Request{Language: "python"}, "print(1)", parse(t, "[{expected: '1'}]"), 1)
	if err == nil {
		t.Fatal("a cancelled run judged the program")
	}
}

// A test's own timeout shortens the run's, never lengthens it.
func TestATestsTimeoutOnlyShortensTheRuns(t *testing.T) {
	x := runner(t)
	base := sandbox.Request{Language: "python", Limits: sandbox.Limits{Timeout: 1 * time.Second}}
	p, err := Run(context.Background(), x, base, "while True:\n    pass", parse(t, "[{expected: '1', timeout: 5m}]"), 1)
	if err != nil {
		t.Fatal(err)
	}
	if r := p.Results[0]; r.Verdict != event.VerdictTimeLimit {
		t.Fatalf("a 5m test timeout under a 1s run limit: %s (%s)", r.Verdict, r.Detail)
	}
}

// TestTracebacksNameTheProgram: a test's traceback names the program
// "solution.py" with its lines, as the student knows it, never the
// sandbox's private run directory nor the assertion harness's own frames.
func TestTracebacksNameTheProgram(t *testing.T) {
	const code = "def f(x):\n    return 1/x\n\nn = int(input())\nprint(f(n))\n"
	io := judge(t, code, "tests: [{stdin: \"0\\n\", expected: \"5\"}]").Results[0]
	asserts := judge(t, "def f(x):\n    return 1/x\n",
		"tests: [{assert: \"def test_f():\\n    assert f(0) == 1\\n\"}, {assert: \"def test_g():\\n    assert f(1) == 2\\n\"}]").Results
	for _, c := range []struct {
		name    string
		r       event.TestResult
		verdict event.Verdict
		want    []string
	}{
		{"input/output", io, event.VerdictRuntimeError, []string{`File "solution.py", line 5, in <module>`, `File "solution.py", line 2, in f`, "ZeroDivisionError"}},
		{"assertion crash", asserts[0], event.VerdictRuntimeError, []string{`File "test.py", line 2, in test_f`, `File "solution.py", line 2, in f`, "    return 1/x", "ZeroDivisionError"}},
		{"assertion failed", asserts[1], event.VerdictWrongAnswer, []string{`File "test.py", line 2, in test_g`, "    assert f(1) == 2", "AssertionError"}},
	} {
		if c.r.Verdict != c.verdict {
			t.Errorf("%s: verdict %s, want %s (%q)", c.name, c.r.Verdict, c.verdict, c.r.Detail)
		}
		for _, w := range c.want {
			if !strings.Contains(c.r.Detail, w) {
				t.Errorf("%s: traceback lacks %q:\n%s", c.name, w, c.r.Detail)
			}
		}
		for _, bad := range []string{"loopforge-", "<stdin>", "_check"} {
			if strings.Contains(c.r.Detail, bad) {
				t.Errorf("%s: traceback shows %q:\n%s", c.name, bad, c.r.Detail)
			}
		}
	}
}
