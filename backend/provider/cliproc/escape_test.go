//go:build linux

package cliproc

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/loopforge/loopforge/backend/procgroup"
	"github.com/loopforge/loopforge/backend/provider"
	"github.com/loopforge/loopforge/backend/testwait"
)

// escapee writes a script that starts a grandchild in a session of its own
// (setsid, out of the CLI's process group), which writes its pid to
// dir/pid and then prints {"t":"x"}, so that by the time that text arrives
// the pid is known, and returns the fragment of the CLI's script that
// starts it. how is "direct" (a child of the CLI) or "orphan" (its parent
// exits at once: a double fork).
func escapee(t *testing.T, dir, how string) string {
	t.Helper()
	g := filepath.Join(dir, "grandchild.sh")
	script := "echo $$ >" + filepath.Join(dir, "pid") + "\necho '{\"t\":\"x\"}'\nexec sleep 1000\n"
	if err := os.WriteFile(g, []byte(script), 0o600); err != nil {
		t.Fatal(err)
	}
	if how == "orphan" {
		return "sh -c 'setsid sh " + g + " &'; "
	}
	return "setsid sh " + g + " & "
}

func readPID(t *testing.T, file string) int {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("no pid file: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatalf("pid file %q: %v", b, err)
	}
	return pid
}

// assertGone waits (polling, with a deadline) for pid to be dead, and kills
// it when it is not, so that a failing test leaves nothing behind.
func assertGone(t *testing.T, pid int) {
	t.Helper()
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
	testwait.Until(t, fmt.Sprintf("the grandchild %d that called setsid to die with the call", pid), 10*time.Second,
		func() bool { return !procgroup.Alive(pid) })
}

// A grandchild that left the CLI's process group and session does not
// outlive the call, however the call ends.
func TestSetsidGrandchildDies(t *testing.T) {
	for _, how := range []string{"direct", "orphan"} {
		for _, end := range []string{"cancel", "timeout", "exit"} {
			if end == "timeout" && how == "direct" {
				continue // the same path as cancel; one timeout case is enough
			}
			t.Run(how+"/"+end, func(t *testing.T) {
				dir := t.TempDir()
				pidFile := filepath.Join(dir, "pid")
				script := escapee(t, dir, how)
				// The CLI waits until the grandchild runs, then finishes
				// normally or hangs.
				script += `while [ ! -s ` + pidFile + ` ]; do sleep 0.01; done; `
				if end == "exit" {
					script += `echo '{"done":true}'`
				} else {
					script += "exec sleep 1000"
				}
				s := Spec{Provider: "sh", Binary: "/bin/sh", Args: []string{"-c", script}, Dir: dir,
					Env: []string{"PATH=/usr/bin:/bin"}, Grace: 100 * time.Millisecond}
				if end == "timeout" {
					// Long enough for the grandchild to start on a busy
					// machine: the test needs its pid.
					s.Timeout = 3 * time.Second
				}
				ctx, cancel := context.WithCancel(t.Context())
				defer cancel()
				var err error
				for d, e := range Run(ctx, s, textParser) {
					if d.Text == "x" && end == "cancel" {
						cancel()
					}
					if e != nil {
						err = e
					}
				}
				switch end {
				case "cancel":
					if !errors.Is(err, context.Canceled) {
						t.Errorf("err = %v", err)
					}
				case "timeout":
					if !errors.Is(err, provider.ErrTimeout) {
						t.Errorf("err = %v", err)
					}
				case "exit":
					if err != nil {
						t.Errorf("err = %v", err)
					}
				}
				assertGone(t, readPID(t, pidFile))
			})
		}
	}
}
