package claudecli

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/loopforge/loopforge/backend/procgroup"
	"github.com/loopforge/loopforge/backend/provider"
	"github.com/loopforge/loopforge/backend/provider/cliproc"
	"github.com/loopforge/loopforge/backend/provider/cliproc/clitest"
)

var newClient = clitest.ClientMaker("claude", New)

func lines(t *testing.T, file string) int {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(strings.TrimRight(string(b), "\n"), "\n") + 1
}

// The common case: exact argv, cwd, stdin and environment; token deltas in
// order that add up to the final content; the result's metadata.
func TestStreamPartialMessages(t *testing.T) {
	f := clitest.NewFake(t, []string{"claude"}, map[string]string{
		"ANTHROPIC_API_KEY":     "sk-ant-parent-0123456789",
		"CLAUDE_CONFIG_DIR":     "/cfg/claude",
		"OPENAI_API_KEY":        "sk-openai-must-not-leak",
		"AWS_SECRET_ACCESS_KEY": "aws-must-not-leak",
		"GITHUB_TOKEN":          "ghp-must-not-leak",
		"FOO":                   "bar",
	})
	wd := t.TempDir()
	env := f.Env("testdata/claude-text-partial.jsonl", map[string]string{"EXTRA": "1"})
	c := newClient(t, provider.Profile{Model: "sonnet", Args: []string{"--max-turns", "3"}, Env: env})
	req := clitest.Ask("Write a hello world python program")
	req.Workdir = wd
	deltas, done := clitest.MustStream(t, c, req)
	rec := clitest.ReadRecord(t, f.Record)

	if len(rec.Args) != 14 || !clitest.UUID.MatchString(rec.Args[10]) {
		t.Fatalf("argv = %q", rec.Args)
	}
	want := []string{"-p", "--output-format", "stream-json", "--verbose", "--include-partial-messages",
		"--permission-mode", "default", "--model", "sonnet", "--session-id", rec.Args[10],
		"--max-turns", "3", "Write a hello world python program"}
	if !reflect.DeepEqual(rec.Args, want) {
		t.Fatalf("argv\n got %q\nwant %q", rec.Args, want)
	}
	wdReal, _ := filepath.EvalSymlinks(wd)
	if rec.Cwd != wdReal {
		t.Errorf("cwd = %s, want the workdir %s", rec.Cwd, wdReal)
	}
	if rec.StdinSrc != "/dev/null" {
		t.Errorf("stdin = %s, want /dev/null", rec.StdinSrc)
	}
	wantEnv := []string{
		"ANTHROPIC_API_KEY=sk-ant-parent-0123456789",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"CLAUDE_CONFIG_DIR=/cfg/claude",
		"DISABLE_AUTOUPDATER=1",
		"EXTRA=1",
		"FAKE_RECORD=" + env["FAKE_RECORD"],
		"FAKE_REPLAY=" + env["FAKE_REPLAY"],
		"HOME=" + f.Home,
		"LANG=C.UTF-8",
		"PATH=" + f.Dir + ":/usr/bin:/bin",
	}
	if !reflect.DeepEqual(rec.Env, wantEnv) {
		t.Errorf("env\n got %q\nwant %q", rec.Env, wantEnv)
	}

	wantDeltas := []string{"Here is a tiny Python program", ":\n\n```python\ndef greet(name):",
		"\n    return f\"Hello, {name}!\"", "\n\nprint(greet(\"world\"))\n```\n\n", "Run it with `python3 hello.py", "`."}
	if !reflect.DeepEqual(deltas, wantDeltas) {
		t.Errorf("deltas\n got %q\nwant %q", deltas, wantDeltas)
	}
	if strings.Join(deltas, "") != done.Content || done.Content != clitest.HelloAnswer {
		t.Errorf("content %q", done.Content)
	}
	if done.Status != provider.StatusSuccess || done.Provider != "claude" {
		t.Errorf("status %q provider %q", done.Status, done.Provider)
	}
	if done.SessionID != "14b24300-9f18-4e59-b739-1f3f6ef0ca74" || done.Model != "claude-opus-4-8" || done.FinishReason != "end_turn" {
		t.Errorf("session %q model %q finish %q", done.SessionID, done.Model, done.FinishReason)
	}
	if done.Usage != (provider.Usage{InputTokens: 19000, OutputTokens: 42, CostUSD: 0.09605}) {
		t.Errorf("usage %+v", done.Usage)
	}
	if n := lines(t, "testdata/claude-text-partial.jsonl"); len(done.RawEvents) != n {
		t.Errorf("%d raw events, want %d", len(done.RawEvents), n)
	}
	if done.Command[0] != filepath.Join(f.Dir, "claude") || !reflect.DeepEqual(done.Command[1:], rec.Args) {
		t.Errorf("command %q", done.Command)
	}
	if len(done.Warnings) != 0 || len(done.ToolCalls) != 0 {
		t.Errorf("warnings %q tools %+v", done.Warnings, done.ToolCalls)
	}
}

