//go:build linux

package sandbox

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/loopforge/loopforge/backend/testwait"
)

// prepareOn prepares req on r under a fresh marker (see helpers_test.go).
func prepareOn(t testing.TB, r *Runner, ctx context.Context, req Request) (*prepared, string) {
	t.Helper()
	m := newMarker()
	p, err := r.Prepare(withMarker(ctx, m), req)
	if err != nil {
		t.Fatalf("Prepare: %v", err)
	}
	t.Cleanup(p.Close)
	return p.(*prepared), m
}

// warmRunOn is runOn through a prepared sandbox, handed its code once the
// shim has reported (the interpreter is starting or, mostly, waiting).
func warmRunOn(t testing.TB, r *Runner, ctx context.Context, req Request) (Result, string) {
	t.Helper()
	p, m := prepareOn(t, r, ctx, req)
	<-p.x.reported
	res, err := p.Run(ctx, req)
	if err != nil {
		t.Fatalf("Prepared.Run: %v\nstderr: %s", err, res.Stderr)
	}
	return res, m
}

// readyRunOn is warmRunOn handing the code over only once the interpreter
// waits for it (it has opened its program file: the link to the pipe).
func readyRunOn(t testing.TB, r *Runner, ctx context.Context, req Request) (Result, string) {
	t.Helper()
	p, m := prepareOn(t, r, ctx, req)
	waitInterpreterReady(t, p, m)
	res, err := p.Run(ctx, req)
	if err != nil {
		t.Fatalf("Prepared.Run: %v\nstderr: %s", err, res.Stderr)
	}
	return res, m
}

// programPipe is the pipe a prepared interpreter reads its program from, as
// /proc/<pid>/fd shows it ("pipe:[N]"), and how many of pid's descriptors
// lead to it.
func programPipe(pid int) (pipe string, n int) {
	fdDir := "/proc/" + strconv.Itoa(pid) + "/fd/"
	pipe, err := os.Readlink(fdDir + strconv.Itoa(progFD))
	if err != nil || !strings.HasPrefix(pipe, "pipe:") {
		return "", 0
	}
	entries, _ := os.ReadDir(fdDir)
	for _, e := range entries {
		if l, err := os.Readlink(fdDir + e.Name()); err == nil && l == pipe {
			n++
		}
	}
	return pipe, n
}

// waitInterpreterReady waits until the prepared run's interpreter has
// started and opened its program (a second descriptor on the program
// pipe: it is blocked reading it), or the prepared sandbox has ended.
func waitInterpreterReady(t testing.TB, p Prepared, marker string) {
	t.Helper()
	done := p.(*prepared).x.proc.Done()
	testwait.Until(t, "the prepared interpreter to wait for its program", time.Minute, func() bool {
		select {
		case <-done:
			return true
		default:
		}
		for _, pid := range markedProcs(marker) {
			if _, n := programPipe(pid); n >= 2 {
				return true
			}
		}
		return false
	})
}

// wantNothingLeft fails unless the run's processes, run dirs, hook dirs
// and cgroup directories are all gone.
func wantNothingLeft(t *testing.T, r *Runner, p *prepared, marker string) {
	t.Helper()
	wantNoSurvivors(t, marker)
	r.Wait()
	if entries, _ := os.ReadDir(r.tempRoot); len(entries) != 0 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("left in the temp root: %v", names)
	}
	if p.x.cg != nil {
		for _, d := range p.x.cg.dirs() {
			if fileExists(d) {
				t.Errorf("cgroup %s left behind", d)
			}
		}
	}
}

