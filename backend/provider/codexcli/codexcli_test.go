//go:build linux

package codexcli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/loopforge/loopforge/backend/procgroup"
	"github.com/loopforge/loopforge/backend/provider"
	"github.com/loopforge/loopforge/backend/provider/cliproc/clitest"
	"github.com/loopforge/loopforge/backend/testwait"
)

var newClient = clitest.ClientMaker("codex", New)

func TestStreamText(t *testing.T) {
	f := clitest.NewFake(t, []string{"codex"}, map[string]string{
		"CODEX_HOME":        "/home/u/.codex",
		"OPENAI_API_KEY":    "sk-openai-parent-0123456789",
		"ANTHROPIC_API_KEY": "sk-ant-must-not-leak",
		"GEMINI_API_KEY":    "gm-must-not-leak",
		"TMPDIR":            "/tmp",
	})
	wd := t.TempDir()
	env := f.Env("testdata/codex-text.jsonl", nil)
	c := newClient(t, provider.Profile{Model: "gpt-5.5", Env: env})
	req := clitest.Ask("Write a hello world python program")
	req.Workdir = wd
	deltas, done := clitest.MustStream(t, c, req)
	rec := clitest.ReadRecord(t, f.Record)
	want := []string{"exec", "--json", "--skip-git-repo-check", "-C", wd, "-s", "read-only", "-m", "gpt-5.5",
		"Write a hello world python program"}
	if !reflect.DeepEqual(rec.Args, want) {
		t.Errorf("argv\n got %q\nwant %q", rec.Args, want)
	}
	if rec.StdinSrc != "/dev/null" {
		t.Errorf("stdin is %s: codex would append it to the prompt", rec.StdinSrc)
	}
	wantEnv := []string{
		"CODEX_HOME=/home/u/.codex", "FAKE_RECORD=" + env["FAKE_RECORD"], "FAKE_REPLAY=" + env["FAKE_REPLAY"],
		"HOME=" + f.Home, "LANG=C.UTF-8", "OPENAI_API_KEY=sk-openai-parent-0123456789",
		"PATH=" + f.Dir + ":/usr/bin:/bin", "TMPDIR=/tmp",
	}
	if !reflect.DeepEqual(rec.Env, wantEnv) {
		t.Errorf("env\n got %q\nwant %q", rec.Env, wantEnv)
	}
	// codex prints whole messages: one delta.
	if !reflect.DeepEqual(deltas, []string{clitest.HelloAnswer}) || done.Content != clitest.HelloAnswer {
		t.Errorf("deltas %q content %q", deltas, done.Content)
	}
	if done.Status != provider.StatusSuccess || done.SessionID != "01a1fc61-dca6-7711-b749-854169dbafbb" ||
		done.Model != "gpt-5.5" || done.Usage != (provider.Usage{InputTokens: 9716, OutputTokens: 42}) || len(done.RawEvents) != 5 {
		t.Errorf("done %+v", done)
	}
}

func TestCommandExecution(t *testing.T) {
	f := clitest.NewFake(t, []string{"codex"}, nil)
	c := newClient(t, provider.Profile{Env: f.Env("testdata/codex-tool.jsonl", nil)})
	req := clitest.Ask("Create hello.py")
	req.Mode = provider.ModeWorkspace
	_, done := clitest.MustStream(t, c, req)
	if rec := clitest.ReadRecord(t, f.Record); rec.Args[6] != "workspace-write" {
		t.Errorf("sandbox: argv %q", rec.Args)
	}
	if len(done.ToolCalls) != 1 {
		t.Fatalf("tools %+v", done.ToolCalls)
	}
	tc := done.ToolCalls[0]
	if tc.ID != "item_0" || tc.Name != "command_execution" || tc.Status != provider.ToolSuccess || tc.Output != "wrote hello.py\n" ||
		!strings.Contains(string(tc.Input), "hello.py") {
		t.Errorf("tool %+v", tc)
	}
}

func TestFileChange(t *testing.T) {
	f := clitest.NewFake(t, []string{"codex"}, nil)
	c := newClient(t, provider.Profile{Env: f.Env("testdata/codex-patch.jsonl", nil)})
	_, done := clitest.MustStream(t, c, clitest.Ask("Create hello.py"))
	if len(done.ToolCalls) != 1 || done.ToolCalls[0].Name != "file_change" || done.ToolCalls[0].Status != provider.ToolSuccess ||
		!strings.Contains(string(done.ToolCalls[0].Input), `"kind":"add"`) {
		t.Errorf("tools %+v", done.ToolCalls)
	}
}