// Without stream_event lines (older flags, or a profile dropping partial
// messages) the assistant events' text is the stream.
func TestStreamWholeMessages(t *testing.T) {
	f := clitest.NewFake(t, []string{"claude"}, nil)
	c := newClient(t, provider.Profile{Env: f.Env("testdata/claude-text.jsonl", nil)})
	deltas, done := clitest.MustStream(t, c, clitest.Ask("hi"))
	if len(deltas) != 1 || deltas[0] != clitest.HelloAnswer || done.Content != clitest.HelloAnswer {
		t.Fatalf("deltas %q content %q", deltas, done.Content)
	}
	if rec := clitest.ReadRecord(t, f.Record); slices.Contains(rec.Args, "--model") {
		t.Errorf("no model in the profile, yet argv = %q", rec.Args)
	}
}

// Script mode: claude's default permission mode denies the write; the call
// still succeeds, the tool is marked denied and the user is told what to do.
func TestPermissionDenied(t *testing.T) {
	f := clitest.NewFake(t, []string{"claude"}, nil)
	c := newClient(t, provider.Profile{Env: f.Env("testdata/claude-tool-default.jsonl", nil)})
	deltas, done := clitest.MustStream(t, c, clitest.Ask("Create hello.py"))
	want := "I'll create hello.py.\n\nI created hello.py. It prints a greeting:\n\n```python\nprint(\"hello from fake model\")\n```"
	if done.Content != want || strings.Join(deltas, "") != want {
		t.Errorf("content %q deltas %q", done.Content, deltas)
	}
	if len(done.ToolCalls) != 1 {
		t.Fatalf("tools %+v", done.ToolCalls)
	}
	tc := done.ToolCalls[0]
	if tc.Name != "Write" || tc.ID != "toolu_c87699de9cb640e79c68" || tc.Status != provider.ToolDenied ||
		!strings.Contains(tc.Error, "haven't granted it yet") || !strings.Contains(string(tc.Input), "hello.py") {
		t.Errorf("tool call %+v", tc)
	}
	if len(done.Warnings) != 1 || !strings.Contains(done.Warnings[0], "not allowed to use Write on /sandbox/wd.GBjWnu/hello.py") ||
		!strings.Contains(done.Warnings[0], "workspace mode") {
		t.Errorf("warnings %q", done.Warnings)
	}
}

