package loop

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loopforge/loopforge/backend/event"
	"github.com/loopforge/loopforge/backend/gitops"
	"github.com/loopforge/loopforge/backend/provider"
)

// toolModel is a scripted API model with tool calling: each turn either asks
// for tool calls or answers with text. It records every request.
type toolModel struct {
	mu       sync.Mutex
	turns    []turn
	requests []provider.Request
	noTools  bool
}

type turn struct {
	calls []provider.ToolCall
	text  string
}

func call(name string, args map[string]any) provider.ToolCall {
	b, _ := json.Marshal(args)
	return provider.ToolCall{ID: "call_" + name, Name: name, Input: b, Status: provider.ToolPending}
}

func (m *toolModel) Capabilities() provider.Capabilities {
	return provider.Capabilities{Tools: !m.noTools}
}

func (m *toolModel) Stream(_ context.Context, req provider.Request) iter.Seq2[provider.Delta, error] {
	m.mu.Lock()
	m.requests = append(m.requests, req)
	var tr turn
	ok := len(m.turns) > 0
	if ok {
		tr, m.turns = m.turns[0], m.turns[1:]
	}
	m.mu.Unlock()
	return func(yield func(provider.Delta, error) bool) {
		if !ok {
			yield(provider.Delta{}, errors.New("script exhausted"))
			return
		}
		if tr.text != "" && !yield(provider.Delta{Text: tr.text}, nil) {
			return
		}
		fr := "stop"
		if len(tr.calls) > 0 {
			fr = "tool_calls"
		}
		yield(provider.Delta{Done: &provider.Response{Content: tr.text, ToolCalls: tr.calls, FinishReason: fr,
			Usage: provider.Usage{InputTokens: 3, OutputTokens: 2}}}, nil)
	}
}

func gitRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"config", "user.email", "t@example.com"}, {"config", "user.name", "T"}} {
		git(t, dir, args...)
	}
	files := map[string]string{
		"calc.sh":  "add() { echo $(( $1 - $2 )); }\n",
		"test.sh":  ". ./calc.sh\n[ \"$(add 2 2)\" = 4 ] || { echo \"FAIL: add 2 2 = $(add 2 2), want 4\" >&2; exit 1; }\necho ok\n",
		"notes.md": "# notes\n",
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-q", "-m", "init")
	return dir
}

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("workspace mode's validation commands are POSIX sh, which the Windows sandbox does not run")
	}
	out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

func wsSettings(dir string, max int) Settings {
	return Settings{MaxIterations: max, Mode: provider.ModeWorkspace, Workdir: dir, Workspace: &WorkspaceSettings{
		Task: Task{Instructions: "Fix add in calc.sh so the tests pass.", Inputs: []string{"calc.sh", "."},
			Constraints: []string{"POSIX sh only"}, Validate: []string{"sh test.sh"}},
		Git: true, Branch: "fix add",
	}}
}

func collect() (*[]event.Event, Emitter) {
	var mu sync.Mutex
	var evs []event.Event
	return &evs, func(e event.Event) error { mu.Lock(); evs = append(evs, e); mu.Unlock(); return nil }
}

