package geminicli

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/loopforge/loopforge/backend/procgroup"
	"github.com/loopforge/loopforge/backend/provider"
	"github.com/loopforge/loopforge/backend/provider/cliproc"
	"github.com/loopforge/loopforge/backend/provider/cliproc/clitest"
)

var newClient = clitest.ClientMaker("gemini", New)

func TestStreamText(t *testing.T) {
	f := clitest.NewFake(t, []string{"gemini"}, map[string]string{
		"GEMINI_API_KEY":    "gm-parent-0123456789",
		"ANTHROPIC_API_KEY": "sk-ant-must-not-leak",
		"CODEX_HOME":        "/must/not/leak",
	})
	wd := t.TempDir()
	env := f.Env("testdata/gemini-text.jsonl", nil)
	c := newClient(t, provider.Profile{Model: "gemini-2.5-flash", Env: env})
	req := clitest.Ask("Write a hello world python program")
	req.Workdir = wd
	deltas, done := clitest.MustStream(t, c, req)
	rec := clitest.ReadRecord(t, f.Record)
	if len(rec.Args) != 11 || !clitest.UUID.MatchString(rec.Args[8]) {
		t.Fatalf("argv %q", rec.Args)
	}
	want := []string{"-o", "stream-json", "--skip-trust", "--approval-mode", "default", "-m", "gemini-2.5-flash",
		"--session-id", rec.Args[8], "-p", "Write a hello world python program"}
	if !reflect.DeepEqual(rec.Args, want) {
		t.Errorf("argv\n got %q\nwant %q", rec.Args, want)
	}
	if rec.StdinSrc != "/dev/null" {
		t.Errorf("stdin %s", rec.StdinSrc)
	}
	wantEnv := []string{
		"FAKE_RECORD=" + env["FAKE_RECORD"], "FAKE_REPLAY=" + env["FAKE_REPLAY"],
		"GEMINI_API_KEY=gm-parent-0123456789", "GEMINI_CLI_NO_RELAUNCH=true", "GEMINI_CLI_TRUST_WORKSPACE=true",
		"HOME=" + f.Home, "LANG=C.UTF-8", "PATH=" + f.Dir + ":/usr/bin:/bin",
	}
	if !reflect.DeepEqual(rec.Env, wantEnv) {
		t.Errorf("env\n got %q\nwant %q", rec.Env, wantEnv)
	}
	wantDeltas := []string{"Here is a tiny Python program", ":\n\n```python\ndef greet(name):",
		"\n    return f\"Hello, {name}!\"", "\n\nprint(greet(\"world\"))\n```\n\n", "Run it with `python3 hello.py", "`."}
	if !reflect.DeepEqual(deltas, wantDeltas) || done.Content != clitest.HelloAnswer {
		t.Errorf("deltas %q content %q", deltas, done.Content)
	}
	if done.Status != provider.StatusSuccess || done.SessionID != "80b95797-ef23-46e0-8597-d5dadc3411c8" ||
		done.Model != "gemini-2.5-flash" || done.Usage != (provider.Usage{InputTokens: 7801, OutputTokens: 42}) {
		t.Errorf("done %+v", done)
	}
	if len(done.RawEvents) != 9 {
		t.Errorf("%d raw events", len(done.RawEvents))
	}
}

// Tool events are recorded; the text after a tool call is a new message.
func TestToolCalls(t *testing.T) {
	f := clitest.NewFake(t, []string{"gemini"}, nil)
	c := newClient(t, provider.Profile{Env: f.Env("testdata/gemini-tool.jsonl", nil)})
	req := clitest.Ask("Create hello.py")
	req.Mode = provider.ModeWorkspace
	deltas, done := clitest.MustStream(t, c, req)
	if rec := clitest.ReadRecord(t, f.Record); rec.Args[4] != "auto_edit" {
		t.Errorf("approval mode: argv %q", rec.Args)
	}
	want := "I'll create hello.py.\n\nI created hello.py. It prints a greeting:\n\n```python\nprint(\"hello from fake model\")\n```"
	if done.Content != want || strings.Join(deltas, "") != want {
		t.Errorf("content %q", done.Content)
	}
	if len(done.ToolCalls) != 1 {
		t.Fatalf("tools %+v", done.ToolCalls)
	}
	tc := done.ToolCalls[0]
	if tc.Name != "write_file" || tc.ID != "write_file__write_file_1795235745451_0" || tc.Status != provider.ToolSuccess ||
		!strings.Contains(string(tc.Input), `"file_path":"hello.py"`) {
		t.Errorf("tool %+v", tc)
	}
	if done.Model != "" {
		t.Errorf("model %q: init said auto and two models answered", done.Model)
	}
}