// Workspace mode grants edits (acceptEdits); resuming sends only the last
// user message with --resume, in a private directory named after the session
// (claude files sessions by cwd), removed afterwards.
func TestWorkspaceResume(t *testing.T) {
	f := clitest.NewFake(t, []string{"claude"}, nil)
	c := newClient(t, provider.Profile{Env: f.Env("testdata/claude-tool-acceptedits.jsonl", nil)})
	const sid = "11111111-2222-4333-8444-555555555555"
	req := provider.Request{System: "be brief", Mode: provider.ModeWorkspace, SessionID: sid, Messages: []provider.Message{
		{Role: provider.RoleUser, Content: "Remember banana"}, {Role: provider.RoleAssistant, Content: "ok"},
		{Role: provider.RoleUser, Content: "Create hello.py"}}}
	_, done := clitest.MustStream(t, c, req)
	rec := clitest.ReadRecord(t, f.Record)
	want := []string{"-p", "--output-format", "stream-json", "--verbose", "--include-partial-messages",
		"--permission-mode", "acceptEdits", "--resume", sid, "Create hello.py"}
	if !reflect.DeepEqual(rec.Args, want) {
		t.Errorf("argv\n got %q\nwant %q", rec.Args, want)
	}
	wantDir := filepath.Join(os.TempDir(), "loopforge-cli-"+strconv.Itoa(os.Getuid()), "claude-"+sid)
	if rec.Cwd != wantDir {
		t.Errorf("cwd %s, want %s", rec.Cwd, wantDir)
	}
	if _, err := os.Stat(wantDir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the private workdir was not removed: %v", err)
	}
	if len(done.ToolCalls) != 1 || done.ToolCalls[0].Status != provider.ToolSuccess ||
		!strings.Contains(done.ToolCalls[0].Output, "File created successfully") {
		t.Errorf("tools %+v", done.ToolCalls)
	}
	if len(done.Warnings) != 0 {
		t.Errorf("warnings %q", done.Warnings)
	}
}

// A conversation that is not resumed is flattened into one prompt.
func TestTranscriptPrompt(t *testing.T) {
	f := clitest.NewFake(t, []string{"claude"}, nil)
	c := newClient(t, provider.Profile{Env: f.Env("testdata/claude-text.jsonl", nil)})
	req := provider.Request{System: "Answer with code.", Messages: []provider.Message{
		{Role: provider.RoleUser, Content: "Write hello"}, {Role: provider.RoleAssistant, Content: "print('hi')"},
		{Role: provider.RoleUser, Content: "-It failed"}}}
	clitest.MustStream(t, c, req)
	rec := clitest.ReadRecord(t, f.Record)
	want := "Answer with code.\n\nConversation so far (oldest first):\n\n[user]\nWrite hello\n\n[assistant]\nprint('hi')\n\nReply to this latest user message:\n\n[user]\n-It failed"
	if got := rec.Args[len(rec.Args)-1]; got != want {
		t.Errorf("prompt\n got %q\nwant %q", got, want)
	}
}

// The form claude answers a rejected key with: exit 1 and a result whose
// subtype is "success" but is_error true, api_error_status 401.
func TestAuthError(t *testing.T) {
	f := clitest.NewFake(t, []string{"claude"}, nil)
	c := newClient(t, provider.Profile{Env: f.Env("testdata/claude-error401.jsonl", map[string]string{"FAKE_EXIT": "1"})})
	deltas, _, err := clitest.Collect(c.Stream(context.Background(), clitest.Ask("Say hi")))
	var pe *provider.Error
	if !errors.Is(err, provider.ErrAuth) || !errors.As(err, &pe) || pe.Status != 401 {
		t.Fatalf("err = %v", err)
	}
	if msg := err.Error(); !strings.Contains(msg, "Invalid API key") || !strings.Contains(msg, "ANTHROPIC_API_KEY") || !strings.Contains(msg, "log in") {
		t.Errorf("message %q", msg)
	}
	part := provider.PartialOf(err)
	if part == nil || part.Status != provider.StatusError || part.SessionID != "3b367d94-fd63-4022-ae56-73e4245a880a" {
		t.Fatalf("partial %+v", part)
	}
	if strings.Join(deltas, "") != part.Content {
		t.Errorf("deltas %q vs content %q", deltas, part.Content)
	}
}