func TestWorkspaceFailThenFixCommits(t *testing.T) {
	dir := gitRepo(t)
	m := &toolModel{turns: []turn{
		// iteration 1: a tool error first (escape), then a wrong fix
		{calls: []provider.ToolCall{call("read_file", map[string]any{"path": "../outside.txt"})}},
		{calls: []provider.ToolCall{call("write_file", map[string]any{"path": "calc.sh", "content": "add() { echo $(( $1 * $2 + 1 )); }\n"})}},
		{text: "I changed add."},
		// iteration 2: the real fix, as a patch
		{calls: []provider.ToolCall{call("apply_patch", map[string]any{"patch": "--- a/calc.sh\n+++ b/calc.sh\n@@ -1 +1 @@\n-add() { echo $(( $1 * $2 + 1 )); }\n+add() { echo $(( $1 + $2 )); }\n"})}},
		{text: "Fixed: add now adds."},
	}}
	evs, emit := collect()
	out := Run(context.Background(), m, nil, emit, wsSettings(dir, 3), Input{Prompt: "Fix add in calc.sh so the tests pass."})
	if out.Status != event.RunStatusSuccess || out.Iterations != 2 {
		t.Fatalf("outcome = %s after %d: %v", out.Status, out.Iterations, out.Err)
	}

	// The tool error reached the model as a tool message.
	second := m.requests[1]
	last := second.Messages[len(second.Messages)-1]
	if last.Role != provider.RoleTool || last.ToolCallID != "call_read_file" || !strings.Contains(last.Content, "../outside.txt") || !strings.Contains(last.Content, "error") {
		t.Errorf("tool result = %+v", last)
	}
	if len(second.Tools) < 6 {
		t.Errorf("tools offered = %d", len(second.Tools))
	}
	// The first prompt carries the task and its inputs; the fix prompt the test log.
	first := m.requests[0].Messages[0].Content
	for _, want := range []string{"Fix add in calc.sh", "POSIX sh only", "# Input: calc.sh", "add() { echo $(( $1 - $2 )); }", "test.sh", "`sh test.sh`"} {
		if !strings.Contains(first, want) {
			t.Errorf("implement prompt lacks %q:\n%s", want, first)
		}
	}
	fix := m.requests[3].Messages[len(m.requests[3].Messages)-1].Content
	for _, want := range []string{"Attempt 1 did not pass", "`sh test.sh` failed with exit code 1", "FAIL: add 2 2 = 5, want 4"} {
		if !strings.Contains(fix, want) {
			t.Errorf("fix prompt lacks %q:\n%s", want, fix)
		}
	}
	// The stored thread has no tool chatter.
	for _, msg := range out.Messages {
		if msg.Role == provider.RoleTool || len(msg.ToolCalls) > 0 {
			t.Errorf("tool message in the thread: %+v", msg)
		}
	}

	// A commit on the feature branch holds the final content; the tree is clean.
	if b := git(t, dir, "branch", "--show-current"); b != "loopforge/fix-add" {
		t.Errorf("branch = %s", b)
	}
	if got := git(t, dir, "show", "loopforge/fix-add:calc.sh"); got != "add() { echo $(( $1 + $2 )); }" {
		t.Errorf("committed calc.sh = %q", got)
	}
	if subj := git(t, dir, "log", "-1", "--format=%B"); !strings.Contains(subj, "loopforge: Fix add in calc.sh") || !strings.Contains(subj, "sh test.sh") {
		t.Errorf("commit message = %q", subj)
	}
	if n := git(t, dir, "rev-list", "--count", "main..loopforge/fix-add"); n != "1" {
		t.Errorf("commits on the branch = %s", n)
	}
	if st := git(t, dir, "status", "--porcelain"); st != "" {
		t.Errorf("status after commit = %q", st)
	}
	if !strings.Contains(out.FinalCode, "+add() { echo $(( $1 + $2 )); }") {
		t.Errorf("final diff = %q", out.FinalCode)
	}
	// Events: tool calls, validations, the commit and the metadata file.
	kinds := map[event.Kind]int{}
	var metaPath string
	for _, e := range *evs {
		kinds[e.Type]++
		if e.Type == event.Git {
			var g event.GitPayload
			_ = e.Decode(&g)
			if g.Action == "metadata" {
				metaPath = g.Path
			}
		}
	}
	if kinds[event.ToolCalled] != 3 || kinds[event.Validated] != 2 || kinds[event.Git] != 3 {
		t.Errorf("event counts = %v", kinds)
	}
	b, err := os.ReadFile(filepath.Join(dir, metaPath))
	if err != nil || !strings.Contains(string(b), `"status": "success"`) || !strings.Contains(string(b), `"commit"`) {
		t.Errorf("metadata %s = %s, %v", metaPath, b, err)
	}
}

func TestWorkspaceAlwaysFailingStopsWithoutCommit(t *testing.T) {
	dir := gitRepo(t)
	bad := turn{calls: []provider.ToolCall{call("write_file", map[string]any{"path": "calc.sh", "content": "add() { echo 0; }\n"})}}
	m := &toolModel{turns: []turn{bad, {text: "try 1"}, bad, {text: "try 2"}}}
	_, emit := collect()
	out := Run(context.Background(), m, nil, emit, wsSettings(dir, 2), Input{Prompt: "Fix add"})
	if out.Status != event.RunStatusLimitReached || out.Iterations != 2 {
		t.Fatalf("outcome = %s after %d: %v", out.Status, out.Iterations, out.Err)
	}
	if n := git(t, dir, "rev-list", "--count", "main..loopforge/fix-add"); n != "0" {
		t.Errorf("commits on the branch = %s", n)
	}
	if b := git(t, dir, "branch", "--show-current"); b != "loopforge/fix-add" {
		t.Errorf("branch = %s", b)
	}
	if st := git(t, dir, "status", "--porcelain"); st != "M calc.sh" {
		t.Errorf("the failed changes should stay uncommitted: %q", st)
	}
}

