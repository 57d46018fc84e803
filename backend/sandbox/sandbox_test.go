//go:build linux

package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"
)

// These tests start real processes: the test binary is the shim (see
// TestMain) and the interpreter is the machine's python3.

var sharedRunner = sync.OnceValues(func() (*Runner, error) { return NewRunner(Options{}) })

func testRunner(t testing.TB) *Runner {
	t.Helper()
	r, err := sharedRunner()
	if err != nil {
		t.Fatalf("NewRunner: %v", err)
	}
	return r
}

func run(t testing.TB, req Request) Result {
	t.Helper()
	res, m := runOn(t, testRunner(t), context.Background(), req)
	wantNoSurvivors(t, m)
	return res
}

func wantStatus(t *testing.T, res Result, want Status) {
	t.Helper()
	if res.Status != want {
		t.Fatalf("status = %q, want %q\ndescription: %s\nstdout: %q\nstderr: %q", res.Status, want, res.Description(), res.Stdout, res.Stderr)
	}
}

func TestHello(t *testing.T) {
	t.Parallel()
	res := run(t, Request{Code: `print("hello")`})
	wantStatus(t, res, StatusOK)
	if res.Stdout != "hello\n" || res.Stderr != "" || res.ExitCode != 0 || res.Signal != "" {
		t.Errorf("got stdout %q stderr %q exit %d signal %q", res.Stdout, res.Stderr, res.ExitCode, res.Signal)
	}
	if res.StdoutBytes != 6 || res.Truncated {
		t.Errorf("StdoutBytes = %d, Truncated = %v", res.StdoutBytes, res.Truncated)
	}
	if res.Isolation != testRunner(t).Isolation() || res.Description() != "ok" || res.Limits != DefaultLimits() {
		t.Errorf("isolation %q, description %q, limits %+v", res.Isolation, res.Description(), res.Limits)
	}
}

func TestSyntaxError(t *testing.T) {
	t.Parallel()
	res := run(t, Request{Code: "def broken(:\n    pass\n"})
	wantStatus(t, res, StatusError)
	if res.ExitCode != 1 || !strings.Contains(res.Stderr, "SyntaxError") {
		t.Errorf("exit %d, stderr %q", res.ExitCode, res.Stderr)
	}
	if d := res.Description(); !strings.HasPrefix(d, "exit 1: SyntaxError") {
		t.Errorf("description %q", d)
	}
}

func TestExceptionDescription(t *testing.T) {
	t.Parallel()
	res := run(t, Request{Code: "raise ValueError('boom')"})
	wantStatus(t, res, StatusError)
	if !strings.Contains(res.Stderr, "Traceback") {
		t.Errorf("stderr %q has no traceback", res.Stderr)
	}
	if d := res.Description(); d != "exit 1: ValueError: boom" {
		t.Errorf("description %q", d)
	}
}

func TestExitCodeKeepsStdout(t *testing.T) {
	t.Parallel()
	res := run(t, Request{Code: "import sys\nprint('before')\nsys.exit(3)"})
	wantStatus(t, res, StatusError)
	if res.ExitCode != 3 || res.Stdout != "before\n" || res.Description() != "exit 3" {
		t.Errorf("exit %d, stdout %q, description %q", res.ExitCode, res.Stdout, res.Description())
	}
}

func TestBusyLoopTimeout(t *testing.T) {
	t.Parallel()
	res := run(t, Request{Code: "while True: pass", Limits: Limits{Timeout: 500 * time.Millisecond}})
	wantStatus(t, res, StatusTimeout)
	if res.Signal != "killed" || res.ExitCode != -1 {
		t.Errorf("signal %q exit %d", res.Signal, res.ExitCode)
	}
	if d := res.Description(); d != "timed out after 500ms" {
		t.Errorf("description %q", d)
	}
}

// printThenTimeout is the time limit of tests whose program prints, then
// sleeps until the limit kills it: long enough for a sandboxed interpreter
// to start and print on a machine with every core busy (700 ms was not).
const printThenTimeout = 4 * time.Second

func TestSleepTimeoutKeepsPartialStdout(t *testing.T) {
	t.Parallel()
	res := run(t, Request{Code: "import time\nprint('partial')\ntime.sleep(1e6)", Limits: Limits{Timeout: printThenTimeout}})
	wantStatus(t, res, StatusTimeout)
	if res.Stdout != "partial\n" {
		t.Errorf("stdout %q, want the partial output", res.Stdout)
	}
}