// With its default retries claude would retry a 401 for minutes: the first
// api_retry with status 401 stops it.
func TestAuthErrorStopsRetries(t *testing.T) {
	f := clitest.NewFake(t, []string{"claude"}, nil)
	env := f.Env("testdata/claude-error401-retries.jsonl", map[string]string{"FAKE_HANG": "1"})
	c := newClient(t, provider.Profile{Env: env})
	_, _, err := clitest.Collect(c.Stream(context.Background(), clitest.Ask("Say hi")))
	if !errors.Is(err, provider.ErrAuth) {
		t.Fatalf("err = %v", err)
	}
	if part := provider.PartialOf(err); part.Status != provider.StatusError || len(part.RawEvents) != 2 {
		t.Errorf("partial: status %q, %d events (want init + the first retry)", part.Status, len(part.RawEvents))
	}
	if pid := clitest.ReadRecord(t, f.Record).PID; procgroup.Alive(pid) {
		t.Errorf("claude (pid %d) still runs", pid)
	}
}

// A bad flag: nothing on stdout, exit 1, the complaint on stderr.
func TestCLIFailed(t *testing.T) {
	f := clitest.NewFake(t, []string{"claude"}, nil)
	c := newClient(t, provider.Profile{Args: []string{"--no-such-flag"}, Env: f.Env("", map[string]string{
		"FAKE_STDERR": "error: unknown option '--no-such-flag'", "FAKE_EXIT": "1"})})
	_, _, err := clitest.Collect(c.Stream(context.Background(), clitest.Ask("hi")))
	var ee *provider.ExecutionError
	if !errors.As(err, &ee) || ee.ExitCode != 1 || errors.Is(err, provider.ErrIncomplete) {
		t.Fatalf("err = %#v", err)
	}
	if !strings.Contains(ee.Stderr, "unknown option '--no-such-flag'") || !strings.Contains(err.Error(), "unknown option") ||
		!slices.Contains(ee.Cmd, "--no-such-flag") {
		t.Errorf("error %q, stderr %q, cmd %q", err, ee.Stderr, ee.Cmd)
	}
	if part := provider.PartialOf(err); part.Status != provider.StatusError {
		t.Errorf("status %q", part.Status)
	}
}

// Cancelling mid-stream kills the whole group (a child included) and returns
// what arrived, marked partial.
func TestCancelKillsGroup(t *testing.T) {
	f := clitest.NewFake(t, []string{"claude"}, nil)
	childFile := f.Path("child")
	c := newClient(t, provider.Profile{Env: f.Env("testdata/claude-sigterm.jsonl", map[string]string{
		"FAKE_HANG": "1", "FAKE_CHILD": childFile})})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var deltas []string
	var err error
	for d, e := range c.Stream(ctx, clitest.Ask("Say hi slowly")) {
		if e != nil {
			err = e
			break
		}
		deltas = append(deltas, d.Text)
		if len(deltas) == 2 {
			cancel()
		}
	}
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	part := provider.PartialOf(err)
	if part == nil || part.Status != provider.StatusPartial || part.Content != strings.Join(deltas, "") || !strings.HasPrefix(part.Content, "Here i") {
		t.Fatalf("partial %+v, deltas %q", part, deltas)
	}
	if pid := clitest.ReadRecord(t, f.Record).PID; procgroup.Alive(pid) {
		t.Errorf("claude (pid %d) survived the cancel", pid)
	}
	if pid := clitest.ReadPID(t, childFile); procgroup.Alive(pid) {
		t.Errorf("its child (pid %d) survived the cancel", pid)
	}
}

// Breaking out of the loop stops the CLI too.
func TestBreakStopsCLI(t *testing.T) {
	f := clitest.NewFake(t, []string{"claude"}, nil)
	c := newClient(t, provider.Profile{Env: f.Env("testdata/claude-sigterm.jsonl", map[string]string{"FAKE_HANG": "1"})})
	for range c.Stream(context.Background(), clitest.Ask("Say hi slowly")) {
		break
	}
	if pid := clitest.ReadRecord(t, f.Record).PID; procgroup.Alive(pid) {
		t.Errorf("claude (pid %d) still runs", pid)
	}
}