// gemini exits 145 (401 & 0xFF) with a result event reporting the 401.
func TestAuthError(t *testing.T) {
	f := clitest.NewFake(t, []string{"gemini"}, nil)
	c := newClient(t, provider.Profile{Env: f.Env("testdata/gemini-error401.jsonl", map[string]string{"FAKE_EXIT": "145"})})
	_, _, err := clitest.Collect(c.Stream(context.Background(), clitest.Ask("Say hi")))
	var pe *provider.Error
	if !errors.Is(err, provider.ErrAuth) || !errors.As(err, &pe) || pe.Status != 401 {
		t.Fatalf("err = %v", err)
	}
	if msg := err.Error(); !strings.Contains(msg, "API key not valid") || !strings.Contains(msg, "GEMINI_API_KEY") {
		t.Errorf("message %q", msg)
	}
	if part := provider.PartialOf(err); part.Status != provider.StatusError || part.SessionID != "8ea76d8b-5860-46e1-bb26-a4d612b3f989" {
		t.Errorf("partial %+v", part)
	}
}

// The json output mode's form (and a crash before any event): no result,
// exit 145, the API error on stderr.
func TestAuthErrorFromExitCode(t *testing.T) {
	f := clitest.NewFake(t, []string{"gemini"}, nil)
	c := newClient(t, provider.Profile{Env: f.Env("", map[string]string{"FAKE_EXIT": "145",
		"FAKE_STDERR": `Error when talking to Gemini API _ApiError: {"error":{"code":401,"message":"API key not valid. Please pass a valid API key.","status":"UNAUTHENTICATED"}}`})})
	_, _, err := clitest.Collect(c.Stream(context.Background(), clitest.Ask("Say hi")))
	if !errors.Is(err, provider.ErrAuth) || !strings.Contains(err.Error(), "API key not valid. Please pass a valid API key.") {
		t.Fatalf("err = %v", err)
	}
}

// SIGTERM (from outside) makes gemini exit 0 without a result: partial,
// whatever the exit code says.
func TestExitZeroWithoutResult(t *testing.T) {
	f := clitest.NewFake(t, []string{"gemini"}, nil)
	c := newClient(t, provider.Profile{Env: f.Env("testdata/gemini-sigterm.jsonl", nil)})
	deltas, _, err := clitest.Collect(c.Stream(context.Background(), clitest.Ask("Say hi slowly")))
	var ee *provider.ExecutionError
	if !errors.Is(err, provider.ErrIncomplete) || !errors.As(err, &ee) || ee.ExitCode != 0 {
		t.Fatalf("err = %v", err)
	}
	part := provider.PartialOf(err)
	if part.Status != provider.StatusPartial || part.Content != "Here is a tiny Python progr" || strings.Join(deltas, "") != part.Content {
		t.Errorf("partial %q %q", part.Status, part.Content)
	}
	if !strings.Contains(err.Error(), "before its final result") {
		t.Errorf("message %q", err)
	}
}

// gemini's launcher ignores SIGTERM (and so do children that inherit that):
// cancel still leaves nothing behind (SIGKILL after the grace period).
func TestCancelIgnoringSIGTERM(t *testing.T) {
	f := clitest.NewFake(t, []string{"gemini"}, nil)
	child := f.Path("child")
	c := newClient(t, provider.Profile{Env: f.Env("testdata/gemini-sigterm.jsonl", map[string]string{
		"FAKE_IGNORE_TERM": "1", "FAKE_CHILD": child, "FAKE_HANG": "1"})})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var got strings.Builder
	var err error
	for d, e := range c.Stream(ctx, clitest.Ask("Say hi slowly")) {
		if e != nil {
			err = e
			break
		}
		got.WriteString(d.Text)
		if got.Len() >= 3 {
			cancel()
		}
	}
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	if part := provider.PartialOf(err); part.Status != provider.StatusPartial || part.Content != got.String() {
		t.Errorf("partial %q %q vs %q", part.Status, part.Content, got.String())
	}
	if pid := clitest.ReadRecord(t, f.Record).PID; procgroup.Alive(pid) {
		t.Errorf("gemini (pid %d) survived", pid)
	}
	if pid := clitest.ReadPID(t, child); procgroup.Alive(pid) {
		t.Errorf("its child (pid %d) survived", pid)
	}
}