func TestIgnoredSignalsStillKilled(t *testing.T) {
	t.Parallel()
	code := "import signal\nfor s in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP): signal.signal(s, signal.SIG_IGN)\nwhile True: pass"
	res := run(t, Request{Code: code, Limits: Limits{Timeout: 500 * time.Millisecond}})
	wantStatus(t, res, StatusTimeout)
}

func TestBackgroundChildKilledWhenLeaderExits(t *testing.T) {
	t.Parallel()
	start := time.Now()
	res := run(t, Request{Code: "import subprocess\np = subprocess.Popen(['sleep', '1000'])\nprint(p.pid)"})
	wantStatus(t, res, StatusOK)
	if after := time.Since(start) - res.Duration; after > 300*time.Millisecond {
		t.Errorf("Run took %v after the code exited: the leftover child held it up", after)
	}
}

func TestOrphanKilled(t *testing.T) {
	t.Parallel()
	// The forked child outlives its parent and is reparented away from it.
	code := "import os, time\npid = os.fork()\nif pid == 0:\n    time.sleep(1000)\n    os._exit(0)\nprint(pid)"
	res := run(t, Request{Code: code})
	wantStatus(t, res, StatusOK)
}

func TestChildAndParentSleepTimeout(t *testing.T) {
	t.Parallel()
	code := "import subprocess, time\nsubprocess.Popen(['sleep', '1000'])\ntime.sleep(1000)"
	res := run(t, Request{Code: code, Limits: Limits{Timeout: 500 * time.Millisecond}})
	wantStatus(t, res, StatusTimeout)
}

func TestShellBackgroundJobKilled(t *testing.T) {
	t.Parallel()
	res := run(t, Request{Language: "sh", Code: "sleep 1000 &\necho $!\n"})
	wantStatus(t, res, StatusOK)
}

func TestShellExitCode(t *testing.T) {
	t.Parallel()
	res := run(t, Request{Language: "sh", Code: "echo hi\necho oops >&2\nexit 4\n"})
	wantStatus(t, res, StatusError)
	if res.ExitCode != 4 || res.Stdout != "hi\n" || res.Description() != "exit 4: oops" {
		t.Errorf("exit %d, stdout %q, description %q", res.ExitCode, res.Stdout, res.Description())
	}
}

func TestStdoutFlood(t *testing.T) {
	t.Parallel()
	res := run(t, Request{Code: "while True: print('A' * 1000)"})
	wantStatus(t, res, StatusOutputLimit)
	lim := DefaultLimits()
	if !res.Truncated || res.StdoutBytes <= lim.OutputHardCap {
		t.Errorf("truncated %v, StdoutBytes %d", res.Truncated, res.StdoutBytes)
	}
	if max := lim.OutputHead + lim.OutputTail + 100; len(res.Stdout) > max {
		t.Errorf("kept %d bytes of stdout, want at most %d", len(res.Stdout), max)
	}
	if !strings.Contains(res.Stdout, "bytes omitted]…\n") {
		t.Errorf("no omission marker in stdout")
	}
	if d := res.Description(); d != "output limit (8 MiB) exceeded" {
		t.Errorf("description %q", d)
	}
}

func TestOutputLimitCustom(t *testing.T) {
	t.Parallel()
	lim := Limits{OutputHead: 100, OutputTail: 50, OutputHardCap: 64 << 10}
	res := run(t, Request{Code: "import sys\nwhile True: sys.stderr.write('e' * 100 + '\\n')", Limits: lim})
	wantStatus(t, res, StatusOutputLimit)
	head, rest, ok := strings.Cut(res.Stderr, "\n…[")
	if !ok || len(head) != 100 {
		t.Fatalf("stderr %q: want a 100-byte head and a marker", res.Stderr)
	}
	_, tail, _ := strings.Cut(rest, "]…\n")
	if len(tail) != 50 {
		t.Errorf("tail %q is %d bytes, want 50", tail, len(tail))
	}
}

func TestStderrTailKeepsTraceback(t *testing.T) {
	t.Parallel()
	code := "import sys\nfor i in range(4000):\n    sys.stderr.write('warning: ' + 'x' * 1000 + '\\n')\nraise ValueError('the real error')"
	res := run(t, Request{Code: code})
	wantStatus(t, res, StatusError)
	if !res.Truncated || res.StderrBytes < 4_000_000 {
		t.Errorf("truncated %v, StderrBytes %d", res.Truncated, res.StderrBytes)
	}
	if !strings.Contains(res.Stderr, "Traceback (most recent call last)") {
		t.Errorf("traceback missing from the kept tail")
	}
	if d := res.Description(); d != "exit 1: ValueError: the real error" {
		t.Errorf("description %q", d)
	}
}