func TestWorkspaceDirtyRefused(t *testing.T) {
	dir := gitRepo(t)
	if err := os.WriteFile(filepath.Join(dir, "notes.md"), []byte("my edit\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	m := &toolModel{}
	_, emit := collect()
	out := Run(context.Background(), m, nil, emit, wsSettings(dir, 2), Input{Prompt: "Fix add"})
	var de *gitops.DirtyError
	if out.Status != event.RunStatusError || !errors.As(out.Err, &de) || !strings.Contains(out.Err.Error(), "notes.md") {
		t.Fatalf("outcome = %s: %v", out.Status, out.Err)
	}
	if len(m.requests) != 0 {
		t.Error("the model was called on a dirty workdir")
	}
	if b := git(t, dir, "branch", "--show-current"); b != "main" {
		t.Errorf("branch = %s", b)
	}
}

func TestWorkspaceAuditorRejectThenApprove(t *testing.T) {
	dir := gitRepo(t)
	fix := turn{calls: []provider.ToolCall{call("write_file", map[string]any{"path": "calc.sh", "content": "add() { echo $(( $1 + $2 )); }\n# TODO remove\n"})}}
	fix2 := turn{calls: []provider.ToolCall{call("write_file", map[string]any{"path": "calc.sh", "content": "add() { echo $(( $1 + $2 )); }\n"})}}
	m := &toolModel{turns: []turn{fix, {text: "done"}, fix2, {text: "removed the TODO"}}}
	auditor := &toolModel{noTools: true, turns: []turn{
		{text: `{"approved": false, "reasons": ["leaves a TODO comment"]}`},
		{text: "Looks good.\n{\"approved\": true, \"reasons\": []}"},
	}}
	set := wsSettings(dir, 3)
	set.Workspace.Auditor = auditor
	_, emit := collect()
	out := Run(context.Background(), m, nil, emit, set, Input{Prompt: "Fix add"})
	if out.Status != event.RunStatusSuccess || out.Iterations != 2 {
		t.Fatalf("outcome = %s after %d: %v", out.Status, out.Iterations, out.Err)
	}
	if !strings.Contains(auditor.requests[0].Messages[0].Content, "+# TODO remove") {
		t.Errorf("the auditor did not see the diff: %s", auditor.requests[0].Messages[0].Content)
	}
	fixPrompt := m.requests[2].Messages[len(m.requests[2].Messages)-1].Content
	if !strings.Contains(fixPrompt, "reviewer rejected") || !strings.Contains(fixPrompt, "leaves a TODO comment") {
		t.Errorf("fix prompt = %s", fixPrompt)
	}
	if got := git(t, dir, "show", "HEAD:calc.sh"); strings.Contains(got, "TODO") {
		t.Errorf("committed %q", got)
	}
}

func TestWorkspaceInputOutsideRefused(t *testing.T) {
	dir := gitRepo(t)
	set := wsSettings(dir, 1)
	set.Workspace.Task.Inputs = []string{"../etc"}
	out := Run(context.Background(), &toolModel{}, nil, func(event.Event) error { return nil }, set, Input{Prompt: "x"})
	if out.Status != event.RunStatusError || !errors.Is(out.Err, ErrInvalidSettings) || !strings.Contains(out.Err.Error(), "../etc") {
		t.Fatalf("outcome = %s: %v", out.Status, out.Err)
	}
}

func TestWorkspaceRefusesGitAfterTheCodeTamperedWithIt(t *testing.T) {
	dir := gitRepo(t)
	marker := filepath.Join(t.TempDir(), "hook-ran")
	// The "tests" plant a pre-commit hook that would run as the user when
	// loopforge commits, then pass.
	set := wsSettings(dir, 2)
	set.Workspace.Task.Validate = []string{fmt.Sprintf("printf '#!/bin/sh\\ntouch %s\\n' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit", marker)}
	m := &toolModel{turns: []turn{
		{calls: []provider.ToolCall{call("write_file", map[string]any{"path": "calc.sh", "content": "add() { echo $(( $1 + $2 )); }\n"})}},
		{text: "Fixed."},
	}}
	evs, emit := collect()
	out := Run(context.Background(), m, nil, emit, set, Input{Prompt: "Fix add"})
	var te *gitops.TamperError
	if out.Status != event.RunStatusError || !errors.As(out.Err, &te) || !strings.Contains(out.Err.Error(), filepath.Join(".git", "hooks", "pre-commit")) {
		t.Fatalf("outcome = %s: %v", out.Status, out.Err)
	}
	if want := "validation command `" + set.Workspace.Task.Validate[0] + "`"; te.Actor != want {
		t.Errorf("actor = %q, want %q", te.Actor, want)
	}
	if ErrorKind(out.Err) != event.ErrorWorkspaceGuard {
		t.Errorf("error kind = %q", ErrorKind(out.Err))
	}
	for _, e := range *evs {
		var g event.GitPayload
		if e.Type == event.Git && e.Decode(&g) == nil && g.Action == "commit" {
			t.Fatalf("committed despite the tampering: %+v", g)
		}
	}
	if n := git(t, dir, "rev-list", "--count", "HEAD"); n != "1" {
		t.Errorf("%s commits on the branch, want the initial one only", n)
	}
	if _, err := os.Stat(marker); !os.IsNotExist(err) {
		t.Errorf("the planted hook ran (%v)", err)
	}
}

// cliModel stands for a coding CLI (codex, claude): it edits the workdir
// itself while it "generates", then answers with text.
type cliModel struct {
	name  string
	edits []func(dir string) error // one per generation
	calls int
}

func (m *cliModel) Name() string                        { return m.name }
func (m *cliModel) Capabilities() provider.Capabilities { return provider.Capabilities{} }

func (m *cliModel) Stream(_ context.Context, req provider.Request) iter.Seq2[provider.Delta, error] {
	return func(yield func(provider.Delta, error) bool) {
		if m.calls >= len(m.edits) {
			yield(provider.Delta{}, errors.New("script exhausted"))
			return
		}
		edit := m.edits[m.calls]
		m.calls++
		if err := edit(req.Workdir); err != nil {
			yield(provider.Delta{}, err)
			return
		}
		yield(provider.Delta{Done: &provider.Response{Content: "Fixed add.", FinishReason: "stop"}}, nil)
	}
}

// fixAdd is a CLI's edit that makes test.sh pass.
func fixAdd(dir string) error {
	return os.WriteFile(filepath.Join(dir, "calc.sh"), []byte("add() { echo $(( $1 + $2 )); }\n"), 0o644)
}

// Git's own bookkeeping (.git/index, objects, refs) is no tampering: a run
// whose validation passes commits even though loopforge's `git diff HEAD`
// and a validation command's git refreshed the index.
func TestWorkspacePassingValidationCommitsAfterGitBookkeeping(t *testing.T) {
	for _, tc := range []struct {
		name     string
		touch    bool // the model rewrites notes.md unchanged
		validate []string
	}{
		// Coding CLIs and formatters rewrite files they leave unchanged: a
		// new mtime on the same content makes loopforge's own `git diff
		// HEAD` refresh .git/index.
		{"loopforge's git diff refreshes the index", true, []string{"sh test.sh"}},
		// A test suite that runs git itself (as many do) rewrites the index.
		{"a validation command runs git", false, []string{"sh test.sh", "git status --porcelain >/dev/null"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := gitRepo(t)
			m := &cliModel{name: "codex", edits: []func(string) error{func(dir string) error {
				if err := fixAdd(dir); err != nil || !tc.touch {
					return err
				}
				later := time.Now().Add(3 * time.Second)
				return os.Chtimes(filepath.Join(dir, "notes.md"), later, later)
			}}}
			set := wsSettings(dir, 2)
			set.Workspace.Task.Validate = tc.validate
			evs, emit := collect()
			out := Run(context.Background(), m, nil, emit, set, Input{Prompt: "Fix add"})
			if out.Status != event.RunStatusSuccess || out.Iterations != 1 {
				t.Fatalf("outcome = %s after %d: %v", out.Status, out.Iterations, out.Err)
			}
			committed := false
			for _, e := range *evs {
				var g event.GitPayload
				if e.Type == event.Git && e.Decode(&g) == nil && g.Action == "commit" {
					committed = true
				}
			}
			if !committed {
				t.Error("no commit event")
			}
			if got := git(t, dir, "show", "loopforge/fix-add:calc.sh"); got != "add() { echo $(( $1 + $2 )); }" {
				t.Errorf("committed calc.sh = %q", got)
			}
			if st := git(t, dir, "status", "--porcelain"); st != "" {
				t.Errorf("status after the run = %q", st)
			}
		})
	}
}

// noCommit fails the test if the run committed.
func noCommit(t *testing.T, evs []event.Event, dir string) {
	t.Helper()
	for _, e := range evs {
		var g event.GitPayload
		if e.Type == event.Git && e.Decode(&g) == nil && g.Action == "commit" {
			t.Fatalf("committed: %+v", g)
		}
	}
	if n := git(t, dir, "rev-list", "--count", "--all"); n != "1" {
		t.Errorf("%s commits in the repository, want the initial one only", n)
	}
}

func TestWorkspaceRefusesGitAfterTheModelTamperedWithIt(t *testing.T) {
	dir := gitRepo(t)
	marker := filepath.Join(t.TempDir(), "hook-ran")
	m := &cliModel{name: "codex", edits: []func(string) error{func(dir string) error {
		if err := fixAdd(dir); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, ".git", "hooks", "pre-commit"), []byte("#!/bin/sh\ntouch "+marker+"\n"), 0o755)
	}}}
	evs, emit := collect()
	out := Run(context.Background(), m, nil, emit, wsSettings(dir, 2), Input{Prompt: "Fix add"})
	var te *gitops.TamperError
	if out.Status != event.RunStatusError || !errors.As(out.Err, &te) {
		t.Fatalf("outcome = %s: %v", out.Status, out.Err)
	}
	if te.Actor != "the model (provider codex)" || !strings.Contains(out.Err.Error(), "while the model (provider codex) was working") {
		t.Errorf("actor = %q: %v", te.Actor, out.Err)
	}
	if len(te.Changed) != 1 || te.Changed[0] != filepath.Join(".git", "hooks", "pre-commit") {
		t.Errorf("changed = %q", te.Changed)
	}
	if ErrorKind(out.Err) != event.ErrorWorkspaceGuard {
		t.Errorf("error kind = %q", ErrorKind(out.Err))
	}
	for _, e := range *evs {
		if e.Type == event.Validated {
			t.Error("a validation command ran after the model tampered with git")
		}
	}
	noCommit(t, *evs, dir)
	if _, err := os.Stat(marker); !os.IsNotExist(err) {
		t.Errorf("the planted hook ran (%v)", err)
	}
}