func TestTimeout(t *testing.T) {
	f := clitest.NewFake(t, []string{"claude"}, nil)
	c := newClient(t, provider.Profile{Env: f.Env("testdata/claude-sigterm.jsonl", map[string]string{"FAKE_HANG": "1"})})
	req := clitest.Ask("Say hi slowly")
	req.Timeout = 300e6 // 300ms; nothing below depends on how long it took
	deltas, _, err := clitest.Collect(c.Stream(context.Background(), req))
	var pe *provider.Error
	if !errors.Is(err, provider.ErrTimeout) || !errors.As(err, &pe) || pe.Kind != provider.KindTimeout {
		t.Fatalf("err = %v", err)
	}
	if part := provider.PartialOf(err); part.Status != provider.StatusPartial || part.Content != strings.Join(deltas, "") {
		t.Errorf("partial %+v", part)
	}
}

// A malformed line: the events around it are still delivered; the result is
// an error naming the line.
func TestMalformedLine(t *testing.T) {
	f := clitest.NewFake(t, []string{"claude"}, nil)
	c := newClient(t, provider.Profile{Env: f.Env("testdata/claude-text-partial.jsonl", map[string]string{
		"FAKE_INSERT_AT": "12", "FAKE_INSERT": `{"type":"stream_event","event":{"type":"content_blo`})})
	deltas, _, err := clitest.Collect(c.Stream(context.Background(), clitest.Ask("hi")))
	var pe *provider.ParseError
	if !errors.As(err, &pe) || pe.Line != 12 || !strings.HasPrefix(pe.Raw, `{"type":"stream_event"`) {
		t.Fatalf("err = %v", err)
	}
	part := provider.PartialOf(err)
	if part.Status != provider.StatusError || part.Content != clitest.HelloAnswer || strings.Join(deltas, "") != clitest.HelloAnswer {
		t.Errorf("status %q content %q deltas %q", part.Status, part.Content, deltas)
	}
	var s string
	if err := json.Unmarshal(part.RawEvents[11], &s); err != nil || !strings.HasPrefix(s, `{"type":"stream_event"`) {
		t.Errorf("the bad line is not kept as a string event: %s", part.RawEvents[11])
	}
}

// Text on stdout that is not JSON at all is noise, not a broken stream.
func TestNonJSONLineIsAWarning(t *testing.T) {
	f := clitest.NewFake(t, []string{"claude"}, nil)
	c := newClient(t, provider.Profile{Env: f.Env("testdata/claude-text.jsonl", map[string]string{
		"FAKE_INSERT_AT": "2", "FAKE_INSERT": "Update available: 9.9.9"})})
	_, done := clitest.MustStream(t, c, clitest.Ask("hi"))
	if len(done.Warnings) != 1 || !strings.Contains(done.Warnings[0], "Update available") {
		t.Errorf("warnings %q", done.Warnings)
	}
}

// Killed mid-stream by someone else: what arrived, partial, and why.
func TestDiesMidStream(t *testing.T) {
	f := clitest.NewFake(t, []string{"claude"}, nil)
	c := newClient(t, provider.Profile{Env: f.Env("testdata/claude-text-partial.jsonl", map[string]string{"FAKE_DIE_AT": "13"})})
	deltas, _, err := clitest.Collect(c.Stream(context.Background(), clitest.Ask("hi")))
	var ee *provider.ExecutionError
	if !errors.As(err, &ee) || ee.ExitCode != 137 || !errors.Is(err, provider.ErrIncomplete) {
		t.Fatalf("err = %v", err)
	}
	part := provider.PartialOf(err)
	want := "Here is a tiny Python program:\n\n```python\ndef greet(name):"
	if part.Status != provider.StatusPartial || part.Content != want || strings.Join(deltas, "") != want {
		t.Errorf("status %q content %q", part.Status, part.Content)
	}
}

