//go:build linux

package procgroup

import (
	"bufio"
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// A long grace: a test that waits for it has failed (the command was to
// exit on SIGTERM), and still ends.
const longGrace = time.Minute

// started is a command started by Start whose script printed "ready" and
// the pid of a background child in the group; the tests stop it only then.
type started struct {
	*Proc
	child int
}

// startScript starts script under Start and waits for its first line: the
// pid of a background child ($!), then "ready".
func startScript(t *testing.T, ctx context.Context, o Options, script string) started {
	t.Helper()
	cmd := exec.Command("/bin/sh", "-c", script)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(ctx)
	p, err := Start(ctx, cmd, o)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); p.Wait() }) // stops what a failed test left running
	sc := bufio.NewScanner(out)
	var lines []string
	for len(lines) < 2 && sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if len(lines) < 2 || lines[1] != "ready" {
		t.Fatalf("the script printed %q", lines)
	}
	child, err := strconv.Atoi(lines[0])
	if err != nil {
		t.Fatal(err)
	}
	return started{p, child}
}

func wantDead(t *testing.T, pid int) {
	t.Helper()
	if Alive(pid) {
		_ = syscall.Kill(pid, syscall.SIGKILL)
		t.Errorf("process %d outlived Wait", pid)
	}
}

func TestStartExitCodeAndSignal(t *testing.T) {
	for _, tc := range []struct {
		script string
		code   int
		sig    syscall.Signal
		shell  int
	}{
		{"exit 0", 0, 0, 0},
		{"exit 3", 3, 0, 3},
		{"kill -USR1 $$", -1, syscall.SIGUSR1, 128 + int(syscall.SIGUSR1)},
	} {
		p, err := Start(context.Background(), exec.Command("/bin/sh", "-c", tc.script), Options{})
		if err != nil {
			t.Fatal(err)
		}
		x := p.Wait()
		if x.Code != tc.code || x.Signal != tc.sig || x.ShellCode() != tc.shell || x.Stopped || x.TimedOut {
			t.Errorf("%s: %+v", tc.script, x)
		}
		var ee *exec.ExitError
		if (tc.shell == 0) != (x.Err == nil) || (x.Err != nil && !errors.As(x.Err, &ee)) {
			t.Errorf("%s: Err = %v", tc.script, x.Err)
		}
		if again := p.Wait(); again.Code != x.Code || again.State != x.State {
			t.Errorf("%s: a second Wait reported %+v", tc.script, again)
		}
	}
	if got := (Exit{}).ShellCode(); got != -1 {
		t.Errorf("ShellCode of a command not waited for = %d", got)
	}
}