func TestEnvironmentIsRebuilt(t *testing.T) {
	// Not parallel: t.Setenv changes this process's environment.
	t.Setenv("OPENAI_API_KEY", "sk-test-secret")
	t.Setenv("ANTHROPIC_API_KEY", "sk-ant-secret")
	t.Setenv("PYTHONPATH", "/evil")
	res := run(t, Request{Code: "import os, json\nprint(json.dumps(dict(os.environ)))"})
	wantStatus(t, res, StatusOK)
	var env map[string]string
	if err := json.Unmarshal([]byte(res.Stdout), &env); err != nil {
		t.Fatalf("decode env: %v", err)
	}
	var keys []string
	for k, v := range env {
		if k == "LOOPFORGE_TEST_RUN" { // the tests' own marker, see runOn
			continue
		}
		keys = append(keys, k)
		if strings.HasSuffix(k, "_API_KEY") || strings.Contains(v, "secret") {
			t.Errorf("leaked %s=%s", k, v)
		}
	}
	slices.Sort(keys)
	want := []string{"HOME", "LANG", "PATH", "PYTHONDONTWRITEBYTECODE", "PYTHONIOENCODING", "PYTHONUNBUFFERED", "TMPDIR"}
	if !slices.Equal(keys, want) {
		t.Errorf("env keys %v, want exactly %v", keys, want)
	}
}

func TestInputGetsEOF(t *testing.T) {
	t.Parallel()
	res := run(t, Request{Code: "name = input('name? ')\nprint('never', name)"})
	wantStatus(t, res, StatusError)
	if d := res.Description(); !strings.Contains(d, "EOFError") {
		t.Errorf("description %q, want EOFError", d)
	}
}

func TestMemoryLimit(t *testing.T) {
	t.Parallel()
	res := run(t, Request{Code: "x = bytearray(8 << 30)"})
	wantStatus(t, res, StatusMemory)
	if d := res.Description(); d != "memory limit exceeded: MemoryError" {
		t.Errorf("description %q", d)
	}
}

func TestFileSizeLimit(t *testing.T) {
	t.Parallel()
	code := "with open('big', 'wb') as f:\n    for _ in range(200):\n        f.write(b'\\0' * (1 << 20))"
	res := run(t, Request{Code: code})
	wantStatus(t, res, StatusError)
	if d := res.Description(); !strings.Contains(d, "File too large") {
		t.Errorf("description %q, want EFBIG", d)
	}
}

func TestCPULimit(t *testing.T) {
	t.Parallel()
	res := run(t, Request{Code: "while True: pass", Limits: Limits{Timeout: time.Minute, CPUSeconds: 1}})
	wantStatus(t, res, StatusTimeout)
	if res.Signal != syscall.SIGXCPU.String() {
		t.Errorf("signal %q, want SIGXCPU", res.Signal)
	}
	if d := res.Description(); d != "CPU time limit exceeded (1s)" {
		t.Errorf("description %q", d)
	}
}

func TestRlimitsApplied(t *testing.T) {
	t.Parallel()
	lim := Limits{MemoryBytes: 512 << 20, FileSizeBytes: 1 << 20, OpenFiles: 64, CPUSeconds: 7}
	code := "import resource as r\nfor n in ('AS', 'FSIZE', 'NOFILE', 'CPU', 'CORE'):\n    print(n, *r.getrlimit(getattr(r, 'RLIMIT_' + n)))"
	res := run(t, Request{Code: code, Limits: lim})
	wantStatus(t, res, StatusOK)
	want := fmt.Sprintf("AS %d %d\nFSIZE %d %d\nNOFILE 64 64\nCPU 7 8\nCORE 0 0\n", 512<<20, 512<<20, 1<<20, 1<<20)
	if res.Stdout != want {
		t.Errorf("limits:\n%s\nwant:\n%s", res.Stdout, want)
	}
}

func TestOpenFilesBounded(t *testing.T) {
	t.Parallel()
	code := "fs = []\ntry:\n    while True: fs.append(open('/dev/null'))\nexcept OSError as e:\n    print(len(fs), e.errno)"
	res := run(t, Request{Code: code, Limits: Limits{OpenFiles: 32}})
	wantStatus(t, res, StatusOK)
	if n := firstInt(t, strings.Fields(res.Stdout)[0]); n >= 32 || !strings.HasSuffix(res.Stdout, " 24\n") {
		t.Errorf("stdout %q: want fewer than 32 files and EMFILE (24)", res.Stdout)
	}
}