// Non-fatal error events and error items are warnings.
func TestWarnings(t *testing.T) {
	f := clitest.NewFake(t, []string{"codex"}, nil)
	c := newClient(t, provider.Profile{Env: f.Env("testdata/codex-openai-base-url.jsonl", nil)})
	_, done := clitest.MustStream(t, c, clitest.Ask("Say hi"))
	if done.Content != clitest.HelloAnswer || len(done.Warnings) != 5 || !strings.Contains(done.Warnings[4], "Falling back from WebSockets") {
		t.Errorf("content %q warnings %q", done.Content, done.Warnings)
	}
}

// codex retries a 401 five times: the first retry notice stops it.
func TestAuthError(t *testing.T) {
	f := clitest.NewFake(t, []string{"codex"}, nil)
	c := newClient(t, provider.Profile{Env: f.Env("testdata/codex-error401.jsonl", map[string]string{"FAKE_HANG_AT": "4"})})
	_, _, err := clitest.Collect(c.Stream(context.Background(), clitest.Ask("Say hi")))
	var pe *provider.Error
	if !errors.Is(err, provider.ErrAuth) || !errors.As(err, &pe) || pe.Status != 401 {
		t.Fatalf("err = %v", err)
	}
	if !strings.Contains(err.Error(), "Incorrect API key provided") || !strings.Contains(err.Error(), "CODEX_API_KEY") {
		t.Errorf("message %q", err)
	}
	if part := provider.PartialOf(err); part.Status != provider.StatusError || part.SessionID == "" {
		t.Errorf("partial %+v", part)
	}
	if pid := clitest.ReadRecord(t, f.Record).PID; procgroup.Alive(pid) {
		t.Errorf("codex (pid %d) still runs", pid)
	}
}

// turn.failed (synthetic capture: the shape of the 401 one, another cause).
func TestTurnFailed(t *testing.T) {
	f := clitest.NewFake(t, []string{"codex"}, nil)
	c := newClient(t, provider.Profile{Env: f.Env("testdata/codex-turnfailed.jsonl", map[string]string{"FAKE_EXIT": "1"})})
	_, _, err := clitest.Collect(c.Stream(context.Background(), clitest.Ask("Say hi")))
	var ee *provider.ExecutionError
	if !errors.As(err, &ee) || ee.ExitCode != 1 || ee.Message != "stream disconnected before completion: connection reset" {
		t.Fatalf("err = %#v", err)
	}
	part := provider.PartialOf(err)
	if part.Status != provider.StatusError || len(part.Warnings) != 1 {
		t.Errorf("partial %+v", part)
	}
}

// Killed by a signal before anything useful: status error, the exit code
// says how it ended.
func TestSignalled(t *testing.T) {
	f := clitest.NewFake(t, []string{"codex"}, nil)
	c := newClient(t, provider.Profile{Env: f.Env("testdata/codex-sigterm.jsonl", map[string]string{"FAKE_DIE": "1"})})
	_, _, err := clitest.Collect(c.Stream(context.Background(), clitest.Ask("Say hi slowly")))
	var ee *provider.ExecutionError
	if !errors.As(err, &ee) || ee.ExitCode != 128+int(syscall.SIGKILL) {
		t.Fatalf("err = %v", err)
	}
	if part := provider.PartialOf(err); part.Status != provider.StatusError || part.SessionID != "01a1fc62-2999-7832-94c6-f544fa206a71" {
		t.Errorf("partial %+v", part)
	}
}

func TestBadFlag(t *testing.T) {
	f := clitest.NewFake(t, []string{"codex"}, nil)
	c := newClient(t, provider.Profile{Args: []string{"--no-such-flag"}, Env: f.Env("", map[string]string{"FAKE_EXIT": "2",
		"FAKE_STDERR": "error: unexpected argument '--no-such-flag' found\n\n  tip: to pass '--no-such-flag' as a value, use '-- --no-such-flag'\n\nUsage: codex exec [OPTIONS] [PROMPT]"})})
	_, _, err := clitest.Collect(c.Stream(context.Background(), clitest.Ask("hi")))
	var ee *provider.ExecutionError
	if !errors.As(err, &ee) || ee.ExitCode != 2 || !strings.HasSuffix(err.Error(), "error: unexpected argument '--no-such-flag' found") {
		t.Fatalf("err = %v", err)
	}
}