// A prompt too long for one argument goes to stdin.
func TestLongPromptOnStdin(t *testing.T) {
	f := clitest.NewFake(t, []string{"claude"}, nil)
	c := newClient(t, provider.Profile{Env: f.Env("testdata/claude-text.jsonl", nil)})
	long := strings.Repeat("x", cliproc.MaxArgPrompt+1)
	clitest.MustStream(t, c, clitest.Ask(long))
	rec := clitest.ReadRecord(t, f.Record)
	if rec.Stdin != long || !strings.HasPrefix(rec.StdinSrc, "pipe:") || slices.Contains(rec.Args, long) {
		t.Errorf("stdin %s (%d bytes), argv has the prompt: %v", rec.StdinSrc, len(rec.Stdin), slices.Contains(rec.Args, long))
	}
	if last := rec.Args[len(rec.Args)-1]; !clitest.UUID.MatchString(last) {
		t.Errorf("argv ends with %q", last)
	}
}

// The profile's key, endpoint and binary path.
func TestProfileKeyBaseURLBinary(t *testing.T) {
	f := clitest.NewFake(t, nil, map[string]string{"ANTHROPIC_API_KEY": "sk-ant-parent-0123456789"})
	bin := clitest.InstallFake(t, t.TempDir(), "claude-beta")
	c := newClient(t, provider.Profile{Binary: bin, APIKeyEnv: "MY_CLAUDE_KEY", APIKey: "sk-ant-profile-0123456789",
		BaseURL: "http://127.0.0.1:9/v1", Env: f.Env("testdata/claude-text.jsonl", nil)})
	_, done := clitest.MustStream(t, c, clitest.Ask("hi"))
	rec := clitest.ReadRecord(t, f.Record)
	if rec.Name != "claude-beta" || done.Command[0] != bin {
		t.Errorf("ran %s (%s)", rec.Name, done.Command[0])
	}
	if !slices.Contains(rec.Env, "ANTHROPIC_API_KEY=sk-ant-profile-0123456789") || !slices.Contains(rec.Env, "ANTHROPIC_BASE_URL=http://127.0.0.1:9") {
		t.Errorf("env %q", rec.Env)
	}
	if strings.Contains(strings.Join(done.Command, " "), "sk-ant") {
		t.Errorf("a key in the command line: %q", done.Command)
	}
}

