package loop

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loopforge/loopforge/backend/event"
	"github.com/loopforge/loopforge/backend/sandbox"
	"github.com/loopforge/loopforge/backend/workspace"
)

func sandboxCommands(t *testing.T) *SandboxCommands {
	t.Helper()
	r, err := sandbox.NewRunner(sandbox.Options{})
	if err != nil {
		t.Skipf("no sandbox here: %v", err)
	}
	return NewSandboxCommands(r, sandbox.Limits{Timeout: 20 * time.Second}, false, nil)
}

func TestSandboxCommandsRunInTheProject(t *testing.T) {
	x := sandboxCommands(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "calc.py"), []byte("def add(a, b):\n    return a + b\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()

	res, err := x.RunCommand(ctx, dir, `python3 -c 'import calc; assert calc.add(2, 2) == 4; print("ok")' && pwd && echo made > out.txt`, nil)
	if err != nil || !res.OK() {
		t.Fatalf("%+v %v", res, err)
	}
	real, _ := filepath.EvalSymlinks(dir)
	if res.Stdout != "ok\n"+real+"\n" {
		t.Errorf("stdout %q", res.Stdout)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "out.txt")); string(b) != "made\n" {
		t.Errorf("a file written by the command should stay in the project: %q", b)
	}

	res, err = x.RunCommand(ctx, dir, `python3 -c 'import calc; assert calc.add(2, 2) == 5, "wrong sum"'`, nil)
	if err != nil || res.OK() || res.ExitCode != 1 || !strings.Contains(res.Stderr, "wrong sum") {
		t.Errorf("a failing command: %+v %v", res, err)
	}

	// A user tool's arguments arrive on stdin and in the environment.
	tool := x.WithEnv(`LOOPFORGE_TOOL_ARGS={"path": "it's.py"}`)
	res, err = tool.RunCommand(ctx, dir, `cat; echo; echo "$LOOPFORGE_TOOL_ARGS"`, []byte(`{"path": "it's.py"}`))
	if err != nil || res.Stdout != "{\"path\": \"it's.py\"}\n{\"path\": \"it's.py\"}\n" {
		t.Errorf("tool arguments: %+v %v", res, err)
	}
}

func TestSandboxCommandsTimeOutAndRefuseBadDirs(t *testing.T) {
	x := sandboxCommands(t)
	x.Limits.Timeout = time.Second
	res, err := x.RunCommand(context.Background(), t.TempDir(), "sleep 30", nil)
	if err != nil || !res.TimedOut || res.OK() {
		t.Errorf("timeout: %+v %v", res, err)
	}
	if !strings.Contains(res.Describe(), "timed out") {
		t.Errorf("describe: %s", res.Describe())
	}
	if _, err := x.RunCommand(context.Background(), "relative/dir", "true", nil); err == nil {
		t.Error("a relative dir should be refused")
	}
}

func TestSandboxCommandsKeepTheRestOfTheDiskOutOfReach(t *testing.T) {
	x := sandboxCommands(t)
	if !strings.HasPrefix(x.Exec.(*sandbox.Runner).Isolation(), sandbox.IsolationLandlock) &&
		!strings.HasPrefix(x.Exec.(*sandbox.Runner).Isolation(), sandbox.IsolationNamespace) {
		t.Skip("no file-system isolation on this host")
	}
	dir, outside := t.TempDir(), t.TempDir()
	res, err := x.RunCommand(context.Background(), dir, "echo x > "+filepath.Join(outside, "escaped.txt"), nil)
	if err != nil || res.OK() {
		t.Errorf("writing outside the project should fail: %+v %v", res, err)
	}
	if _, err := os.Stat(filepath.Join(outside, "escaped.txt")); !os.IsNotExist(err) {
		t.Errorf("the file outside the project exists: %v", err)
	}
}

// A JavaScript run goes end to end: the model is asked for a ```javascript
// block, a failure's stack reaches the next attempt, and node runs the fix
// in the same sandbox as Python.
func TestNodeRunsInTheSandbox(t *testing.T) {
	r, err := sandbox.NewRunner(sandbox.Options{})
	if err != nil {
		t.Skipf("no sandbox here: %v", err)
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed")
	}
	m := &scripted{replies: []reply{
		{text: "Here:\n```js\nconst x = undefined;\nconsole.log(x.length);\n```"},
		{text: "Fixed:\n```javascript\nconsole.log([1, 2, 3].map((n) => n * 2).join(','));\n```"},
	}}
	rec := &recorder{}
	out := Run(context.Background(), m, r, rec.emit, Settings{Language: "node", MaxIterations: 3}, Input{Prompt: "double a list"})
	if out.Status != event.RunStatusSuccess || out.Iterations != 2 {
		t.Fatalf("got %s after %d: %v", out.Status, out.Iterations, out.Err)
	}
	if !strings.Contains(m.requests[0].System, "JavaScript (Node.js)") || !strings.Contains(m.requests[0].System, "```javascript") {
		t.Errorf("system prompt: %s", m.requests[0].System)
	}
	last := m.requests[1].Messages[len(m.requests[1].Messages)-1].Content
	if !strings.Contains(last, "TypeError") {
		t.Errorf("the second attempt should see node's TypeError: %s", last)
	}
}

func TestSandboxCommandsTellEachWarningOnce(t *testing.T) {
	r, err := sandbox.NewRunner(sandbox.Options{})
	if err != nil {
		t.Skipf("no sandbox here: %v", err)
	}
	var told []event.ExecNote
	x := NewSandboxCommands(r, sandbox.Limits{Timeout: 20 * time.Second}, true, func(n event.ExecNote) { told = append(told, n) })
	dir := t.TempDir()
	for _, runner := range []interface {
		RunCommand(context.Context, string, string, []byte) (workspace.CommandResult, error)
	}{x, x.WithEnv("A=1"), x} {
		if res, err := runner.RunCommand(context.Background(), dir, "true", nil); err != nil || !res.OK() {
			t.Fatalf("%+v %v", res, err)
		}
	}
	n := 0
	for _, w := range told {
		if w.Code == string(event.NoteNetworkAllowed) {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("the network warning was told %d times over three commands: %q", n, told)
	}
}
