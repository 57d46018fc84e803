package loop

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/loopforge/loopforge/backend/event"
	"github.com/loopforge/loopforge/backend/gitops"
	"github.com/loopforge/loopforge/backend/provider"
	"github.com/loopforge/loopforge/backend/workspace"
)

// Each step of a workspace run, alone: openRun prepares a run as Run does
// before its first attempt, and the test calls one step.

func openRun(t *testing.T, m Model, set Settings) (*wsRun, *[]event.Event) {
	t.Helper()
	evs, emit := collect()
	r := &runner{model: m, emit: emit, set: set, prompt: "Fix add"}
	w, err := openWorkspaceRun(r, []provider.Message{{Role: provider.RoleUser, Content: "Fix add"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.ws.Close() })
	if err := w.prepare(context.Background()); err != nil {
		t.Fatal(err)
	}
	return w, evs
}

// payloads decodes the events of one kind.
func payloads[T any](t *testing.T, evs []event.Event, kind event.Kind) []T {
	t.Helper()
	var out []T
	for _, e := range evs {
		if e.Type == kind {
			var p T
			if err := e.Decode(&p); err != nil {
				t.Fatal(err)
			}
			out = append(out, p)
		}
	}
	return out
}

func TestWorkspaceStepPrepare(t *testing.T) {
	t.Run("an API model on a feature branch", func(t *testing.T) {
		dir := gitRepo(t)
		w, evs := openRun(t, &toolModel{}, wsSettings(dir, 2))
		if b := git(t, dir, "branch", "--show-current"); b != "loopforge/fix-add" || w.branch != b || w.meta.Branch != b {
			t.Errorf("branch %q, run's %q, metadata's %q", b, w.branch, w.meta.Branch)
		}
		if g := payloads[event.GitPayload](t, *evs, event.Git); len(g) != 1 || g[0].Action != "branch" || g[0].Branch != "loopforge/fix-add" {
			t.Errorf("git events = %+v", g)
		}
		if len(w.msgs) != 1 || !strings.Contains(w.msgs[0].Content, "# Input: calc.sh") {
			t.Errorf("the user's prompt was not replaced by the implement prompt: %+v", w.msgs)
		}
		if w.tools == nil || !strings.Contains(w.system, "Use the tools") || !strings.Contains(w.system, "`sh test.sh`") {
			t.Errorf("tools %v, system prompt:\n%s", w.tools != nil, w.system)
		}
	})
	t.Run("a coding CLI in place, without git", func(t *testing.T) {
		dir := gitRepo(t)
		set := wsSettings(dir, 2)
		set.Workspace.Git = false
		w, evs := openRun(t, &cliModel{name: "codex"}, set)
		if w.repo != nil || w.guard != nil || len(*evs) != 0 || git(t, dir, "branch", "--show-current") != "main" {
			t.Errorf("repo %v guard %v events %d", w.repo, w.guard, len(*evs))
		}
		if w.tools != nil || !strings.Contains(w.system, "Edit the files in your working directory") {
			t.Errorf("tools %v, system prompt:\n%s", w.tools != nil, w.system)
		}
	})
}

func TestWorkspaceStepGenerate(t *testing.T) {
	ctx := context.Background()
	t.Run("tool rounds stay out of the thread", func(t *testing.T) {
		dir := gitRepo(t)
		m := &toolModel{turns: []turn{
			{calls: []provider.ToolCall{call("write_file", map[string]any{"path": "calc.sh", "content": "add() { echo $(( $1 + $2 )); }\n"})}},
			{text: "Fixed add."},
		}}
		w, evs := openRun(t, m, wsSettings(dir, 2))
		a, err := w.generate(ctx, 1)
		if err != nil || a.answer != "Fixed add." || a.problem != "" {
			t.Fatalf("attempt %+v, %v", a, err)
		}
		if b, _ := os.ReadFile(filepath.Join(dir, "calc.sh")); !strings.Contains(string(b), "$1 + $2") {
			t.Errorf("calc.sh = %q", b)
		}
		if len(w.msgs) != 2 || w.msgs[1].Role != provider.RoleAssistant || w.msgs[1].Content != "Fixed add." {
			t.Errorf("thread = %+v", w.msgs)
		}
		gen := payloads[event.GeneratedPayload](t, *evs, event.Generated)
		if len(gen) != 1 || gen[0].InputTokens != 6 || gen[0].OutputTokens != 4 || gen[0].Content != "Fixed add." {
			t.Errorf("generated = %+v (want both rounds' tokens)", gen)
		}
		if tc := payloads[event.ToolCallPayload](t, *evs, event.ToolCalled); len(tc) != 1 || tc[0].Name != "write_file" || !tc[0].OK {
			t.Errorf("tool calls = %+v", tc)
		}
	})
	t.Run("too many tool rounds is a problem, not an error", func(t *testing.T) {
		dir := gitRepo(t)
		read := turn{calls: []provider.ToolCall{call("read_file", map[string]any{"path": "notes.md"})}}
		set := wsSettings(dir, 2)
		set.Workspace.MaxToolRounds = 1
		w, evs := openRun(t, &toolModel{turns: []turn{read, read, read}}, set)
		a, err := w.generate(ctx, 1)
		if err != nil || !strings.Contains(a.problem, "still calling tools after 1 rounds") {
			t.Fatalf("attempt %+v, %v", a, err)
		}
		if gen := payloads[event.GeneratedPayload](t, *evs, event.Generated); len(gen) != 1 || gen[0].FormatError != a.problem {
			t.Errorf("generated = %+v", gen)
		}
	})
	t.Run("a coding CLI resumes its session", func(t *testing.T) {
		m := &sessionModel{scripted{replies: []reply{{text: "first"}, {text: "second"}}}}
		w, _ := openRun(t, m, wsSettings(gitRepo(t), 2))
		for it := 1; it <= 2; it++ {
			if _, err := w.generate(ctx, it); err != nil {
				t.Fatal(err)
			}
		}
		if m.requests[0].SessionID != "" || m.requests[1].SessionID != "cli-session-1" {
			t.Errorf("session ids %q, %q", m.requests[0].SessionID, m.requests[1].SessionID)
		}
	})
	t.Run("the model touching git is refused", func(t *testing.T) {
		dir := gitRepo(t)
		m := &cliModel{name: "codex", edits: []func(string) error{func(dir string) error {
			return os.WriteFile(filepath.Join(dir, ".git", "hooks", "pre-commit"), []byte("#!/bin/sh\n"), 0o755)
		}}}
		w, _ := openRun(t, m, wsSettings(dir, 2))
		var te *gitops.TamperError
		if _, err := w.generate(ctx, 1); !errors.As(err, &te) || te.Actor != "the model (provider codex)" {
			t.Fatalf("err = %v", err)
		}
		if len(w.msgs) != 1 {
			t.Errorf("a refused answer joined the thread: %+v", w.msgs)
		}
	})
}

// brokenRunner cannot start any command.
type brokenRunner struct{}

func (brokenRunner) RunCommand(context.Context, string, string, []byte) (workspace.CommandResult, error) {
	return workspace.CommandResult{}, errors.New("no shell here")
}

func TestWorkspaceStepValidate(t *testing.T) {
	ctx := context.Background()
	dir := gitRepo(t)
	set := wsSettings(dir, 2)
	set.Workspace.Task.Validate = []string{"sh test.sh", "true", "echo out; exit 3"}
	w, evs := openRun(t, &toolModel{}, set)
	failures, err := w.validate(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(failures) != 2 || failures[0].Command != "sh test.sh" || failures[0].ExitCode != 1 ||
		!strings.Contains(failures[0].Stderr, "FAIL: add 2 2 = 0, want 4") || failures[1].ExitCode != 3 || failures[1].Stdout != "out" {
		t.Errorf("failures = %+v", failures)
	}
	var passed []bool
	for _, v := range payloads[event.ValidatePayload](t, *evs, event.Validated) {
		passed = append(passed, v.Passed)
	}
	if !slices.Equal(passed, []bool{false, true, false}) {
		t.Errorf("validated events: passed %v", passed)
	}

	w.commands = brokenRunner{}
	failures, err = w.validate(ctx, 2)
	if err != nil || len(failures) != 3 || failures[1].ExitCode != -1 || failures[1].Stderr != "no shell here" {
		t.Errorf("a command that cannot start: %+v, %v", failures, err)
	}
}

func TestWorkspaceStepAudit(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name, answer, diff string
		structured         bool
		want               []string
	}{
		{"approved", `{"approved": true, "reasons": []}`, "+add", true, nil},
		{"rejected", "Sorry.\n{\"approved\": false, \"reasons\": [\"leaves a TODO\"]}", "+# TODO", false, []string{"leaves a TODO"}},
		{"rejected without a reason", `{"approved": false}`, "+add", true, []string{"the reviewer rejected the change without giving a reason"}},
		{"unreadable", "looks fine to me", "", false, []string{`the review could not be read (no JSON object in the answer); answer again`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			model := &scripted{} // the run's own model: never asked
			auditor := &scripted{structured: tc.structured, replies: []reply{{text: tc.answer}}}
			w, evs := openRun(t, model, wsSettings(gitRepo(t), 2))
			rejected, err := w.audit(ctx, 1, auditor, tc.diff, "  Fixed add.  ")
			if err != nil || !slices.Equal(rejected, tc.want) {
				t.Fatalf("rejected %q, %v; want %q", rejected, err, tc.want)
			}
			if len(model.requests) != 0 || w.r.model != Model(model) {
				t.Errorf("the run's model was used or replaced")
			}
			req := auditor.requests[0]
			wantDiff := tc.diff
			if wantDiff == "" {
				wantDiff = "(no diff available)"
			}
			for _, want := range []string{"Fix add in calc.sh", "POSIX sh only", "```diff\n" + wantDiff + "\n```", "# The author's summary\nFixed add."} {
				if !strings.Contains(req.Messages[0].Content, want) {
					t.Errorf("the auditor's prompt lacks %q:\n%s", want, req.Messages[0].Content)
				}
			}
			if req.Mode != provider.ModeScript || (req.Schema != nil) != tc.structured {
				t.Errorf("mode %q, schema %v", req.Mode, req.Schema)
			}
			if w.r.usage.InputTokens != 10 {
				t.Errorf("the auditor's tokens are not the run's: %+v", w.r.usage)
			}
			au := payloads[event.AuditPayload](t, *evs, event.Audited)
			if len(au) != 1 || au[0].Approved != (tc.want == nil) {
				t.Errorf("audited = %+v", au)
			}
		})
	}
	t.Run("the auditor's error ends the step", func(t *testing.T) {
		w, _ := openRun(t, &scripted{}, wsSettings(gitRepo(t), 2))
		if _, err := w.audit(ctx, 1, &scripted{}, "+add", ""); err == nil || !strings.HasPrefix(err.Error(), "auditor: ") {
			t.Errorf("err = %v", err)
		}
	})
}

// check audits only a change that passed validation.
func TestWorkspaceStepCheck(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name      string
		fix       bool
		problem   string
		audits    int
		validated int
	}{
		{"failing validation is not audited", false, "", 0, 1},
		{"passing validation is audited", true, "", 1, 1},
		{"an unusable answer is neither validated nor audited", true, "too many rounds", 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := gitRepo(t)
			set := wsSettings(dir, 2)
			auditor := &scripted{replies: []reply{{text: `{"approved": false, "reasons": ["no"]}`}}}
			set.Workspace.Auditor = auditor
			w, evs := openRun(t, &toolModel{}, set)
			if tc.fix {
				if err := fixAdd(dir); err != nil {
					t.Fatal(err)
				}
			}
			a := attempt{answer: "done", problem: tc.problem}
			if err := w.check(ctx, 1, &a); err != nil {
				t.Fatal(err)
			}
			if len(auditor.requests) != tc.audits || len(payloads[event.ValidatePayload](t, *evs, event.Validated)) != tc.validated {
				t.Errorf("audits %d, validations %+v", len(auditor.requests), a.failures)
			}
			if tc.fix && !strings.Contains(w.diff, "+add() { echo $(( $1 + $2 )); }") {
				t.Errorf("diff = %q", w.diff)
			}
			if a.passed() {
				t.Errorf("%+v passed", a)
			}
		})
	}
}