func TestNotFound(t *testing.T) {
	npm := t.TempDir()
	clitest.NewFake(t, nil, map[string]string{"NPM_CONFIG_PREFIX": npm})
	c := newClient(t, provider.Profile{}) // New looks for nothing
	_, _, err := clitest.Collect(c.Stream(context.Background(), clitest.Ask("hi")))
	var nf *provider.NotFoundError
	if !errors.Is(err, provider.ErrCLINotFound) || !errors.As(err, &nf) || nf.Binary != "claude" || len(nf.Looked) != 2 {
		t.Fatalf("err = %v", err)
	}
	if msg := err.Error(); !strings.Contains(msg, "looked in: PATH;") || !strings.Contains(msg, filepath.Join(npm, "bin", "claude")) ||
		!strings.Contains(msg, "@anthropic-ai/claude-code") {
		t.Errorf("message %q", msg)
	}
	if provider.PartialOf(err) != nil {
		t.Error("nothing ran, yet there is a partial result")
	}

	// Found in the npm global prefix when PATH has none.
	if err := os.MkdirAll(filepath.Join(npm, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	clitest.InstallFake(t, filepath.Join(npm, "bin"), "claude")
	if v, err := c.(*Client).Check(context.Background()); err != nil || v != "fake 0.0.0" {
		t.Errorf("Check = %q, %v", v, err)
	}

	// A profile path is used as is.
	c = newClient(t, provider.Profile{Binary: "/nonexistent/claude"})
	if _, err := c.(*Client).Check(context.Background()); !errors.As(err, &nf) || nf.Binary != "/nonexistent/claude" ||
		!strings.Contains(err.Error(), "binary setting") {
		t.Errorf("err = %v", err)
	}
}

// A panic in the loop body must not leave claude running.
func TestPanicStopsCLI(t *testing.T) {
	f := clitest.NewFake(t, []string{"claude"}, nil)
	c := newClient(t, provider.Profile{Env: f.Env("testdata/claude-sigterm.jsonl", map[string]string{"FAKE_HANG": "1"})})
	func() {
		defer func() {
			if v := recover(); v != "boom" {
				t.Errorf("recovered %v", v)
			}
		}()
		for range c.Stream(context.Background(), clitest.Ask("Say hi slowly")) {
			panic("boom")
		}
	}()
	if pid := clitest.ReadRecord(t, f.Record).PID; procgroup.Alive(pid) {
		t.Errorf("claude (pid %d) still runs", pid)
	}
}

// A profile that names a key variable needs it set; one that does not lets
// claude use its own login.
func TestMissingKey(t *testing.T) {
	_, err := New(provider.Profile{Name: "claude", Kind: "claude", APIKeyEnv: "MY_KEY"})
	if !errors.Is(err, provider.ErrMissingKey) || !strings.Contains(err.Error(), "MY_KEY") {
		t.Errorf("err = %v", err)
	}
	if _, err := New(provider.Profile{Name: "claude", Kind: "claude"}); err != nil {
		t.Error(err)
	}
}

func envNames(env []string) []string {
	var names []string
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		names = append(names, k)
	}
	return names
}

// Cloud credentials reach claude only when its settings (or its own
// switch in the environment) route it through that cloud.
func TestCloudProviderEnv(t *testing.T) {
	saved := managedSettings
	managedSettings = filepath.Join(t.TempDir(), "managed-settings.json") // none
	t.Cleanup(func() { managedSettings = saved })
	cloud := map[string]string{
		"AWS_PROFILE": "corp", "AWS_SECRET_ACCESS_KEY": "aws-secret-0123456789",
		"GOOGLE_APPLICATION_CREDENTIALS": "/keys/sa.json", "CLOUD_ML_REGION": "us-east5",
		"AZURE_CLIENT_SECRET": "azure-secret-0123456789",
		"UNRELATED_SECRET":    "must-not-leak",
	}
	for _, tc := range []struct {
		name     string
		settings string            // ~/.claude/settings.json
		env      map[string]string // beyond cloud
		want     []string          // cloud variables claude gets
	}{
		{"none", `{"env":{"FOO":"1"}}`, nil, nil},
		{"bedrock in settings", `{"env":{"CLAUDE_CODE_USE_BEDROCK":"1","AWS_REGION":"us-east-1"}}`, nil,
			[]string{"AWS_PROFILE", "AWS_SECRET_ACCESS_KEY"}},
		{"vertex in the environment", "", map[string]string{"CLAUDE_CODE_USE_VERTEX": "true"},
			[]string{"CLOUD_ML_REGION", "GOOGLE_APPLICATION_CREDENTIALS"}},
		{"foundry in settings", `{"env":{"CLAUDE_CODE_USE_FOUNDRY":true}}`, nil, []string{"AZURE_CLIENT_SECRET"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			vars := maps.Clone(cloud)
			maps.Copy(vars, tc.env)
			f := clitest.NewFake(t, []string{"claude"}, vars)
			if tc.settings != "" {
				if err := os.MkdirAll(filepath.Join(f.Home, ".claude"), 0o700); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(f.Home, ".claude", "settings.json"), []byte(tc.settings), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			c := newClient(t, provider.Profile{Env: f.Env("testdata/claude-text-partial.jsonl", nil)})
			clitest.MustStream(t, c, clitest.Ask("hi"))
			var got []string
			for _, n := range envNames(clitest.ReadRecord(t, f.Record).Env) {
				if _, ok := cloud[n]; ok {
					got = append(got, n)
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("cloud variables passed: %q, want %q", got, tc.want)
			}
		})
	}
}
