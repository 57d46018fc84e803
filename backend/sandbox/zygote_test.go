//go:build linux

package sandbox

import (
	"bytes"
	"context"
	"errors"
	"github.com/loopforge/loopforge/backend/procgroup"
	"github.com/loopforge/loopforge/backend/testwait"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// zygoteRunner is a Runner whose script-mode Python runs go through a
// zygote of the test's own, closed at the end of the test.
func zygoteRunner(t testing.TB) *Runner {
	t.Helper()
	r, err := NewRunner(Options{Zygote: ZygoteAll, TempRoot: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if r.zyg == nil {
		t.Skipf("no zygote here: %s", r.zygoteUsable())
	}
	t.Cleanup(func() { r.Close(); r.Wait() })
	return r
}

// runInZygote runs req and fails unless the zygote ran it.
func runInZygote(t testing.TB, r *Runner, req Request) Result {
	t.Helper()
	res, err := r.Run(context.Background(), req)
	if err != nil {
		t.Fatalf("Run: %v (%s)", err, res.Stderr)
	}
	if !slices.Contains(res.Layers, "zygote") {
		t.Fatalf("the zygote did not run it: layers %v", res.Layers)
	}
	return res
}

func TestZygoteHello(t *testing.T) {
	r := zygoteRunner(t)
	res := runInZygote(t, r, Request{Code: "import os, sys\nprint('hello', os.getcwd() == os.environ['HOME'], sys.argv, os.getpid())"})
	if res.Status != StatusOK || !strings.HasPrefix(res.Stdout, "hello True ['-'] 2") {
		t.Fatalf("%s: %q %q", res.Status, res.Stdout, res.Stderr)
	}
	t.Logf("%v %v", res.Duration, res.Layers)
	res = runInZygote(t, r, Request{Code: "raise ValueError('boom')", Limits: Limits{Timeout: 5 * time.Second}})
	t.Logf("%s %q %q %v", res.Status, res.Stdout, res.Stderr, zygoteTree(r))
	wantZygoteIdle(t, r)
}

// zygoteTree lists the live processes beneath the Runner's zygote's
// bubblewrap (its namespace's init and the zygote among them).
func zygoteTree(r *Runner) []int {
	r.zyg.mu.Lock()
	z := r.zyg.z
	r.zyg.mu.Unlock()
	if z == nil {
		return nil
	}
	root := z.cmd.Process.Pid
	entries, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || !procgroup.Alive(pid) {
			continue
		}
		for p, n := pid, 0; p > 1 && n < 64; n++ {
			pp, ok := procgroup.Parent(p)
			if !ok {
				break
			}
			if pp == root {
				out = append(out, pid)
				break
			}
			p = pp
		}
	}
	return out
}

// wantZygoteIdle fails unless the zygote's tree is back to bubblewrap's
// init and the zygote: nothing of a finished run is left.
func wantZygoteIdle(t testing.TB, r *Runner) {
	t.Helper()
	testwait.Until(t, "the zygote's tree to hold only bubblewrap's init and the zygote", 10*time.Second,
		func() bool { return len(zygoteTree(r)) <= 2 })
}

// TestZygoteOutcomes: the zygote reports what a fresh run reports.
func TestZygoteOutcomes(t *testing.T) {
	r := zygoteRunner(t)
	short := Limits{Timeout: 1500 * time.Millisecond}
	png := "import base64\nopen('dot.png', 'wb').write(base64.b64decode('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=='))\nprint('drawn')"
	cases := []struct {
		name  string
		req   Request
		check func(t *testing.T, res Result)
	}{
		{"exit-code", Request{Code: "import sys\nprint('out')\nsys.exit(3)"}, func(t *testing.T, res Result) {
			if res.Status != StatusError || res.ExitCode != 3 || res.Stdout != "out\n" {
				t.Errorf("%s exit %d %q", res.Status, res.ExitCode, res.Stdout)
			}
		}},
		{"syntax-error", Request{Code: "def f(:\n"}, func(t *testing.T, res Result) {
			if res.Status != StatusError || !strings.Contains(res.Stderr, "SyntaxError") || strings.Contains(res.Stderr, zygoteScriptName) {
				t.Errorf("%s %q", res.Status, res.Stderr)
			}
		}},
		{"traceback", Request{Code: "def f():\n    1/0\nf()"}, func(t *testing.T, res Result) {
			if res.Status != StatusError || !strings.HasPrefix(res.Stderr, "Traceback (most recent call last):\n  File \"<stdin>\", line 3") || strings.Contains(res.Stderr, zygoteScriptName) {
				t.Errorf("%s %q", res.Status, res.Stderr)
			}
		}},
		{"stdin", Request{Code: "import sys\nprint(input().upper(), sys.argv[0] == __file__)", Stdin: []byte("abc\n")}, func(t *testing.T, res Result) {
			if res.Status != StatusOK || res.Stdout != "ABC True\n" {
				t.Errorf("%s %q %q", res.Status, res.Stdout, res.Stderr)
			}
		}},
		{"no-stdin", Request{Code: "try:\n    input()\nexcept EOFError:\n    print('eof')"}, func(t *testing.T, res Result) {
			if res.Status != StatusOK || res.Stdout != "eof\n" {
				t.Errorf("%s %q %q", res.Status, res.Stdout, res.Stderr)
			}
		}},
		{"timeout", Request{Code: "print('partial', flush=True)\nwhile True: pass", Limits: short}, func(t *testing.T, res Result) {
			if res.Status != StatusTimeout || res.Stdout != "partial\n" {
				t.Errorf("%s %q", res.Status, res.Stdout)
			}
		}},
		{"output-cap", Request{Code: "while True: print('x' * 1000)", Limits: Limits{OutputHardCap: 64 * kib}}, func(t *testing.T, res Result) {
			if res.Status != StatusOutputLimit {
				t.Errorf("%s after %d bytes", res.Status, res.StdoutBytes)
			}
		}},
		{"memory", Request{Code: "x = bytearray(3 << 30)", Limits: Limits{MemoryBytes: 256 * mib}}, func(t *testing.T, res Result) {
			if res.Status != StatusMemory {
				t.Errorf("%s %q", res.Status, res.Stderr)
			}
		}},
		{"environment", Request{Code: "import os, tempfile\nprint(sorted(os.environ), tempfile.gettempdir() == os.getcwd())"}, func(t *testing.T, res Result) {
			want := "['HOME', 'LANG', 'PATH', 'PYTHONDONTWRITEBYTECODE', 'PYTHONIOENCODING', 'PYTHONUNBUFFERED', 'TMPDIR'] True\n"
			if res.Status != StatusOK || res.Stdout != want {
				t.Errorf("%s %q %q", res.Status, res.Stdout, res.Stderr)
			}
		}},
		{"pictures", Request{Code: png, Images: true}, func(t *testing.T, res Result) {
			if res.Status != StatusOK || len(res.Images) != 1 {
				t.Errorf("%s %q %d pictures %v", res.Status, res.Stderr, len(res.Images), res.ImagesSkipped)
			}
		}},
		{"threads-joined", Request{Code: "import threading, time\nthreading.Thread(target=lambda: (time.sleep(0.2), print('late'))).start()\nprint('main')"}, func(t *testing.T, res Result) {
			if res.Status != StatusOK || res.Stdout != "main\nlate\n" {
				t.Errorf("%s %q %q", res.Status, res.Stdout, res.Stderr)
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := runInZygote(t, r, c.req)
			c.check(t, res)
			wantZygoteIdle(t, r)
		})
	}
	r.Wait()
	wantZygoteRootEmpty(t, r)
}

// wantZygoteRootEmpty fails unless the zygote's runs root holds nothing
// but its own script directory once the runs are cleaned up.
func wantZygoteRootEmpty(t testing.TB, r *Runner) {
	t.Helper()
	r.zyg.mu.Lock()
	z := r.zyg.z
	r.zyg.mu.Unlock()
	if z == nil {
		return
	}
	entries, _ := os.ReadDir(z.root)
	for _, e := range entries {
		if filepath.Join(z.root, e.Name()) != z.dir {
			t.Errorf("left in the zygote's runs root: %s", e.Name())
		}
	}
}

// liveLine calls f with the first line a run prints.
type liveLine struct {
	mu   sync.Mutex
	buf  []byte
	line chan string
}

func newLiveLine() *liveLine { return &liveLine{line: make(chan string, 1)} }

func (l *liveLine) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	had := bytes.IndexByte(l.buf, '\n') >= 0
	l.buf = append(l.buf, p...)
	if i := bytes.IndexByte(l.buf, '\n'); i >= 0 && !had {
		l.line <- string(l.buf[:i])
	}
	return len(p), nil
}

// TestHostileZygoteCrossRun: a run attacks another run of the same zygote, and
// the zygote itself, while they live: their files, their processes,
// signals, ptrace, the descriptors it was given.
func TestHostileZygoteCrossRun(t *testing.T) {
	r := zygoteRunner(t)
	// The victim keeps a secret in its run dir and stays alive for the
	// attack.
	victimOut := newLiveLine()
	type outcome struct {
		res Result
		err error
	}
	victim := make(chan outcome, 1)
	go func() {
		res, err := r.Run(context.Background(), Request{Code: "import os, time\nopen('secret', 'w').write('victim-secret')\nprint(os.getcwd(), flush=True)\ntime.sleep(4)\nprint('survived')",
			LiveStdout: victimOut, Limits: Limits{Timeout: 20 * time.Second}})
		victim <- outcome{res, err}
	}()
	var victimWD string
	select {
	case victimWD = <-victimOut.line:
	case o := <-victim:
		t.Fatalf("the victim ended first: %v %s %q", o.err, o.res.Status, o.res.Stderr)
	}
	r.zyg.mu.Lock()
	z := r.zyg.z
	r.zyg.mu.Unlock()
	code := strings.NewReplacer("{{VICTIM}}", victimWD, "{{ZPID}}", strconv.Itoa(z.pid)).Replace(tryPrelude + `import ctypes, signal
victim, zpid = "{{VICTIM}}", {{ZPID}}
try_("list_root", lambda: os.listdir(os.path.dirname(victim)))
try_("read_victim", lambda: open(victim + "/secret").read())
try_("write_victim", lambda: open(victim + "/planted", "w").write("x"))
try_("symlink_victim", lambda: os.symlink(victim + "/secret", "link") or open("link").read())
try_("list_proc", lambda: os.listdir("/proc"))
try_("zygote_environ", lambda: open("/proc/%d/environ" % zpid).read())
try_("zygote_mem", lambda: open("/proc/%d/mem" % zpid, "rb").read(1))
try_("zygote_fds", lambda: os.listdir("/proc/%d/fd" % zpid))
# The zygote, C1 and the other runs have no PID here: the only processes
# the code can name are its namespace's init (1) and itself (2).
def visible():
    seen = []
    for p in range(3, 5000):
        try:
            os.kill(p, 0)
            seen.append(p)
        except OSError:
            pass
        try:
            os.close(os.pidfd_open(p))
            seen.append(p)
        except OSError:
            pass
    if seen:
        raise RuntimeError("visible %s" % seen)
try_("no_pid_visible", visible)
libc = ctypes.CDLL(None, use_errno=True)
def ptrace():
    if libc.ptrace(16, zpid, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "ptrace")
try_("ptrace_zygote", ptrace)
def unshare():
    if libc.unshare(0x10000000) != 0:  # CLONE_NEWUSER
        raise OSError(ctypes.get_errno(), "unshare")
try_("unshare", unshare)
try_("kill_init", lambda: os.kill(1, signal.SIGKILL))
try_("kill_all", lambda: os.kill(-1, signal.SIGKILL))
try_("fds", lambda: ",".join(sorted(os.listdir("/proc/self/fd"))))
try_("uid", lambda: os.getuid())
done()
`)
	res := runInZygote(t, r, Request{Code: code, Limits: Limits{Timeout: 10 * time.Second}})
	if res.Status != StatusOK {
		t.Fatalf("%s %q %q %s %d", res.Status, res.Stdout, res.Stderr, res.Signal, res.ExitCode)
	}
	rep := report(t, res)
	for _, k := range []string{"list_root", "read_victim", "write_victim", "symlink_victim", "list_proc", "zygote_environ",
		"zygote_mem", "zygote_fds", "ptrace_zygote", "unshare", "kill_init"} {
		want(t, rep, k, false)
	}
	want(t, rep, "no_pid_visible", true)
	if rep["fds"] != "ok:0,1,2,3" { // 3: the listing's own
		t.Errorf("the code holds descriptors %s", rep["fds"])
	}
	t.Logf("attacker: %v", rep)
	o := <-victim
	if o.err != nil || o.res.Status != StatusOK || o.res.Stdout != victimWD+"\nsurvived\n" {
		t.Errorf("the victim: %v %s %q %q", o.err, o.res.Status, o.res.Stdout, o.res.Stderr)
	}
	// The zygote is the same process and still serves runs.
	r.zyg.mu.Lock()
	same := r.zyg.z == z
	r.zyg.mu.Unlock()
	if !same {
		t.Error("the zygote was replaced")
	}
	runInZygote(t, r, Request{Code: "print(1)"})
	wantZygoteIdle(t, r)
}

// TestHostileZygoteLeftovers: what a run starts in the background (a setsid
// daemon, a double fork) is gone when Run returns, and never sees the
// next run's files.
func TestHostileZygoteLeftovers(t *testing.T) {
	r := zygoteRunner(t)
	daemon := `import os, time, sys
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        for _ in range(200):
            try:
                for d in os.listdir(os.path.dirname(os.getcwd())):
                    print("seen", d, file=sys.stderr)
            except OSError:
                pass
            time.sleep(0.05)
        os._exit(0)
    os._exit(0)
time.sleep(0.2)
print("parent done")`
	res := runInZygote(t, r, Request{Code: daemon})
	if res.Status != StatusOK || res.Stdout != "parent done\n" || strings.Contains(res.Stderr, "seen") {
		t.Fatalf("%s %q %q", res.Status, res.Stdout, res.Stderr)
	}
	wantZygoteIdle(t, r)
	res = runInZygote(t, r, Request{Code: "open('next', 'w').write('x')\nimport time\ntime.sleep(0.3)\nprint('ok')"})
	if res.Status != StatusOK {
		t.Fatalf("%s %q", res.Status, res.Stderr)
	}
	wantZygoteIdle(t, r)
}

// TestHostileZygoteForkBomb: a fork bomb meets its own limit; the zygote still
// starts the next run while it rages, and nothing of it is left.
func TestHostileZygoteForkBomb(t *testing.T) {
	hostileEnabled(t)
	if !guarded() {
		t.Skip("no guard cgroup around the test")
	}
	r := zygoteRunner(t)
	if !r.nproc && (r.cgroups == nil || !r.cgroups.host.Pids) {
		t.Skip("nothing bounds a fork bomb here (root without a pids cgroup)")
	}
	started := newLiveLine()
	bomb := make(chan Result, 1)
	go func() {
		res, _ := r.Run(context.Background(), Request{Code: "import os\nprint('bombing', flush=True)\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass",
			LiveStdout: started, Limits: Limits{Timeout: 3 * time.Second, Processes: 64}})
		bomb <- res
	}()
	<-started.line
	res := runInZygote(t, r, Request{Code: "import os\nprint(os.getpid())"})
	if res.Status != StatusOK || res.Stdout != "2\n" {
		t.Errorf("a run beside the bomb: %s %q %q", res.Status, res.Stdout, res.Stderr)
	}
	b := <-bomb
	if b.Status != StatusTimeout || !slices.Contains(b.Layers, "zygote") {
		t.Errorf("the bomb: %s %v", b.Status, b.Layers)
	}
	wantZygoteIdle(t, r)
	runInZygote(t, r, Request{Code: "print(1)"})
}

// TestZygotePrepared: Prepare forks the run ahead of its code; Run hands
// the code over; Close, a cancelled Prepare and a different request end
// it without running anything of it.
func TestZygotePrepared(t *testing.T) {
	r := zygoteRunner(t)
	ctx := context.Background()
	req := Request{Code: "print('ignored')", Stdin: []byte("in\n"), Limits: Limits{Timeout: 5 * time.Second}}
	p, err := r.Prepare(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := p.(*zygotePrepared); !ok {
		t.Fatalf("Prepare gave a %T", p)
	}
	req.Code = "import sys\nprint(input(), open(__file__).read().count('input'))"
	res, err := p.Run(ctx, req)
	if err != nil || res.Status != StatusOK || res.Stdout != "in 2\n" || !zygoted(res) {
		t.Fatalf("%v %s %q %q %v", err, res.Status, res.Stdout, res.Stderr, res.Layers)
	}
	if _, err := p.Run(ctx, req); !errors.Is(err, ErrPreparedUsed) {
		t.Errorf("a second Run: %v", err)
	}
	wantZygoteIdle(t, r)

	// Closed unused.
	p, err = r.Prepare(ctx, Request{})
	if err != nil {
		t.Fatal(err)
	}
	p.Close()
	wantZygoteIdle(t, r)

	// Prepare's context ends first: Run starts afresh, in the zygote again.
	pctx, cancel := context.WithCancel(ctx)
	p, err = r.Prepare(pctx, Request{})
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	res, err = p.Run(ctx, Request{Code: "print('after')"})
	if err != nil || res.Status != StatusOK || res.Stdout != "after\n" {
		t.Errorf("after a cancelled Prepare: %v %s %q %q", err, res.Status, res.Stdout, res.Stderr)
	}
	wantZygoteIdle(t, r)

	// Another request than the prepared one runs on its own.
	p, err = r.Prepare(ctx, Request{})
	if err != nil {
		t.Fatal(err)
	}
	res, err = p.Run(ctx, Request{Code: "print(3)", Limits: Limits{MemoryBytes: 512 * mib}})
	if err != nil || res.Status != StatusOK || res.Stdout != "3\n" {
		t.Errorf("a different request: %v %s %q", err, res.Status, res.Stdout)
	}
	wantZygoteIdle(t, r)
	r.Wait()
	wantZygoteRootEmpty(t, r)
}

// TestZygoteFallback: runs the zygote cannot start run fresh, and three in
// a row turn it off; a zygote that died is replaced by the next run.
func TestZygoteFallback(t *testing.T) {
	t.Run("failing-runs", func(t *testing.T) {
		testHookZygoteConfig = func(c *zygoteConfig) { c.Seccomp = "00" } // not a filter: every run fails before its code
		t.Cleanup(func() { testHookZygoteConfig = nil })
		r := zygoteRunner(t)
		for i := range 4 {
			res, err := r.Run(context.Background(), Request{Code: "print('fresh')"})
			if err != nil || res.Status != StatusOK || res.Stdout != "fresh\n" || zygoted(res) {
				t.Fatalf("run %d: %v %s %q %v", i, err, res.Status, res.Stdout, res.Layers)
			}
		}
		r.zyg.mu.Lock()
		off, z := r.zyg.off, r.zyg.z
		r.zyg.mu.Unlock()
		if off == "" || z != nil {
			t.Errorf("the zygote is still on after failing every run (off %q)", off)
		}
	})
	t.Run("dead-zygote", func(t *testing.T) {
		r := zygoteRunner(t)
		runInZygote(t, r, Request{Code: "print(1)"})
		r.zyg.mu.Lock()
		z := r.zyg.z
		r.zyg.mu.Unlock()
		if err := syscall.Kill(-z.cmd.Process.Pid, syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		<-z.dead
		res := runInZygote(t, r, Request{Code: "print(2)"})
		if res.Status != StatusOK || res.Stdout != "2\n" {
			t.Errorf("%s %q", res.Status, res.Stdout)
		}
		r.zyg.mu.Lock()
		replaced := r.zyg.z != z
		r.zyg.mu.Unlock()
		if !replaced {
			t.Error("the dead zygote was not replaced")
		}
	})
}

// TestZygoteRunsDrawDifferentRandomNumbers: every run is a copy of one
// interpreter that imported random, so without a reseed after the fork
// every student's program would draw the same numbers.
func TestZygoteRunsDrawDifferentRandomNumbers(t *testing.T) {
	r := zygoteRunner(t)
	seen := map[string]bool{}
	for range 3 {
		res := runInZygote(t, r, Request{Code: "import random\nprint(random.random(), random.getrandbits(64))"})
		out := strings.TrimSpace(res.Stdout)
		if res.Status != StatusOK || out == "" {
			t.Fatalf("status %s, stdout %q, stderr %q", res.Status, res.Stdout, res.Stderr)
		}
		if seen[out] {
			t.Fatalf("two runs drew the same numbers: %s", out)
		}
		seen[out] = true
	}
}

// TestZygoteAskedForksOnlyTheRunsThatAsk: with ZygoteAsked (loopforge's
// default: a class's runs ask), a run without Request.Forked starts fresh.
func TestZygoteAskedForksOnlyTheRunsThatAsk(t *testing.T) {
	r, err := NewRunner(Options{Zygote: ZygoteAsked, TempRoot: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if r.zyg == nil {
		t.Skipf("no zygote here: %s", r.zygoteUsable())
	}
	t.Cleanup(func() { r.Close(); r.Wait() })
	fresh, err := r.Run(context.Background(), Request{Code: "print(1)"})
	if err != nil || fresh.Status != StatusOK || slices.Contains(fresh.Layers, "zygote") {
		t.Fatalf("a run that did not ask: %v, %s, layers %v", err, fresh.Status, fresh.Layers)
	}
	forked := runInZygote(t, r, Request{Code: "print(2)", Forked: true})
	if forked.Status != StatusOK || forked.Stdout != "2\n" {
		t.Fatalf("a run that asked: %s %q %q", forked.Status, forked.Stdout, forked.Stderr)
	}
}