func TestStartSetsSessionKeepsAttrs(t *testing.T) {
	cmd := exec.Command("/bin/sh", "-c", "exit 0")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	p, err := Start(context.Background(), cmd, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if x := p.Wait(); x.Err != nil {
		t.Fatal(x.Err)
	}
	if a := cmd.SysProcAttr; !a.Setsid || a.Setpgid || a.Pdeathsig != syscall.SIGKILL {
		t.Errorf("SysProcAttr %+v", a)
	}
}

// What the leader leaves running in its group dies when it exits.
func TestStartLeaderExitKillsGroup(t *testing.T) {
	s := startScript(t, context.Background(), Options{}, "sleep 1000 & echo $!; echo ready")
	x := s.Wait()
	if x.Err != nil || x.Stopped || x.SweepErr != nil {
		t.Errorf("%+v", x)
	}
	wantDead(t, s.child)
}

// A command that exits on SIGTERM is not SIGKILLed.
func TestStartTermHonoured(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s := startScript(t, ctx, Options{Grace: longGrace},
		"trap 'exit 7' TERM; sleep 1000 & echo $!; echo ready; wait")
	cancel()
	x := s.Wait()
	if !x.Stopped || x.TimedOut || x.Signal != 0 || x.Code != 7 {
		t.Errorf("%+v", x)
	}
	if !errors.Is(x.Err, context.Canceled) || !errors.Is(x.Cause, context.Canceled) {
		t.Errorf("Err %v, Cause %v", x.Err, x.Cause)
	}
	wantDead(t, s.child)
}

// A command that ignores SIGTERM is SIGKILLed after the grace period, and
// so is the rest of its group; OnKill hears of it.
func TestStartTermIgnored(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var kills atomic.Int32
	// Ignored signals stay ignored across exec: nothing here answers TERM.
	s := startScript(t, ctx, Options{Grace: 10 * time.Millisecond, OnKill: func() { kills.Add(1) }},
		"trap '' TERM; sleep 1000 & echo $!; echo ready; exec sleep 1000")
	cancel()
	x := s.Wait()
	if !x.Stopped || x.Signal != syscall.SIGKILL || x.Code != -1 || x.ShellCode() != 128+9 {
		t.Errorf("%+v", x)
	}
	if kills.Load() == 0 {
		t.Error("OnKill was not called")
	}
	wantDead(t, s.child)
}

// Grace 0: SIGKILL at once, the child of the group too.
func TestStartCancelKills(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	why := errors.New("output limit")
	s := startScript(t, ctx, Options{}, "sleep 1000 & echo $!; echo ready; exec sleep 1000")
	cancel(why)
	x := s.Wait()
	if !x.Stopped || x.TimedOut || x.Signal != syscall.SIGKILL || x.Cause != why || !errors.Is(x.Err, context.Canceled) {
		t.Errorf("%+v", x)
	}
	wantDead(t, s.child)
}

func TestStartTimeout(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	p, err := Start(ctx, exec.Command("/bin/sh", "-c", "sleep 1000 & exec sleep 1000"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	x := p.Wait()
	if !x.Stopped || !x.TimedOut || x.Signal != syscall.SIGKILL || !errors.Is(x.Err, context.DeadlineExceeded) ||
		!errors.Is(x.Cause, context.DeadlineExceeded) {
		t.Errorf("%+v", x)
	}
}

// A context that ends after the command exited stops nothing.
func TestStartCancelAfterExit(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	p, err := Start(ctx, exec.Command("/bin/sh", "-c", "exit 4"), Options{Grace: longGrace})
	if err != nil {
		t.Fatal(err)
	}
	<-p.Done()
	cancel()
	if x := p.Wait(); x.Stopped || x.Code != 4 {
		t.Errorf("%+v", x)
	}
}

func TestStartNotStarted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	cmd := exec.Command("/bin/sh", "-c", "exit 0")
	if _, err := Start(ctx, cmd, Options{}); !errors.Is(err, context.Canceled) || cmd.Process != nil {
		t.Errorf("Start with an ended ctx: %v, process %v", err, cmd.Process)
	}
	for _, o := range []Options{{}, {Reap: true}} {
		_, err := Start(context.Background(), exec.Command("/nonexistent/cli"), o)
		var pe *os.PathError
		if !errors.As(err, &pe) || !errors.Is(err, fs.ErrNotExist) || pe.Path != "/nonexistent/cli" {
			t.Errorf("reap %v: err = %#v", o.Reap, err)
		}
	}
	cmd = exec.Command("/bin/sh")
	cmd.SysProcAttr = &syscall.SysProcAttr{}
	if _, err := Start(context.Background(), cmd, Options{Reap: true}); err == nil || cmd.Process != nil {
		t.Errorf("a reaped command with SysProcAttr: %v", err)
	}
}

func TestStartOnSweepError(t *testing.T) {
	bad := errors.New("cgroup not empty")
	p, err := Start(context.Background(), exec.Command("/bin/sh", "-c", "exit 0"), Options{OnSweep: func() error { return bad }})
	if err != nil {
		t.Fatal(err)
	}
	if x := p.Wait(); !errors.Is(x.SweepErr, bad) {
		t.Errorf("SweepErr %v", x.SweepErr)
	}
}

// Under a reaper, what left the group dies too, on cancel and on exit;
// a command killed by signal n reports 128+n.
func TestStartReaped(t *testing.T) {
	for _, end := range []string{"exit", "cancel"} {
		t.Run(end, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "pid")
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			tail := "exit 0"
			if end == "cancel" {
				tail = "exec sleep 1000"
			}
			// The escapee is a double-forked orphan in a session of its own.
			s := startScript(t, ctx, Options{Reap: true, Grace: longGrace},
				escape(t, file, true)+"while [ ! -s "+file+" ]; do sleep 0.01; done; "+
					"sleep 1000 & echo $!; echo ready; "+tail)
			escapee := waitPID(t, file)
			if end == "cancel" {
				cancel()
			}
			x := s.Wait()
			want := 0
			if end == "cancel" {
				want = 128 + int(syscall.SIGTERM) // sleep dies of the group's SIGTERM
			}
			if x.ShellCode() != want || x.Stopped != (end == "cancel") {
				t.Errorf("%+v", x)
			}
			wantDead(t, s.child)
			wantDead(t, escapee) // the reaper adopted it, killed and reaped it
		})
	}
}

// The reaper runs the command's argv and environment, not its own.
func TestStartReapedCommandLine(t *testing.T) {
	cmd := exec.Command("/bin/sh", "-c", `echo "$0 $1 $FOO"`, "zero", "one")
	cmd.Env = []string{"FOO=bar"}
	var out strings.Builder
	cmd.Stdout = &out
	p, err := Start(context.Background(), cmd, Options{Reap: true})
	if err != nil {
		t.Fatal(err)
	}
	if x := p.Wait(); x.Err != nil {
		t.Fatal(x.Err)
	}
	if out.String() != "zero one bar\n" {
		t.Errorf("output %q", out.String())
	}
}