// Resume; a profile with base_url gets its own model provider.
func TestResumeBaseURL(t *testing.T) {
	f := clitest.NewFake(t, []string{"codex"}, nil)
	c := newClient(t, provider.Profile{Model: "gpt-5.5", BaseURL: "http://127.0.0.1:9/v1/", APIKeyEnv: "FAKE_API_KEY",
		APIKey: "fake-key-0123456789", Args: []string{"--ephemeral"}, Env: f.Env("testdata/codex-resume.jsonl", nil)})
	req := provider.Request{SessionID: "01a1fc61-dca6-7711-b749-854169dbafbb", Messages: []provider.Message{
		{Role: provider.RoleUser, Content: "Write hello"}, {Role: provider.RoleAssistant, Content: "done"},
		{Role: provider.RoleUser, Content: "And now in one line?"}}}
	_, done := clitest.MustStream(t, c, req)
	rec := clitest.ReadRecord(t, f.Record)
	want := []string{"exec", "--json", "--skip-git-repo-check", "-C", rec.Args[4], "-s", "read-only", "-m", "gpt-5.5",
		"-c", `model_provider="loopforge"`,
		"-c", `model_providers.loopforge={name="loopforge", base_url="http://127.0.0.1:9/v1", wire_api="responses", env_key="FAKE_API_KEY"}`,
		"--ephemeral", "resume", "01a1fc61-dca6-7711-b749-854169dbafbb", "And now in one line?"}
	if !reflect.DeepEqual(rec.Args, want) {
		t.Errorf("argv\n got %q\nwant %q", rec.Args, want)
	}
	if filepath.Dir(rec.Args[4]) != filepath.Dir(rec.Cwd) || rec.Cwd != rec.Args[4] {
		t.Errorf("-C %s, cwd %s", rec.Args[4], rec.Cwd)
	}
	found := false
	for _, kv := range rec.Env {
		found = found || kv == "FAKE_API_KEY=fake-key-0123456789"
	}
	if !found {
		t.Errorf("env %q", rec.Env)
	}
	if done.SessionID != req.SessionID {
		t.Errorf("session %q", done.SessionID)
	}
}

// A helper left running outside the group holds stdout open: the call still
// ends once codex has exited, and the helper does not outlive it.
func TestEscapedHelperDoesNotBlock(t *testing.T) {
	f := clitest.NewFake(t, []string{"codex"}, nil)
	escaped := f.Path("escaped")
	c := newClient(t, provider.Profile{Env: f.Env("testdata/codex-text.jsonl", map[string]string{"FAKE_ESCAPE": escaped})})
	_, done, err := clitest.Collect(c.Stream(context.Background(), clitest.Ask("hi")))
	pid := clitest.ReadPID(t, escaped)
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
	if err != nil {
		t.Fatal(err)
	}
	if done.Content != clitest.HelloAnswer {
		t.Errorf("content %q", done.Content)
	}
	testwait.Until(t, fmt.Sprintf("the helper %d that left codex's session to die with the call", pid), 10*time.Second,
		func() bool { return !procgroup.Alive(pid) })
}