// TestWarmRunsLikeCold: the same programs give the same results warm (the
// code handed over once the interpreter waits for it) and cold, at every
// level and in every language: stdin is the program's own, the exit
// status, the output cap.
func TestWarmRunsLikeCold(t *testing.T) {
	cases := []struct {
		name string
		req  Request
	}{
		{"python-stdin", Request{Code: "import sys\nprint('got', sys.stdin.read())\nsys.exit(3)", Stdin: []byte("input text")}},
		{"python-no-stdin", Request{Code: "print(input())"}},
		{"sh-stdin", Request{Language: "sh", Code: "read x\necho \"x=$x\"\ncat", Stdin: []byte("one\ntwo\n")}},
		{"node", Request{Language: "node", Code: "process.stdout.write(require('fs').readFileSync(0, 'utf8').toUpperCase())", Stdin: []byte("abc")}},
		{"output-cap", Request{Code: "import sys\nwhile True: sys.stdout.write('x' * 65536)", Limits: Limits{OutputHardCap: 1 << 20}}},
	}
	forEachLevel(t, func(t *testing.T, level string, r *Runner) {
		for _, c := range cases {
			if c.req.Language == "node" && r.node == "" {
				continue
			}
			cold, m := runOn(t, r, context.Background(), c.req)
			wantNoSurvivors(t, m)
			warm, m := readyRunOn(t, r, context.Background(), c.req)
			wantNoSurvivors(t, m)
			if c.name == "output-cap" { // how much got through before the kill varies
				warm.Stdout, cold.Stdout = "", ""
			}
			if warm.Status != cold.Status || warm.ExitCode != cold.ExitCode || warm.Stdout != cold.Stdout ||
				lastLine(warm.Stderr) != lastLine(cold.Stderr) || warm.Isolation != cold.Isolation ||
				!slices.Equal(warm.Layers, cold.Layers) || warm.Protections != cold.Protections {
				t.Errorf("%s: warm %s %d %.80q %q %s %v; cold %s %d %.80q %q %s %v", c.name,
					warm.Status, warm.ExitCode, warm.Stdout, lastLine(warm.Stderr), warm.Isolation, warm.Layers,
					cold.Status, cold.ExitCode, cold.Stdout, lastLine(cold.Stderr), cold.Isolation, cold.Layers)
			}
		}
		wantDirEmpty(t, r)
		if s := r.WarmStats(); s.Used == 0 || s.Fallbacks != 0 || s.Discarded != 0 {
			t.Errorf("warm stats %+v", s)
		}
	})
}

// TestWarmTracebackNamesTheProgram: a warm program is a file by the time it
// runs (out of its run dir, which starts empty), so a traceback quotes its
// lines and __file__ reads it.
func TestWarmTracebackNamesTheProgram(t *testing.T) {
	t.Parallel()
	r := testRunner(t)
	res, m := warmRunOn(t, r, context.Background(), Request{Code: "import os\nx = os.listdir('.')\nraise ValueError('boom ' + open(__file__).read().split()[0] + str(x))\n"})
	wantNoSurvivors(t, m)
	if !strings.Contains(res.Stderr, "loopforge-code.py\", line 3") || !strings.Contains(res.Stderr, "raise ValueError") ||
		lastLine(res.Stderr) != "ValueError: boom import[]" {
		t.Errorf("stderr %q", res.Stderr)
	}
}

// TestWarmUnusedTornDown: a prepared sandbox that is closed unused leaves
// no process, run dir, hook dir or cgroup, and is counted.
func TestWarmUnusedTornDown(t *testing.T) {
	forEachLevel(t, func(t *testing.T, level string, r *Runner) {
		p, m := prepareOn(t, r, context.Background(), Request{Images: true})
		waitInterpreterReady(t, p, m)
		if !fileExists(p.x.wd) || !fileExists(p.x.hookDir) {
			t.Fatalf("the prepared run has no run dir or hook dir")
		}
		p.Close()
		wantNothingLeft(t, r, p, m)
		if s := r.WarmStats(); s != (WarmStats{Prepared: 1, Discarded: 1}) {
			t.Errorf("warm stats %+v", s)
		}
		if _, err := p.Run(context.Background(), Request{Code: "print(1)"}); !errors.Is(err, ErrPreparedUsed) {
			t.Errorf("Run after Close: %v", err)
		}
	})
}

// TestWarmCancelDuringPrepare: the caller's context ends while the sandbox
// is still being set up, or once its interpreter waits: everything it
// started dies without a Close, and Close removes the rest. A context that
// has ended already prepares nothing.
func TestWarmCancelDuringPrepare(t *testing.T) {
	forEachLevel(t, func(t *testing.T, level string, r *Runner) {
		for _, ready := range []bool{false, true} {
			ctx, cancel := context.WithCancel(context.Background())
			p, m := prepareOn(t, r, ctx, Request{})
			if ready {
				waitInterpreterReady(t, p, m)
			}
			cancel() // unless ready: Prepare returns once the process is started, bwrap or the shim still starting
			select {
			case <-p.x.proc.Done():
			case <-time.After(time.Minute):
				t.Fatalf("the prepared sandbox (ready %v) outlived its context", ready)
			}
			wantNoSurvivors(t, m)
			p.Close()
			wantNothingLeft(t, r, p, m)
			if _, err := r.Prepare(ctx, Request{}); !errors.Is(err, context.Canceled) {
				t.Errorf("Prepare on an ended context: %v", err)
			}
			wantDirEmpty(t, r)
		}
	})
}