func TestCancel(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	time.AfterFunc(300*time.Millisecond, cancel)
	res, err := testRunner(t).Run(ctx, Request{Code: "import time\ntime.sleep(1000)", Limits: Limits{Timeout: time.Minute}})
	if err != nil {
		t.Fatal(err)
	}
	wantStatus(t, res, StatusKilled)
	if d := res.Description(); d != "killed (cancelled)" {
		t.Errorf("description %q", d)
	}
	// res.Stdout is not judged: the group may be killed before python printed anything.
}

func TestAlreadyCancelled(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := testRunner(t).Run(ctx, Request{Code: "print(1)"})
	if err != nil || res.Status != StatusKilled {
		t.Errorf("got %q, %v; want killed, nil", res.Status, err)
	}
}

func TestWorkdir(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	r, err := NewRunner(Options{TempRoot: root})
	if err != nil {
		t.Fatal(err)
	}
	// The code also locks a subdirectory, which must not stop the cleanup.
	code := "import os, json\nopen('f', 'w').write('x')\nos.makedirs('d/e')\nos.chmod('d', 0)\n" +
		"print(json.dumps([os.getcwd(), os.stat('.').st_mode & 0o777, os.environ['HOME'], os.environ['TMPDIR']]))"
	res, err := r.Run(context.Background(), Request{Code: code})
	if err != nil {
		t.Fatal(err)
	}
	wantStatus(t, res, StatusOK)
	var got []any
	if err := json.Unmarshal([]byte(res.Stdout), &got); err != nil {
		t.Fatal(err)
	}
	wd := got[0].(string)
	if filepath.Dir(wd) != root || got[1].(float64) != 0o700 || got[2] != wd || got[3] != wd {
		t.Errorf("cwd/mode/HOME/TMPDIR = %v, want a 0700 dir under %s", got, root)
	}
	r.Wait()
	if _, err := os.Stat(wd); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("work dir %s still exists (%v)", wd, err)
	}
}

func TestParallelRuns(t *testing.T) {
	t.Parallel()
	const n = 10
	var wg sync.WaitGroup
	results := make([]Result, n)
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() {
			code := fmt.Sprintf("import os\nopen('mine', 'w').write('%d')\nprint(%d, os.getcwd(), os.listdir('.'))", i, i)
			results[i], errs[i] = testRunner(t).Run(context.Background(), Request{Code: code})
		})
	}
	wg.Wait()
	dirs := map[string]bool{}
	for i, res := range results {
		if errs[i] != nil || res.Status != StatusOK {
			t.Errorf("run %d: %v %q %q", i, errs[i], res.Status, res.Description())
			continue
		}
		f := strings.Fields(res.Stdout)
		if len(f) != 3 || f[0] != strconv.Itoa(i) || f[2] != "['mine']" {
			t.Errorf("run %d printed %q", i, res.Stdout)
			continue
		}
		dirs[f[1]] = true
	}
	if len(dirs) != n {
		t.Errorf("%d distinct work dirs, want %d", len(dirs), n)
	}
}

func TestInvalidUTF8Sanitised(t *testing.T) {
	t.Parallel()
	res := run(t, Request{Code: `import sys; sys.stdout.buffer.write(b'ok \xff\xfe \x1b[31mred\x1b[0m')`})
	wantStatus(t, res, StatusOK)
	if !utf8.ValidString(res.Stdout) || !strings.Contains(res.Stdout, "\uFFFD") || !strings.Contains(res.Stdout, "\x1b[31mred") {
		t.Errorf("stdout %q", res.Stdout)
	}
	if res.StdoutBytes != 18 {
		t.Errorf("StdoutBytes = %d, want the raw count 18", res.StdoutBytes)
	}
}

func TestUnsupportedLanguage(t *testing.T) {
	t.Parallel()
	res, err := testRunner(t).Run(context.Background(), Request{Language: "cobol", Code: "x"})
	if !errors.Is(err, ErrUnsupportedLanguage) || res.Status != StatusSandboxError {
		t.Errorf("got %q, %v", res.Status, err)
	}
}

