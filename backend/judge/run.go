package judge

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	"github.com/loopforge/loopforge/backend/event"
	"github.com/loopforge/loopforge/backend/sandbox"
)

// Executor runs one program in the sandbox; *sandbox.Runner (and the
// class's queued executor) implements it.
type Executor interface {
	Run(ctx context.Context, req sandbox.Request) (sandbox.Result, error)
}

// evidenceBytes bounds each text of a result (input, expected, actual,
// diff, detail): the results travel in an event and into prompts, and a
// program that prints a megabyte is judged on all of it but shown the start.
const evidenceBytes = 4 << 10

// assertFailed is the exit status of the assertion harness when an
// assertion failed (any other failure exits 1 with Python's traceback).
const assertFailed = 97

// Run judges code by every test of s, one sandbox execution per test, in
// order. base is the execution the run would make (language, limits,
// network); its Code, Stdin and live writers are replaced, and a test's own
// timeout replaces the run's. It returns an error only when the sandbox
// itself fails or ctx ends; a failing program is a verdict.
func Run(ctx context.Context, x Executor, base sandbox.Request, code string, s *Suite, iteration int) (event.TestsPayload, error) {
	p := event.TestsPayload{Iteration: iteration, Total: len(s.Cases)}
	for i, c := range s.Cases {
		r, err := runCase(ctx, x, base, code, c)
		if err != nil {
			return p, fmt.Errorf("test %d: %w", i+1, err)
		}
		r.Index, r.Name, r.Kind, r.Hidden = i+1, c.Name, c.Kind(), c.Hidden
		if r.Verdict == event.VerdictPassed {
			p.Passed++
		}
		p.Results = append(p.Results, r)
	}
	return p, nil
}

func runCase(ctx context.Context, x Executor, base sandbox.Request, code string, c Case) (event.TestResult, error) {
	req := base
	req.LiveStdout, req.LiveStderr, req.Images = nil, nil, false
	// A test's own time limit can only shorten the run's: the run's is
	// what the user (or a class's cap) allowed one execution.
	if d, _ := c.timeout(); d > 0 && d < base.Limits.Effective().Timeout {
		req.Limits.Timeout = d
		req.Limits.CPUSeconds = 0 // derived from the timeout again
	}
	var nonce string
	if c.Assert != "" {
		nonce = newNonce()
		req.Code, req.Stdin = assertHarness(code, c.Assert, nonce), nil
	} else {
		req.Code, req.Stdin = code, []byte(c.Stdin)
	}
	res, err := x.Run(ctx, req)
	if err != nil {
		return event.TestResult{}, err
	}
	if res.Status == sandbox.StatusKilled || ctx.Err() != nil {
		return event.TestResult{}, context.Cause(ctx)
	}
	r := event.TestResult{DurationMS: res.Duration.Round(time.Millisecond).Milliseconds()}
	if c.Assert != "" {
		r.Input = clip(c.Assert)
		judgeAssert(&r, res, nonce)
	} else {
		r.Input, r.Expected, r.Match = clip(c.Stdin), clip(*c.Expected), c.match()
		judgeIO(&r, res, c)
	}
	return r, nil
}

// ended sets the verdict of an execution that did not end normally and
// reports whether it did so.
func ended(r *event.TestResult, res sandbox.Result) bool {
	switch res.Status {
	case sandbox.StatusTimeout:
		r.Verdict = event.VerdictTimeLimit
	case sandbox.StatusMemory:
		r.Verdict = event.VerdictMemoryLimit
	case sandbox.StatusOutputLimit:
		r.Verdict = event.VerdictRuntimeError
	case sandbox.StatusOK:
		return false
	default:
		r.Verdict = event.VerdictRuntimeError
		if tb := strings.TrimSpace(res.Stderr); tb != "" {
			r.Detail = clipTail(programPaths(tb))
			return true
		}
	}
	r.Detail = res.Description()
	return true
}

func judgeIO(r *event.TestResult, res sandbox.Result, c Case) {
	r.Actual = clip(res.Stdout)
	if ended(r, res) {
		return
	}
	if matches(c.match(), c.Tolerance, *c.Expected, res.Stdout) {
		r.Verdict = event.VerdictPassed
		return
	}
	r.Verdict = event.VerdictWrongAnswer
	r.Diff = clip(diff(*c.Expected, res.Stdout))
}