// codexHome writes config.toml (and other files) into a fresh CODEX_HOME.
func codexHome(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// need makes the fake codex fail as codex does when name is missing.
func need(t *testing.T, name string) string {
	t.Helper()
	abs, err := filepath.Abs("testdata/codex-missing-env.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	return name + ":" + abs
}

func envHas(env []string, kv string) bool { return slices.Contains(env, kv) }

func envNames(env []string) []string {
	var names []string
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		names = append(names, k)
	}
	return names
}

// A custom model provider in the user's config.toml names the variable its
// key is in: it reaches codex, and so do the other variables the config
// names (headers, MCP servers, the selected profile's file); unrelated
// secrets do not.
func TestConfigNamedEnv(t *testing.T) {
	home := codexHome(t, map[string]string{
		"config.toml": `
model = "corp-model"
model_provider = "corp"

[model_providers.corp]
name = "Corp gateway"
base_url = "https://llm.corp.example/v1"
env_key = "SOME_KEY"
wire_api = "responses"
env_http_headers = { "X-Org" = "CORP_ORG" }

[mcp_servers.docs]
url = "https://docs.corp.example/mcp"
bearer_token_env_var = "DOCS_TOKEN"

[mcp_servers.tool]
command = "corp-tool"
env_vars = ["TOOL_HOME"]

[profiles.fast]
model_provider = "corp"
`,
		"work.config.toml": "[model_providers.work]\nname = \"w\"\nenv_key = \"WORK_KEY\"\n",
	})
	f := clitest.NewFake(t, []string{"codex"}, map[string]string{
		"CODEX_HOME":            home,
		"SOME_KEY":              "corp-key-0123456789",
		"CORP_ORG":              "org-7",
		"DOCS_TOKEN":            "docs-token-0123456789",
		"TOOL_HOME":             "/opt/tool",
		"WORK_KEY":              "work-key-0123456789",
		"UNRELATED_SECRET":      "must-not-leak",
		"AWS_SECRET_ACCESS_KEY": "aws-must-not-leak",
		"ANTHROPIC_API_KEY":     "sk-ant-must-not-leak",
	})
	c := newClient(t, provider.Profile{Args: []string{"-p", "work"},
		Env: f.Env("testdata/codex-text.jsonl", map[string]string{"FAKE_NEED": need(t, "SOME_KEY")})})
	_, done := clitest.MustStream(t, c, clitest.Ask("hi"))
	if done.Content != clitest.HelloAnswer {
		t.Errorf("content %q", done.Content)
	}
	rec := clitest.ReadRecord(t, f.Record)
	for _, kv := range []string{"SOME_KEY=corp-key-0123456789", "CORP_ORG=org-7", "DOCS_TOKEN=docs-token-0123456789",
		"TOOL_HOME=/opt/tool", "WORK_KEY=work-key-0123456789", "CODEX_HOME=" + home} {
		if !envHas(rec.Env, kv) {
			t.Errorf("codex did not get %s; it got %q", kv, envNames(rec.Env))
		}
	}
	for _, kv := range rec.Env {
		if strings.Contains(kv, "must-not-leak") {
			t.Errorf("codex got %s", kv)
		}
	}
	// Check (codex --version) runs with the same environment.
	if v, err := c.(interface {
		Check(context.Context) (string, error)
	}).Check(context.Background()); err != nil || v == "" {
		t.Errorf("check: %q %v", v, err)
	}
}

// A variable no config names: codex fails the way it does, the error says
// how to pass it, and pass_env does.
func TestMissingEnvAndPassEnv(t *testing.T) {
	f := clitest.NewFake(t, []string{"codex"}, map[string]string{
		"CODEX_HOME":       codexHome(t, nil),
		"SOME_KEY":         "corp-key-0123456789",
		"UNRELATED_SECRET": "must-not-leak",
	})
	env := f.Env("testdata/codex-text.jsonl", map[string]string{"FAKE_NEED": need(t, "SOME_KEY")})

	c := newClient(t, provider.Profile{Env: env})
	_, _, err := clitest.Collect(c.Stream(context.Background(), clitest.Ask("hi")))
	var pe *provider.Error
	if !errors.Is(err, provider.ErrMissingEnv) || !errors.As(err, &pe) || pe.EnvVar != "SOME_KEY" {
		t.Fatalf("err = %v", err)
	}
	if want := "codex: the CLI needs the environment variable SOME_KEY: loopforge has it but did not pass it on: " +
		"add `pass_env: [SOME_KEY]` to the profile \"codex\" in loopforge.yml"; err.Error() != want {
		t.Errorf("message\n got %q\nwant %q", err, want)
	}
	if part := provider.PartialOf(err); part == nil || part.Status != provider.StatusError {
		t.Errorf("partial %+v", part)
	}

	c = newClient(t, provider.Profile{Env: env, PassEnv: []string{"SOME_KEY"}})
	_, done := clitest.MustStream(t, c, clitest.Ask("hi"))
	rec := clitest.ReadRecord(t, f.Record)
	if done.Content != clitest.HelloAnswer || !envHas(rec.Env, "SOME_KEY=corp-key-0123456789") || slices.Contains(envNames(rec.Env), "UNRELATED_SECRET") {
		t.Errorf("content %q env %q", done.Content, envNames(rec.Env))
	}
}

// Not set anywhere: the error says to export it. Also when codex says so on
// stderr only, without events.
func TestMissingEnvNotSet(t *testing.T) {
	f := clitest.NewFake(t, []string{"codex"}, map[string]string{"CODEX_HOME": codexHome(t, map[string]string{
		"config.toml": "model_provider = \"corp\"\n[model_providers.corp]\nname = \"c\"\nenv_key = \"SOME_KEY\"\n"})})
	for name, extra := range map[string]map[string]string{
		"event":  {"FAKE_NEED": need(t, "SOME_KEY")},
		"stderr": {"FAKE_STDERR": "Error: Missing environment variable: `SOME_KEY`.", "FAKE_EXIT": "1"},
	} {
		c := newClient(t, provider.Profile{Env: f.Env("", extra)})
		_, _, err := clitest.Collect(c.Stream(context.Background(), clitest.Ask("hi")))
		var pe *provider.Error
		if !errors.As(err, &pe) || pe.Kind != provider.KindMissingEnv || pe.EnvVar != "SOME_KEY" ||
			!strings.Contains(err.Error(), "export it before starting loopforge") || !strings.Contains(err.Error(), "pass_env: [SOME_KEY]") {
			t.Errorf("%s: err = %v", name, err)
		}
	}
}