// TestWarmTimeoutKillsChildren: the timeout of a warm run kills the
// program and what it started, and is reported as a timeout.
func TestWarmTimeoutKillsChildren(t *testing.T) {
	forEachLevel(t, func(t *testing.T, level string, r *Runner) {
		code := "import subprocess, time\nsubprocess.Popen(['sleep', '1000'])\nprint('ready', flush=True)\ntime.sleep(1000)"
		ready := newLiveCopy("ready\n")
		req := Request{Code: code, Limits: Limits{Timeout: 1500 * time.Millisecond}}
		p, m := prepareOn(t, r, context.Background(), req)
		waitInterpreterReady(t, p, m)
		req.LiveStdout = ready
		res, err := p.Run(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		wantStatus(t, res, StatusTimeout)
		if ready.String() != "ready\n" || res.Stdout != "ready\n" {
			t.Errorf("live %q, stdout %q", ready.String(), res.Stdout)
		}
		wantNothingLeft(t, r, p, m)
	})
}

// TestWarmLiveOutputAndCancel: a warm program's output reaches the live
// writers while it runs, and cancelling the run's context stops it.
func TestWarmLiveOutputAndCancel(t *testing.T) {
	forEachLevel(t, func(t *testing.T, level string, r *Runner) {
		out, errw := newLiveCopy("first line\n"), newLiveCopy("a warning\n")
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		req := Request{Code: "import sys, time\nprint('first line')\nprint('a warning', file=sys.stderr)\ntime.sleep(3600)",
			Limits: Limits{Timeout: 2 * time.Hour}}
		// Prepared under a context of its own: the run's is the one given
		// to Run, as the loop does with an execution's.
		p, m := prepareOn(t, r, context.Background(), req)
		waitInterpreterReady(t, p, m)
		req.LiveStdout, req.LiveStderr = out, errw
		done := make(chan Result, 1)
		go func() {
			res, err := p.Run(ctx, req)
			if err != nil {
				t.Errorf("Run: %v", err)
			}
			done <- res
		}()
		waitSeen(t, out, "stdout")
		waitSeen(t, errw, "stderr")
		cancel()
		res := <-done
		wantStatus(t, res, StatusKilled)
		if res.Stdout != "first line\n" || res.Stderr != "a warning\n" {
			t.Errorf("stdout %q, stderr %q", res.Stdout, res.Stderr)
		}
		wantNothingLeft(t, r, p, m)
	})
}

// TestWarmPictures: the pictures of a warm run come back as a cold run's
// (an image file it writes; matplotlib's figures where it is installed).
func TestWarmPictures(t *testing.T) {
	mpl := matplotlibIn(testRunner(t).Python())
	forEachLevel(t, func(t *testing.T, level string, r *Runner) {
		code := pngPrelude + "png('plot.png', 3, 2)\n"
		want := []string{"plot.png"}
		if mpl {
			code += "import matplotlib.pyplot as plt\nplt.plot([1, 2, 3])\nplt.show()\n"
			want = append(want, "figure-1.png")
		}
		req := Request{Code: code, Images: true, Limits: Limits{Timeout: time.Minute}}
		res, m := warmRunOn(t, r, context.Background(), req)
		wantStatus(t, res, StatusOK)
		wantNoSurvivors(t, m)
		if got := names(res.Images); !slices.Equal(got, want) {
			t.Errorf("images %v, want %v (skipped %v, stderr %q)", got, want, res.ImagesSkipped, res.Stderr)
		}
		wantDirEmpty(t, r)
		wantNoHookDirs(t, r)
	})
}

// logBuffer is what the default logger wrote during a test.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// logTo sends the default logger to a buffer for the rest of the test
// (which must not be parallel).
func logTo(t *testing.T) *logBuffer {
	buf := &logBuffer{}
	old := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(buf, nil)))
	t.Cleanup(func() { slog.SetDefault(old) })
	return buf
}