func TestNoInterpreter(t *testing.T) {
	t.Parallel()
	_, err := NewRunner(Options{Python: "/nonexistent/python3"})
	var ie *InterpreterError
	if !errors.Is(err, ErrNoInterpreter) || !errors.As(err, &ie) || !strings.Contains(err.Error(), "/nonexistent/python3") {
		t.Errorf("err = %v", err)
	}
}

func TestSelfNotAShim(t *testing.T) {
	t.Parallel()
	r, err := NewRunner(Options{Self: "/bin/true"})
	if err != nil {
		t.Fatal(err)
	}
	res, err := r.Run(context.Background(), Request{Code: "print(1)"})
	if !errors.Is(err, ErrShim) || res.Status != StatusSandboxError || !strings.Contains(res.Description(), "RunChildIfRequested") {
		t.Errorf("got %q %q, %v", res.Status, res.Description(), err)
	}
}

func TestShimFailureReported(t *testing.T) {
	t.Parallel()
	base := testRunner(t)
	cases := map[string]struct {
		mutate func(*Runner)
		want   string
	}{
		"exec fails":        {func(r *Runner) { r.python = "/nonexistent/python3" }, "exec /nonexistent/python3"},
		"unknown isolation": {func(r *Runner) { r.isolation = "bogus" }, `unknown isolation level "bogus"`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			r := *base
			tc.mutate(&r)
			res, err := r.Run(context.Background(), Request{Code: "print(1)"})
			if !errors.Is(err, ErrShim) || res.Status != StatusSandboxError || !strings.Contains(res.Description(), tc.want) {
				t.Errorf("got %q %q, %v", res.Status, res.Description(), err)
			}
		})
	}
}

func TestAppSurvivesKillAttemptOnOwnGroup(t *testing.T) {
	t.Parallel()
	// kill(0, SIGKILL) hits the code's own group only; the app is outside it.
	res := run(t, Request{Code: "import os, signal\nprint('x', flush=True)\nos.kill(0, signal.SIGKILL)"})
	wantStatus(t, res, StatusError)
	if res.Signal != "killed" || res.Stdout != "x\n" {
		t.Errorf("signal %q stdout %q", res.Signal, res.Stdout)
	}
	if d := res.Description(); d != "signal: killed" {
		t.Errorf("description %q", d)
	}
}

// BenchmarkRun measures one `print(1)` per layer combination, so the cost
// of each layer is the difference to the one before:
//
//	basic     process group, rlimits, env, private dir (no seccomp)
//	seccomp   + the seccomp filter
//	landlock  + Landlock
//	cgroup    basic + seccomp + a cgroup (no Landlock)
//	bwrap     namespace level: + bubblewrap (Landlock and seccomp inside)
//	full      bwrap + cgroup, the default where everything is available
//	*-dir     the same in a project dir (Request.Dir, the program as a file)
func BenchmarkRun(b *testing.B) {
	type variant struct {
		name      string
		isolation string
		cgroup    bool
		seccomp   bool
		dir       bool
	}
	for _, v := range []variant{
		{"basic", IsolationBasic, false, false, false},
		{"seccomp", IsolationBasic, false, true, false},
		{"landlock", IsolationLandlock, false, true, false},
		{"cgroup", IsolationBasic, true, true, false},
		{"bwrap", IsolationNamespace, false, true, false},
		{"full", IsolationNamespace, true, true, false},
		{"landlock-dir", IsolationLandlock, false, true, true},
		{"full-dir", IsolationNamespace, true, true, true},
	} {
		b.Run(v.name, func(b *testing.B) {
			// LOOPFORGE_BENCH_SELF: measure another shim binary (the app
			// itself, or ./cmd/loopforge-shim) instead of this test binary.
			r, err := NewRunner(Options{Isolation: v.isolation, NoCgroup: !v.cgroup, Self: os.Getenv("LOOPFORGE_BENCH_SELF")})
			if err != nil {
				b.Fatal(err)
			}
			if r.isolation != v.isolation || (v.cgroup && r.cgroups == nil) || (v.seccomp && !r.seccomp) {
				b.Skipf("%s is not available here (%s)", v.name, r.Isolation())
			}
			r.seccomp = v.seccomp
			ctx := context.Background()
			req := Request{Code: "print(1)"}
			if v.dir {
				req.Dir = b.TempDir()
			}
			for b.Loop() {
				res, err := r.Run(ctx, req)
				if err != nil || res.Status != StatusOK {
					b.Fatalf("%q %v %s", res.Status, err, res.Stderr)
				}
			}
		})
	}
}