func judgeAssert(r *event.TestResult, res sandbox.Result, nonce string) {
	out, done := strings.CutSuffix(strings.TrimRight(res.Stdout, "\n"), nonce)
	r.Actual = clip(strings.TrimRight(out, "\n"))
	if res.Status == sandbox.StatusError && res.ExitCode == assertFailed {
		r.Verdict, r.Detail = event.VerdictWrongAnswer, clipTail(programPaths(strings.TrimSpace(res.Stderr)))
		return
	}
	if ended(r, res) {
		return
	}
	if !done {
		// Exit 0 without the harness's last line: the program ended the
		// interpreter itself (os._exit) before the assertions finished.
		r.Verdict, r.Detail = event.VerdictRuntimeError, "the program ended the interpreter before the assertions finished"
		return
	}
	r.Verdict = event.VerdictPassed
}

// programFile is what evidence calls the program: the assertion harness
// imports it under this name, and an input/output test's traceback, which
// names the file the sandbox ran (a private run directory's path), is
// rewritten to it.
const programFile = "solution.py"

// programPaths names the program as programFile in a traceback: the
// sandbox's own path of it means nothing to a student, and it would make
// the evidence of one test differ from run to run in the model's prompt.
func programPaths(text string) string { return sandbox.NameProgram(text, programFile) }

// newNonce is a token the harness prints when every assertion held: an
// exit status of 0 alone would pass a program that exits while imported.
func newNonce() string {
	b := make([]byte, 12)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go 1.24+)
	return "loopforge-tests-passed-" + hex.EncodeToString(b)
}

// assertHarness is the program that runs an assertion test: the generated
// program is imported as the module `solution` (its `if __name__ ==
// "__main__":` part does not run), its names are put in scope, the test
// code runs, then each test_* function it defined. Both sources travel
// base64-encoded, so no character of either can end a string literal.
func assertHarness(program, test, nonce string) string {
	enc := base64.StdEncoding.EncodeToString
	return fmt.Sprintf(harness, enc([]byte(program)), enc([]byte(test)), assertFailed, nonce)
}

const harness = `import base64, linecache, sys, traceback, types
_self = sys._getframe().f_code.co_filename
def _tb(e):
    # The harness's own frames name the sandbox's file: only the program's
    # and the test's are evidence. traceback (not the C hook) shows their
    # lines, which linecache holds.
    frames = [f for f in traceback.extract_tb(e.__traceback__) if f.filename != _self]
    sys.stderr.write("Traceback (most recent call last):\n" + "".join(traceback.format_list(frames)) + "".join(traceback.format_exception_only(type(e), e)))
    sys.stderr.flush()
sys.excepthook = lambda t, e, tb: _tb(e)
def _src(b, name):
    s = base64.b64decode(b).decode("utf-8")
    linecache.cache[name] = (len(s), None, s.splitlines(True), name)
    return s
_prog = _src("%s", "solution.py")
_test = _src("%s", "test.py")
_mod = types.ModuleType("solution")
_mod.__file__ = "solution.py"
sys.modules["solution"] = _mod
try:
    exec(compile(_prog, "solution.py", "exec"), _mod.__dict__)
except SystemExit:
    print("the program called exit() while being imported, before the tests ran", file=sys.stderr)
    sys.exit(1)
_ns = {k: v for k, v in vars(_mod).items() if not k.startswith("__")}
_ns.update(__name__="test", solution=_mod)
def _check(f):
    try:
        f()
    except AssertionError as e:
        _tb(e)
        sys.exit(%d)
_check(lambda: exec(compile(_test, "test.py", "exec"), _ns))
for _name, _f in list(_ns.items()):
    if _name.startswith("test_") and getattr(getattr(_f, "__code__", None), "co_filename", "") == "test.py":
        _check(_f)
sys.stdout.write("\n%s\n")
sys.stdout.flush()
`

// clip keeps the start of s.
func clip(s string) string {
	if len(s) <= evidenceBytes {
		return s
	}
	return strings.ToValidUTF8(s[:evidenceBytes], "") + fmt.Sprintf("\n…[%d more bytes]", len(s)-evidenceBytes)
}

// clipTail keeps the end of s: a traceback's last lines name the error.
func clipTail(s string) string {
	if len(s) <= evidenceBytes {
		return s
	}
	return fmt.Sprintf("[%d bytes before]…\n", len(s)-evidenceBytes) + strings.ToValidUTF8(s[len(s)-evidenceBytes:], "")
}

// English words a verdict in English, for the CLI and the model's prompts
// (the app words it in the UI's language).
func English(v event.Verdict) string {
	switch v {
	case event.VerdictPassed:
		return "passed"
	case event.VerdictWrongAnswer:
		return "wrong answer"
	case event.VerdictRuntimeError:
		return "runtime error"
	case event.VerdictTimeLimit:
		return "time limit exceeded"
	case event.VerdictMemoryLimit:
		return "memory limit exceeded"
	}
	return string(v)
}