// TestWarmFallsBackToCold: a prepared sandbox that died before its code
// came, or was prepared for another request, is not used: the code runs
// cold, and the reason is logged and counted.
func TestWarmFallsBackToCold(t *testing.T) {
	log := logTo(t)
	r, err := NewRunner(Options{TempRoot: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}

	p, m := prepareOn(t, r, context.Background(), Request{})
	<-p.x.reported
	if err := syscall.Kill(-p.x.proc.Pid(), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-p.x.proc.Done()
	res, err := p.Run(context.Background(), Request{Code: "print('ran cold')"})
	if err != nil || res.Status != StatusOK || res.Stdout != "ran cold\n" {
		t.Fatalf("after the prepared sandbox died: %v %s %q %q", err, res.Status, res.Stdout, res.Stderr)
	}
	wantNothingLeft(t, r, p, m)
	if !strings.Contains(log.String(), "running cold") || !strings.Contains(log.String(), "killed before its code came") {
		t.Errorf("log: %s", log)
	}

	p, m = prepareOn(t, r, context.Background(), Request{Language: "python"})
	res, err = p.Run(context.Background(), Request{Language: "sh", Code: "echo from sh"})
	if err != nil || res.Status != StatusOK || res.Stdout != "from sh\n" {
		t.Fatalf("another language: %v %s %q %q", err, res.Status, res.Stdout, res.Stderr)
	}
	wantNothingLeft(t, r, p, m)
	if !strings.Contains(log.String(), `prepared for language \"python\", the code is \"sh\"`) {
		t.Errorf("log: %s", log)
	}
	if s := r.WarmStats(); s != (WarmStats{Prepared: 2, Discarded: 2, Fallbacks: 2}) {
		t.Errorf("warm stats %+v", s)
	}
}

// TestWarmSecondRun: a prepared sandbox runs once; Close afterwards does
// nothing.
func TestWarmSecondRun(t *testing.T) {
	t.Parallel()
	r, err := NewRunner(Options{TempRoot: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	p, m := prepareOn(t, r, context.Background(), Request{})
	if res, err := p.Run(context.Background(), Request{Code: "print(1)"}); err != nil || res.Stdout != "1\n" {
		t.Fatalf("%v %q %q", err, res.Stdout, res.Stderr)
	}
	if _, err := p.Run(context.Background(), Request{Code: "print(2)"}); !errors.Is(err, ErrPreparedUsed) {
		t.Errorf("second Run: %v", err)
	}
	p.Close()
	wantNothingLeft(t, r, p, m)
	if s := r.WarmStats(); s != (WarmStats{Prepared: 1, Used: 1}) {
		t.Errorf("warm stats %+v", s)
	}
	if entries, _ := os.ReadDir(filepath.Dir(p.x.wd)); len(entries) != 0 {
		t.Errorf("left %v", entries)
	}
}

// TestWarmPrepareLimit: no more than MaxPrepared sandboxes wait at once; a
// Prepare beyond that is refused (the caller runs cold) and counted, and a
// place comes back when a prepared sandbox is handed its code or closed.
func TestWarmPrepareLimit(t *testing.T) {
	r, err := NewRunner(Options{Isolation: IsolationBasic, TempRoot: t.TempDir(), MaxPrepared: 2})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	a, _ := prepareOn(t, r, ctx, Request{})
	b, _ := prepareOn(t, r, ctx, Request{})
	if _, err := r.Prepare(ctx, Request{}); !errors.Is(err, ErrPrepareLimit) {
		t.Fatalf("a third Prepare: %v, want ErrPrepareLimit", err)
	}
	if s := r.WarmStats(); s.Live != 2 || s.Refused != 1 {
		t.Errorf("warm stats %+v", s)
	}
	a.Close()
	c, _ := prepareOn(t, r, ctx, Request{})
	res, err := b.Run(ctx, Request{Code: "print(1)"})
	if err != nil || res.Stdout != "1\n" {
		t.Fatalf("Run: %v %q", err, res.Stdout)
	}
	d, _ := prepareOn(t, r, ctx, Request{})
	c.Close()
	d.Close()
	if s := r.WarmStats(); s != (WarmStats{Prepared: 4, Used: 1, Discarded: 3, Refused: 1}) {
		t.Errorf("warm stats %+v", s)
	}
}