// Output cut in the middle of a line: a parse error, partial.
func TestTruncatedLine(t *testing.T) {
	f := clitest.NewFake(t, []string{"gemini"}, nil)
	c := newClient(t, provider.Profile{Env: f.Env("testdata/gemini-sigterm.jsonl", map[string]string{
		"FAKE_TAIL": `{"type":"message","role":"assi`})})
	deltas, _, err := clitest.Collect(c.Stream(context.Background(), clitest.Ask("hi")))
	var pe *provider.ParseError
	if !errors.As(err, &pe) || pe.Line != 12 {
		t.Fatalf("err = %v", err)
	}
	if part := provider.PartialOf(err); part.Status != provider.StatusPartial || part.Content != strings.Join(deltas, "") ||
		part.Content != "Here is a tiny Python progr" {
		t.Errorf("partial %q %q", part.Status, part.Content)
	}
}

func TestResumeAndLongPrompt(t *testing.T) {
	f := clitest.NewFake(t, []string{"gemini"}, nil)
	c := newClient(t, provider.Profile{Args: []string{"--debug"}, Env: f.Env("testdata/gemini-resume.jsonl", nil)})
	long := "-" + strings.Repeat("y", cliproc.MaxArgPrompt)
	req := provider.Request{SessionID: "80b95797-ef23-46e0-8597-d5dadc3411c8", Messages: []provider.Message{
		{Role: provider.RoleUser, Content: "first"}, {Role: provider.RoleAssistant, Content: "answer"},
		{Role: provider.RoleUser, Content: long}}}
	_, done := clitest.MustStream(t, c, req)
	rec := clitest.ReadRecord(t, f.Record)
	want := []string{"-o", "stream-json", "--skip-trust", "--approval-mode", "default",
		"--resume", "80b95797-ef23-46e0-8597-d5dadc3411c8", "--debug", "-p", stdinPrompt}
	if !reflect.DeepEqual(rec.Args, want) {
		t.Errorf("argv\n got %q\nwant %q", rec.Args, want)
	}
	if rec.Stdin != long {
		t.Errorf("stdin has %d bytes, want the last message only (%d)", len(rec.Stdin), len(long))
	}
	if done.SessionID != req.SessionID {
		t.Errorf("session %q", done.SessionID)
	}
}

// A prompt that starts with "-" must not be read as an option.
func TestDashPrompt(t *testing.T) {
	f := clitest.NewFake(t, []string{"gemini"}, nil)
	c := newClient(t, provider.Profile{Env: f.Env("testdata/gemini-text.jsonl", nil)})
	clitest.MustStream(t, c, clitest.Ask("--help me"))
	if rec := clitest.ReadRecord(t, f.Record); rec.Args[len(rec.Args)-1] != " --help me" {
		t.Errorf("argv %q", rec.Args)
	}
}

// Variables gemini's settings refer to reach it; others do not.
func TestSettingsEnvRefs(t *testing.T) {
	saved := systemSettings
	systemSettings = nil // the host's own files stay out of the test
	t.Cleanup(func() { systemSettings = saved })
	f := clitest.NewFake(t, []string{"gemini"}, map[string]string{
		"CORP_MCP_TOKEN": "mcp-token-0123456789", "TOOL_HOME": "/opt/tool", "PROXY_PASS": "pp-0123456789",
		"UNRELATED_SECRET": "must-not-leak", "AWS_SECRET_ACCESS_KEY": "aws-must-not-leak",
	})
	dir := filepath.Join(f.Home, ".gemini")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	settings := `{
  "security": {"auth": {"selectedType": "gemini-api-key"}},
  "mcpServers": {
    "corp": {"httpUrl": "https://mcp.corp.example", "headers": {"Authorization": "Bearer ${CORP_MCP_TOKEN}"}},
    "tool": {"command": "tool", "env": {"HOME_OF_TOOL": "$TOOL_HOME/bin", "P": "${PROXY_PASS}"}}
  }
}`
	if err := os.WriteFile(filepath.Join(dir, "settings.json"), []byte(settings), 0o600); err != nil {
		t.Fatal(err)
	}
	c := newClient(t, provider.Profile{Env: f.Env("testdata/gemini-text.jsonl", nil)})
	clitest.MustStream(t, c, clitest.Ask("hi"))
	env := clitest.ReadRecord(t, f.Record).Env
	for _, kv := range []string{"CORP_MCP_TOKEN=mcp-token-0123456789", "TOOL_HOME=/opt/tool", "PROXY_PASS=pp-0123456789"} {
		if !slices.Contains(env, kv) {
			t.Errorf("gemini did not get %s: %q", kv, env)
		}
	}
	for _, kv := range env {
		if strings.Contains(kv, "must-not-leak") {
			t.Errorf("gemini got %s", kv)
		}
	}
}
