//go:build linux

package workspace

import (
	"context"
	"encoding/json"
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
	"github.com/loopforge/loopforge/backend/testwait"
)

func newWS(t *testing.T) (*Workspace, string) {
	t.Helper()
	dir := t.TempDir()
	ws, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	return ws, dir
}

func TestPathEscapesRefused(t *testing.T) {
	ws, dir := newWS(t)
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret"), []byte("s3cret"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "out")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "secret"), filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"../x", "a/../../x", "/etc/passwd", filepath.Join(dir, "f"), "out/secret", "out/new.txt", "link", "out"} {
		t.Run(p, func(t *testing.T) {
			_, rerr := ws.ReadFile(p)
			werr := ws.WriteFile(p, []byte("x"))
			for _, err := range []error{rerr, werr} {
				var we *Error
				if !errors.As(err, &we) || we.Path != p {
					t.Fatalf("err = %v; want *Error naming %q", err, p)
				}
				if !errors.Is(err, ErrOutside) {
					t.Errorf("err = %v; want ErrOutside", err)
				}
				if !strings.Contains(err.Error(), p) {
					t.Errorf("message %q does not name the path", err)
				}
			}
		})
	}
	if _, err := os.Stat(filepath.Join(outside, "new.txt")); !os.IsNotExist(err) {
		t.Error("a file was created outside the workspace")
	}
	if b, _ := os.ReadFile(filepath.Join(outside, "secret")); string(b) != "s3cret" {
		t.Error("the outside file was changed")
	}
}