func TestWorkspaceStepCommit(t *testing.T) {
	ctx := context.Background()
	t.Run("on the feature branch", func(t *testing.T) {
		dir := gitRepo(t)
		w, evs := openRun(t, &toolModel{}, wsSettings(dir, 3))
		if err := fixAdd(dir); err != nil {
			t.Fatal(err)
		}
		if err := w.commit(ctx, 2, "Fixed add."); err != nil {
			t.Fatal(err)
		}
		head := git(t, dir, "rev-parse", "HEAD")
		msg := git(t, dir, "log", "-1", "--format=%B")
		for _, want := range []string{"loopforge: Fix add in calc.sh", "Fixed add.", "Validated by:\n  sh test.sh", "Iterations: 2"} {
			if !strings.Contains(msg, want) {
				t.Errorf("commit message lacks %q:\n%s", want, msg)
			}
		}
		if w.meta.Commit != head {
			t.Errorf("metadata commit %q, HEAD %s", w.meta.Commit, head)
		}
		g := payloads[event.GitPayload](t, *evs, event.Git)
		if last := g[len(g)-1]; last.Action != "commit" || last.Commit != head || last.Branch != "loopforge/fix-add" {
			t.Errorf("git event = %+v", last)
		}
		// Nothing left to commit: a warning, no error.
		if err := w.commit(ctx, 3, "again"); err != nil || w.meta.Commit != head {
			t.Errorf("an empty commit: %v, metadata commit %q", err, w.meta.Commit)
		}
		if logs := payloads[event.LogPayload](t, *evs, event.Log); len(logs) != 1 || !strings.Contains(logs[0].Message, "nothing changed") {
			t.Errorf("logs = %+v", logs)
		}
	})
	t.Run("refused off the branch", func(t *testing.T) {
		dir := gitRepo(t)
		w, _ := openRun(t, &toolModel{}, wsSettings(dir, 2))
		git(t, dir, "switch", "-q", "main")
		var be *gitops.BranchMovedError
		if err := w.commit(ctx, 1, "x"); !errors.As(err, &be) {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("refused after git was touched", func(t *testing.T) {
		dir := gitRepo(t)
		w, _ := openRun(t, &toolModel{}, wsSettings(dir, 2))
		if err := os.WriteFile(filepath.Join(dir, ".git", "hooks", "pre-commit"), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		var te *gitops.TamperError
		if err := w.commit(ctx, 1, "x"); !errors.As(err, &te) {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("nothing without git", func(t *testing.T) {
		dir := gitRepo(t)
		set := wsSettings(dir, 2)
		set.Workspace.Git = false
		w, evs := openRun(t, &toolModel{}, set)
		if err := fixAdd(dir); err != nil {
			t.Fatal(err)
		}
		if err := w.commit(ctx, 1, "x"); err != nil || len(*evs) != 0 || git(t, dir, "rev-list", "--count", "HEAD") != "1" {
			t.Errorf("err %v, events %d", err, len(*evs))
		}
	})
}

// The run metadata file holds the typed RunMeta: the caller's labels, and
// what the run did, under the names it always had.
func TestWorkspaceRunMetadata(t *testing.T) {
	for _, tc := range []struct {
		name  string
		dirty bool
		keys  []string
	}{
		{"success", false, []string{"session_id", "provider", "model", "auditor", "task", "max_iterations", "branch",
			"started_at", "finished_at", "status", "iterations", "commit", "input_tokens", "output_tokens"}},
		{"refused", true, []string{"session_id", "provider", "model", "auditor", "task", "max_iterations",
			"started_at", "finished_at", "status", "iterations", "error", "input_tokens", "output_tokens"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := gitRepo(t)
			if tc.dirty {
				if err := os.WriteFile(filepath.Join(dir, "notes.md"), []byte("mine\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			set := wsSettings(dir, 2)
			set.Workspace.Labels = RunLabels{SessionID: "s-1", Provider: "codex", Model: "gpt-x", Auditor: "judge"}
			set.Workspace.Auditor = &scripted{replies: []reply{{text: `{"approved": true, "reasons": []}`}}}
			m := &cliModel{name: "codex", edits: []func(string) error{fixAdd}}
			evs, emit := collect()
			out := Run(context.Background(), m, nil, emit, set, Input{Prompt: "Fix add"})
			var path string
			for _, g := range payloads[event.GitPayload](t, *evs, event.Git) {
				if g.Action == "metadata" {
					path = g.Path
				}
			}
			b, err := os.ReadFile(filepath.Join(dir, path))
			if err != nil {
				t.Fatalf("%s: %v (run: %s, %v)", path, err, out.Status, out.Err)
			}
			var raw map[string]json.RawMessage
			var meta RunMeta
			if err := json.Unmarshal(b, &raw); err != nil || json.Unmarshal(b, &meta) != nil {
				t.Fatalf("%s: %v", b, err)
			}
			keys := slices.Sorted(func(yield func(string) bool) {
				for k := range raw {
					if !yield(k) {
						return
					}
				}
			})
			if want := slices.Sorted(slices.Values(tc.keys)); !slices.Equal(keys, want) {
				t.Errorf("keys %v, want %v", keys, want)
			}
			if meta.Status != out.Status || meta.Iterations != out.Iterations || meta.SessionID != "s-1" || meta.Task.Validate[0] != "sh test.sh" ||
				meta.FinishedAt.Before(meta.StartedAt) || meta.InputTokens != out.Usage.InputTokens {
				t.Errorf("metadata %+v, outcome %+v", meta, out)
			}
			if !tc.dirty && meta.Commit != git(t, dir, "rev-parse", "HEAD") {
				t.Errorf("commit %q", meta.Commit)
			}
		})
	}
}

// A run stopped by its context is written down as cancelled, as Run reports
// it, not as the error the interrupted step saw.
func TestWorkspaceRunMetadataCancelled(t *testing.T) {
	dir := gitRepo(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	m := &cliModel{name: "codex", edits: []func(string) error{func(string) error {
		cancel()
		return context.Canceled // what a CLI killed by the cancel reports
	}}}
	evs, emit := collect()
	out := Run(ctx, m, nil, emit, wsSettings(dir, 2), Input{Prompt: "Fix add"})
	if out.Status != event.RunStatusCancelled {
		t.Fatalf("outcome %s: %v", out.Status, out.Err)
	}
	var path string
	for _, g := range payloads[event.GitPayload](t, *evs, event.Git) {
		if g.Action == "metadata" {
			path = g.Path
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, path))
	if err != nil {
		t.Fatalf("metadata %q: %v", path, err)
	}
	var meta RunMeta
	if err := json.Unmarshal(b, &meta); err != nil || meta.Status != event.RunStatusCancelled {
		t.Fatalf("metadata status %q (%v): %s", meta.Status, err, b)
	}
}