func TestWorkspaceRefusesToCommitOffTheRunsBranch(t *testing.T) {
	dir := gitRepo(t)
	m := &cliModel{name: "claude", edits: []func(string) error{func(dir string) error {
		if out, err := exec.Command("git", "-C", dir, "switch", "-q", "main").CombinedOutput(); err != nil {
			return fmt.Errorf("%v: %s", err, out)
		}
		return fixAdd(dir)
	}}}
	evs, emit := collect()
	out := Run(context.Background(), m, nil, emit, wsSettings(dir, 2), Input{Prompt: "Fix add"})
	var be *gitops.BranchMovedError
	if out.Status != event.RunStatusError || !errors.As(out.Err, &be) || be.Branch != "loopforge/fix-add" || be.Head != "main" {
		t.Fatalf("outcome = %s: %v", out.Status, out.Err)
	}
	if ErrorKind(out.Err) != event.ErrorWorkspaceGuard {
		t.Errorf("error kind = %q", ErrorKind(out.Err))
	}
	noCommit(t, *evs, dir)
}

func TestErrorKindIsForTheGuardOnly(t *testing.T) {
	for _, err := range []error{nil, errors.New("openai: 401 Unauthorized"), &gitops.DirtyError{Dir: "/x"}} {
		if k := ErrorKind(err); k != "" {
			t.Errorf("ErrorKind(%v) = %q", err, k)
		}
	}
	if k := ErrorKind(fmt.Errorf("wrapped: %w", &gitops.TamperError{})); k != event.ErrorWorkspaceGuard {
		t.Errorf("a wrapped TamperError: %q", k)
	}
}