func TestInsideSymlinkAndGit(t *testing.T) {
	ws, dir := newWS(t)
	if err := ws.WriteFile("sub/a.txt", []byte("hello\n")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("sub", filepath.Join(dir, "alias")); err != nil {
		t.Fatal(err)
	}
	b, err := ws.ReadFile("alias/a.txt")
	if err != nil || string(b) != "hello\n" {
		t.Fatalf("read through an inside symlink = %q, %v", b, err)
	}
	if err := ws.WriteFile(".git/hooks/pre-commit", []byte("x")); err == nil {
		t.Error("writing into .git was allowed")
	}
}

func TestApplyPatch(t *testing.T) {
	ws, _ := newWS(t)
	if err := ws.WriteFile("calc.py", []byte("def add(a, b):\n    return a - b\n")); err != nil {
		t.Fatal(err)
	}
	patch := "--- a/calc.py\n+++ b/calc.py\n@@ -1,2 +1,2 @@\n def add(a, b):\n-    return a - b\n+    return a + b\n" +
		"--- /dev/null\n+++ b/new/mod.py\n@@ -0,0 +1 @@\n+x = 1\n"
	changed, err := ws.ApplyPatch(patch)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(changed, ",") != "calc.py,new/mod.py" {
		t.Errorf("changed = %v", changed)
	}
	if b, _ := ws.ReadFile("calc.py"); string(b) != "def add(a, b):\n    return a + b\n" {
		t.Errorf("calc.py = %q", b)
	}
	if b, _ := ws.ReadFile("new/mod.py"); string(b) != "x = 1\n" {
		t.Errorf("mod.py = %q", b)
	}
	// A conflicting hunk changes nothing, in any file.
	bad := "--- /dev/null\n+++ b/other.py\n@@ -0,0 +1 @@\n+y = 2\n" +
		"--- a/calc.py\n+++ b/calc.py\n@@ -1,2 +1,2 @@\n def add(a, b):\n-    return a * b\n+    return 0\n"
	if _, err := ws.ApplyPatch(bad); err == nil || !strings.Contains(err.Error(), "calc.py") {
		t.Errorf("conflict err = %v", err)
	}
	if _, err := ws.ReadFile("other.py"); err == nil {
		t.Error("a failed patch wrote other.py")
	}
	esc := "--- /dev/null\n+++ b/../escape.py\n@@ -0,0 +1 @@\n+z\n"
	if _, err := ws.ApplyPatch(esc); !errors.Is(err, ErrOutside) {
		t.Errorf("escaping patch err = %v", err)
	}
}

func TestRegistry(t *testing.T) {
	ws, _ := newWS(t)
	reg := NewRegistry(ws, ExecRunner{Timeout: 10 * time.Second})
	ctx := context.Background()
	call := func(name, args string) (string, bool) { return reg.Call(ctx, name, json.RawMessage(args)) }

	if out, ok := call("write_file", `{"path":"src/x.txt","content":"one\ntwo\nthree\n"}`); !ok {
		t.Fatal(out)
	}
	if out, ok := call("read_file", `{"path":"src/x.txt","start_line":2,"end_line":2}`); !ok || out != "two\n" {
		t.Errorf("read_file = %q %v", out, ok)
	}
	if out, ok := call("list_files", `{}`); !ok || !strings.Contains(out, "src/x.txt") {
		t.Errorf("list_files = %q %v", out, ok)
	}
	if out, ok := call("search_files", `{"pattern":"^t","glob":"*.txt"}`); !ok || out != "src/x.txt:2: two\nsrc/x.txt:3: three\n" {
		t.Errorf("search_files = %q %v", out, ok)
	}
	// A nonzero exit is information for the model, not a tool failure.
	if out, ok := call("run_command", `{"command":"cat src/x.txt | wc -l; exit 3"}`); !ok || !strings.Contains(out, "exit code: 3") || !strings.Contains(out, "3\n") {
		t.Errorf("run_command = %q %v", out, ok)
	}
	for _, c := range []struct{ name, args, want string }{
		{"delete_everything", `{}`, "unknown tool"},
		{"read_file", `{"path":"../../etc/passwd"}`, "climbs out"},
		{"read_file", `{}`, "needs the argument(s) path"},
		{"read_file", `[1]`, "must be a JSON object"},
		{"read_file", `{"path":"nope.txt"}`, "nope.txt"},
		{"apply_patch", `{"patch":"garbage"}`, "no file changes"},
		{"search_files", `{"pattern":"("}`, "invalid regular expression"},
	} {
		out, ok := call(c.name, c.args)
		if ok || !strings.HasPrefix(out, "error: ") || !strings.Contains(out, c.want) {
			t.Errorf("%s(%s) = %q, %v; want an error containing %q", c.name, c.args, out, ok, c.want)
		}
	}
	// A panicking tool is an error, not a crash.
	if err := reg.Register(Tool{Name: "boom", Call: func(context.Context, json.RawMessage) (string, error) { panic("kaput") }}); err != nil {
		t.Fatal(err)
	}
	if out, ok := call("boom", `{}`); ok || !strings.Contains(out, "kaput") {
		t.Errorf("boom = %q", out)
	}
	if err := reg.Register(Tool{Name: "read_file", Call: func(context.Context, json.RawMessage) (string, error) { return "", nil }}); err == nil {
		t.Error("duplicate name accepted")
	}
}

func TestToolNames(t *testing.T) {
	ws, _ := newWS(t)
	reg := NewRegistry(ws, ExecRunner{Timeout: 10 * time.Second})
	noop := func(context.Context, json.RawMessage) (string, error) { return "", nil }
	long := "a" + strings.Repeat("b_-9", 15) + "xyz" // 64
	for name, ok := range map[string]bool{
		"go_vet": true, "Lint-2": true, long: true,
		long + "z": false, "": false, "2fast": false, "_x": false, "a.b": false, "a b": false, "é": false,
	} {
		if err := reg.Register(Tool{Name: name, Call: noop}); (err == nil) != ok {
			t.Errorf("Register(%q) = %v, want ok %v", name, err, ok)
		}
	}
}

func TestCommandTool(t *testing.T) {
	ws, _ := newWS(t)
	reg := NewRegistry(ws, ExecRunner{Timeout: 10 * time.Second})
	err := reg.RegisterCommand(CommandTool{
		Name: "shout", Description: "upper-cases text",
		Parameters: map[string]any{"type": "object", "properties": map[string]any{"text": map[string]any{"type": "string"}}, "required": []any{"text"}},
		Command:    `tr a-z A-Z; echo; echo "$LOOPFORGE_TOOL_ARGS" | grep -q text || exit 9`,
	})
	if err != nil {
		t.Fatal(err)
	}
	out, ok := reg.Call(context.Background(), "shout", json.RawMessage(`{"text":"hi"}`))
	if !ok || !strings.Contains(out, `{"TEXT":"HI"}`) {
		t.Errorf("shout = %q, %v", out, ok)
	}
	if err := reg.RegisterCommand(CommandTool{Name: "fails", Command: "echo nope >&2; exit 4"}); err != nil {
		t.Fatal(err)
	}
	out, ok = reg.Call(context.Background(), "fails", nil)
	if ok || !strings.Contains(out, "nope") || !strings.Contains(out, "exit code 4") {
		t.Errorf("fails = %q, %v", out, ok)
	}
}

func TestExecRunnerTimeoutKillsGroup(t *testing.T) {
	dir := t.TempDir()
	start := time.Now()
	res, err := ExecRunner{Timeout: 300 * time.Millisecond}.RunCommand(context.Background(), dir, "sleep 30 & sleep 30; echo never", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !res.TimedOut || res.OK() || time.Since(start) > 5*time.Second {
		t.Errorf("res = %+v after %v", res, time.Since(start))
	}
	res, _ = ExecRunner{MaxOutput: 100}.RunCommand(context.Background(), dir, "yes | head -c 10000", nil)
	if !res.Truncated || len(res.Stdout) > 200 {
		t.Errorf("output not capped: %d bytes, truncated=%v", len(res.Stdout), res.Truncated)
	}
	t.Setenv("LOOPFORGE_TEST_API_KEY", "sk-secret")
	res, _ = ExecRunner{}.RunCommand(context.Background(), dir, "env", nil)
	if strings.Contains(res.Stdout, "sk-secret") {
		t.Error("a secret reached the command's environment")
	}
}

// Cancelling ctx kills the command's group and is an error, not a result.
func TestExecRunnerCancel(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	type outcome struct {
		res CommandResult
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		res, err := ExecRunner{}.RunCommand(ctx, dir, "touch started; exec sleep 30", nil)
		done <- outcome{res, err}
	}()
	testwait.Until(t, "the command to start", time.Minute, func() bool {
		_, err := os.Stat(filepath.Join(dir, "started"))
		return err == nil
	})
	cancel()
	o := <-done
	if res, err := o.res, o.err; !errors.Is(err, context.Canceled) || res.TimedOut || res.OK() {
		t.Errorf("res = %+v, err = %v", res, err)
	}
}

func TestWriteRunMeta(t *testing.T) {
	ws, dir := newWS(t)
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	p1, err := ws.WriteRunMeta(at, map[string]any{"status": "success"})
	if err != nil {
		t.Fatal(err)
	}
	p2, err := ws.WriteRunMeta(at, map[string]any{"status": "limit_reached"})
	if err != nil || p1 == p2 {
		t.Fatalf("p1=%s p2=%s err=%v", p1, p2, err)
	}
	if p1 != ".loopforge/runs/20260102T030405.000Z.json" {
		t.Errorf("p1 = %s", p1)
	}
	b, _ := os.ReadFile(filepath.Join(dir, p2))
	if !strings.Contains(string(b), "limit_reached") {
		t.Errorf("meta = %s", b)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, ".loopforge/.gitignore")); !strings.Contains(string(b), "*") {
		t.Error("no .gitignore in .loopforge")
	}
}

// A command's descendant that left its session (setsid) dies when the
// command ends: nothing a validation command starts outlives it.
func TestExecRunnerKillsSetsidEscapee(t *testing.T) {
	dir := t.TempDir()
	res, err := ExecRunner{Timeout: 30 * time.Second}.RunCommand(context.Background(), dir,
		"setsid sh -c 'echo $$ > pid.tmp; mv pid.tmp pid; exec sleep 1000' & while [ ! -s pid ]; do sleep 0.01; done", nil)
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("res %+v err %v", res, err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "pid"))
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
	testwait.Until(t, fmt.Sprintf("process %d to die with the command", pid), 10*time.Second,
		func() bool { return !procgroup.Alive(pid) })
}
