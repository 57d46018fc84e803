//go:build linux

package procgroup

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/loopforge/loopforge/backend/testproc"
	"github.com/loopforge/loopforge/backend/testwait"
)

// parentEnv makes the test binary play loopforge for TestParentDies: it
// starts a reaped command, reports the pid file, and waits to be killed.
const parentEnv = "PROCGROUP_TEST_PARENT"

func TestMain(m *testing.M) {
	testproc.Run() // the children of group_test.go
	if script := os.Getenv(parentEnv); script != "" {
		r := reap(exec.Command("/bin/sh", "-c", script))
		r.Cmd.Stdout = os.Stdout
		if err := r.Start(); err != nil {
			os.Exit(2)
		}
		for { // until SIGKILLed; a bare select{} would die as a deadlock
			time.Sleep(time.Hour)
		}
	}
	os.Exit(m.Run())
}

// waitDead polls until pid is dead, failing (and killing it) at a deadline.
func waitDead(t *testing.T, pid int) {
	t.Helper()
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
	testwait.Until(t, fmt.Sprintf("process %d to die with its reaper", pid), 10*time.Second,
		func() bool { return !Alive(pid) })
}

// waitFile polls until file has content and returns it as a pid.
func waitPID(t *testing.T, file string) int {
	t.Helper()
	var b []byte
	testwait.Until(t, "a pid in "+file, 10*time.Second, func() bool {
		var err error
		b, err = os.ReadFile(file)
		return err == nil && bytes.HasSuffix(b, []byte("\n"))
	})
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	return pid
}

// escape writes a script that runs `sleep` in a session of its own, its pid
// written to file once it runs, and returns the shell fragment that starts
// it in the background: as a child, or double-forked (orphan).
func escape(t *testing.T, file string, orphan bool) string {
	t.Helper()
	script := file + ".sh"
	body := "echo $$ >" + file + ".tmp\nmv " + file + ".tmp " + file + "\nexec sleep 1000\n"
	if err := os.WriteFile(script, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	if orphan {
		return "sh -c 'setsid sh " + script + " &'; "
	}
	return "setsid sh " + script + " & "
}

func TestReapedExitStatusAndEnv(t *testing.T) {
	for script, want := range map[string]int{"exit 0": 0, "exit 7": 7, "kill -KILL $$": 128 + 9, "kill -TERM $$": 128 + 15} {
		r := reap(exec.Command("/bin/sh", "-c", script))
		if err := r.Start(); err != nil {
			t.Fatal(err)
		}
		_ = r.Cmd.Wait()
		r.Kill()
		if got := r.Cmd.ProcessState.ExitCode(); got != want {
			t.Errorf("%s: exit code %d, want %d", script, got, want)
		}
	}
	r := reap(exec.Command("/bin/sh", "-c", `read line; echo "$line $FOO ${`+reaperEnv+`:-unmarked}"`))
	r.Cmd.Env = []string{"FOO=bar", "PATH=/usr/bin:/bin"}
	r.Cmd.Stdin = strings.NewReader("in\n")
	var buf bytes.Buffer
	r.Cmd.Stdout = &buf
	if err := r.Start(); err != nil {
		t.Fatal(err)
	}
	defer r.Kill()
	if err := r.Cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	if out := buf.String(); out != "in bar unmarked\n" {
		t.Errorf("output %q", out)
	}
}

func TestReapedCannotStart(t *testing.T) {
	r := reap(exec.Command("/nonexistent/cli"))
	err := r.Start()
	var pe *os.PathError
	if !errors.As(err, &pe) || !errors.Is(err, fs.ErrNotExist) || pe.Path != "/nonexistent/cli" {
		t.Fatalf("err = %#v", err)
	}
	if r.Cmd.ProcessState == nil {
		t.Error("the reaper was not waited for")
	}
}

// What the command leaves behind outside its group dies with it: a direct
// child in its own session, and a double-forked one.
func TestReapedKillsEscapees(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	// The command exits once both run.
	r := reap(exec.Command("/bin/sh", "-c", escape(t, a, false)+escape(t, b, true)+
		"while [ ! -s "+a+" ] || [ ! -s "+b+" ]; do sleep 0.01; done; exit 0"))
	if err := r.Start(); err != nil {
		t.Fatal(err)
	}
	defer r.Kill()
	pa, pb := waitPID(t, a), waitPID(t, b)
	if err := r.Cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	waitDead(t, pa)
	waitDead(t, pb)
}

// Kill stops the command and its escapees while the command still runs.
func TestReapedKill(t *testing.T) {
	file := filepath.Join(t.TempDir(), "pid")
	r := reap(exec.Command("/bin/sh", "-c", escape(t, file, true)+"exec sleep 1000"))
	if err := r.Start(); err != nil {
		t.Fatal(err)
	}
	pid := waitPID(t, file)
	r.Kill()
	_ = r.Cmd.Wait()
	if got := r.Cmd.ProcessState.ExitCode(); got != 128+9 {
		t.Errorf("exit code %d", got)
	}
	waitDead(t, pid)
}

// When loopforge itself is SIGKILLed, the reaper still kills everything.
func TestParentDies(t *testing.T) {
	file := filepath.Join(t.TempDir(), "pid")
	parent := exec.Command(os.Args[0], "-test.run=^$")
	parent.Env = append(os.Environ(), parentEnv+"="+escape(t, file, false)+"exec sleep 1000")
	if err := parent.Start(); err != nil {
		t.Fatal(err)
	}
	pid := waitPID(t, file)
	_ = parent.Process.Kill()
	_ = parent.Wait()
	waitDead(t, pid)
}

// The reaper is a process of its own: loopforge's other children keep their
// exit statuses while orphans come and go.
func TestOtherChildrenKeepTheirStatus(t *testing.T) {
	r := reap(exec.Command("/bin/sh", "-c", `for i in 1 2 3 4 5; do sh -c 'setsid true &'; done`))
	if err := r.Start(); err != nil {
		t.Fatal(err)
	}
	defer r.Kill()
	other := exec.Command("/bin/sh", "-c", "exit 3")
	err := other.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 3 {
		t.Errorf("the other child's status: %v", err)
	}
	if err := r.Cmd.Wait(); err != nil {
		t.Fatal(err)
	}
}
