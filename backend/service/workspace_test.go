package service

import (
	"context"
	"encoding/json"
	"errors"
	"iter"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/loopforge/loopforge/backend/config"
	"github.com/loopforge/loopforge/backend/event"
	"github.com/loopforge/loopforge/backend/gitops"
	"github.com/loopforge/loopforge/backend/provider"
)

func testRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"config", "user.email", "t@example.com"}, {"config", "user.name", "T"}, {"commit", "-q", "--allow-empty", "-m", "init"}} {
		if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return dir
}

func TestWorkspaceRunRequests(t *testing.T) {
	ctx := context.Background()
	svc := newService(t, &echoModel{answers: []string{"nothing to do", "nothing to do"}})
	// A provider that can neither call tools nor edit files itself is refused.
	dir := testRepo(t)
	_, err := svc.StartRun(ctx, RunRequest{Prompt: "x", Provider: "fake", Mode: "workspace", Workdir: dir})
	if !errors.Is(err, ErrInvalidRequest) || !strings.Contains(err.Error(), "cannot edit files") {
		t.Fatalf("err = %v", err)
	}
	// A coding-CLI kind may; a dirty workdir is refused before anything is recorded.
	svc.conf().Profiles["editor"] = provider.Profile{Name: "editor", Kind: config.KindClaude}
	svc.reg[config.KindClaude] = func(provider.Profile) (provider.Provider, error) {
		return namedModel{&echoModel{answers: []string{"done"}}}, nil
	}
	if err := os.WriteFile(filepath.Join(dir, "mine.txt"), []byte("wip"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = svc.StartRun(ctx, RunRequest{Prompt: "x", Provider: "editor", Mode: "workspace", Workdir: dir, Validate: []string{"true"}})
	var de *gitops.DirtyError
	if !errors.As(err, &de) || !errors.Is(err, ErrInvalidRequest) {
		t.Fatalf("dirty err = %v", err)
	}
	if list, _ := svc.Sessions(ctx, "", 10); len(list) != 0 {
		t.Fatalf("a session was written: %+v", list)
	}
	os.Remove(filepath.Join(dir, "mine.txt"))
	info, err := svc.StartRun(ctx, RunRequest{Prompt: "Tidy up", Provider: "editor", Mode: "workspace", Workdir: dir, Validate: []string{"true"}})
	if err != nil {
		t.Fatal(err)
	}
	run, err := svc.Wait(ctx, info.RunID)
	if err != nil || run.Status != event.RunStatusSuccess {
		t.Fatalf("run = %+v, %v", run, err)
	}
	if d, err := svc.Session(ctx, info.SessionID); err != nil || d.Mode != "workspace" || d.Kind != event.ModeWorkspace {
		t.Errorf("session: mode %q kind %q, %v; want a workspace session", d.Mode, d.Kind, err)
	}
	out, _ := exec.Command("git", "-C", dir, "branch", "--show-current").Output()
	if !strings.HasPrefix(string(out), "loopforge/tidy-up-") {
		t.Errorf("branch = %q", out)
	}
	if m, _ := filepath.Glob(filepath.Join(dir, ".loopforge/runs/*.json")); len(m) != 1 {
		t.Errorf("metadata files = %v", m)
	}
	// Script mode refuses workspace-only options.
	if _, err := svc.StartRun(ctx, RunRequest{Prompt: "x", Provider: "fake", Validate: []string{"true"}}); !errors.Is(err, ErrInvalidRequest) {
		t.Errorf("script + validate err = %v", err)
	}
}

// editorModel stands in for a coding CLI: each call writes its next content
// into answer.txt in the workdir it was given, as the real CLIs edit files
// with their own tools.
type editorModel struct {
	mu       sync.Mutex
	contents []string
	calls    int
	dirs     []string
}

func (m *editorModel) Name() string                        { return "editor" }
func (m *editorModel) Capabilities() provider.Capabilities { return provider.Capabilities{} }
func (m *editorModel) Stream(ctx context.Context, req provider.Request) iter.Seq2[provider.Delta, error] {
	m.mu.Lock()
	content := m.contents[min(m.calls, len(m.contents)-1)]
	m.calls++
	m.dirs = append(m.dirs, req.Workdir)
	m.mu.Unlock()
	return func(yield func(provider.Delta, error) bool) {
		if err := os.WriteFile(filepath.Join(req.Workdir, "answer.txt"), []byte(content), 0o644); err != nil {
			yield(provider.Delta{}, err)
			return
		}
		yield(provider.Delta{Done: &provider.Response{Content: "wrote answer.txt"}}, nil)
	}
}

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

func TestWorkspaceComparisonUsesOneWorktreePerProvider(t *testing.T) {
	ctx := context.Background()
	svc := newService(t, &echoModel{answers: []string{"x"}})
	models := map[string]*editorModel{
		"alpha": {contents: []string{"alpha\n"}},
		"beta":  {contents: []string{"beta\n"}},
		"gamma": {contents: []string{"wrong\n"}}, // never passes validation
	}
	for name := range models {
		svc.conf().Profiles[name] = provider.Profile{Name: name, Kind: config.KindClaude, Model: name}
	}
	svc.reg[config.KindClaude] = func(p provider.Profile) (provider.Provider, error) { return models[p.Name], nil }
	dir := testRepo(t)
	if err := os.WriteFile(filepath.Join(dir, "answer.txt"), []byte("original\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git(t, dir, "add", "answer.txt")
	git(t, dir, "commit", "-q", "-m", "answer")

	info, err := svc.StartCompare(ctx, CompareRequest{Providers: []string{"alpha", "beta", "gamma"}, RunRequest: RunRequest{
		Prompt: "Write your name", Mode: "workspace", Workdir: dir, MaxIterations: 2,
		Validate: []string{"grep -qv wrong answer.txt"}}})
	if err != nil {
		t.Fatal(err)
	}
	if d, err := svc.Session(ctx, info.SessionID); err != nil || d.Mode != "compare" || d.Kind != event.ModeWorkspace {
		t.Errorf("session: mode %q kind %q, %v; want a workspace comparison", d.Mode, d.Kind, err)
	}
	worktrees := map[string]string{}
	branches := map[string]string{}
	for _, r := range info.Runs {
		run, err := svc.Wait(ctx, r.RunID)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range collect(t, svc, r.RunID, 0) {
			var g event.GitPayload
			if e.Type == event.Git && e.Decode(&g) == nil && g.Action == "worktree" {
				worktrees[r.Provider], branches[r.Provider] = g.Path, g.Branch
			}
		}
		want := map[string]event.RunStatus{"alpha": event.RunStatusSuccess, "beta": event.RunStatusSuccess, "gamma": event.RunStatusLimitReached}[r.Provider]
		if run.Status != want {
			t.Errorf("%s: status %s, want %s (%s)", r.Provider, run.Status, want, run.Error)
		}
	}
	// Every provider was given its own directory, never the user's.
	for name, m := range models {
		wt := worktrees[name]
		if wt == "" || wt == dir || strings.HasPrefix(wt, dir+string(filepath.Separator)) {
			t.Fatalf("%s worked in %q (repository %s)", name, wt, dir)
		}
		for _, d := range m.dirs {
			if d != wt {
				t.Errorf("%s was called in %s, its worktree is %s", name, d, wt)
			}
		}
	}
	// The user's checkout is untouched: same branch, same file, clean.
	if b := git(t, dir, "branch", "--show-current"); b != "main" {
		t.Errorf("the repository moved to branch %s", b)
	}
	if st := git(t, dir, "status", "--porcelain"); st != "" {
		t.Errorf("the repository is dirty:\n%s", st)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "answer.txt")); string(got) != "original\n" {
		t.Errorf("answer.txt in the repository = %q", got)
	}
	// Each success is committed on its own branch with its own content, and
	// its worktree is gone; the failure keeps its worktree and changes.
	for _, name := range []string{"alpha", "beta"} {
		if got := git(t, dir, "show", branches[name]+":answer.txt"); got != name {
			t.Errorf("%s: answer.txt on %s = %q", name, branches[name], got)
		}
		if _, err := os.Stat(worktrees[name]); !os.IsNotExist(err) {
			t.Errorf("%s: worktree %s still exists (%v)", name, worktrees[name], err)
		}
	}
	if got := git(t, dir, "show", branches["gamma"]+":answer.txt"); got != "original" {
		t.Errorf("gamma's branch got a commit: answer.txt = %q", got)
	}
	if got, _ := os.ReadFile(filepath.Join(worktrees["gamma"], "answer.txt")); string(got) != "wrong\n" {
		t.Errorf("gamma's worktree should keep its uncommitted change: %q", got)
	}
	// A provider of the comparison cannot be re-run in its session.
	if _, err := svc.StartRun(ctx, RunRequest{SessionID: info.SessionID, Fresh: true, Provider: "gamma", Prompt: "again",
		Mode: "workspace", Workdir: dir, Validate: []string{"true"}}); !errors.Is(err, ErrInvalidRequest) {
		t.Errorf("re-running a workspace comparison column: %v", err)
	}
	// The successful runs' metadata moved into the repository.
	if m, _ := filepath.Glob(filepath.Join(dir, ".loopforge/runs/*.json")); len(m) != 2 {
		t.Errorf("metadata files in the repository = %v", m)
	}
}

// hookModel stands for a coding CLI that plants a git hook in the workdir.
type hookModel struct{}

func (hookModel) Name() string                        { return "planter" }
func (hookModel) Capabilities() provider.Capabilities { return provider.Capabilities{} }
func (hookModel) Stream(ctx context.Context, req provider.Request) iter.Seq2[provider.Delta, error] {
	return func(yield func(provider.Delta, error) bool) {
		if err := os.WriteFile(filepath.Join(req.Workdir, ".git", "hooks", "pre-commit"), []byte("#!/bin/sh\n"), 0o755); err != nil {
			yield(provider.Delta{}, err)
			return
		}
		yield(provider.Delta{Done: &provider.Response{Content: "done"}}, nil)
	}
}

// A run the guard stopped says so in run_finished, so the UI does not
// present the refusal as the provider's words.
func TestWorkspaceGuardRefusalIsMarkedInRunFinished(t *testing.T) {
	ctx := context.Background()
	svc := newService(t, &echoModel{answers: []string{"x"}})
	svc.conf().Profiles["planter"] = provider.Profile{Name: "planter", Kind: config.KindCodex}
	svc.reg[config.KindCodex] = func(provider.Profile) (provider.Provider, error) { return hookModel{}, nil }
	dir := testRepo(t)
	info, err := svc.StartRun(ctx, RunRequest{Prompt: "x", Provider: "planter", Mode: "workspace", Workdir: dir, Validate: []string{"true"}})
	if err != nil {
		t.Fatal(err)
	}
	run, err := svc.Wait(ctx, info.RunID)
	var te *gitops.TamperError
	if !errors.As(err, &te) || run.Status != "error" {
		t.Fatalf("run = %+v, %v", run, err)
	}
	var fin *event.RunFinishedPayload
	for _, e := range collect(t, svc, info.RunID, 0) {
		if e.Type == event.RunFinished {
			fin = new(event.RunFinishedPayload)
			if err := e.Decode(fin); err != nil {
				t.Fatal(err)
			}
		}
	}
	if fin == nil || fin.ErrorKind != event.ErrorWorkspaceGuard || !strings.Contains(fin.Error, "the model (provider planter)") {
		t.Fatalf("run_finished = %+v", fin)
	}
}

// approver is an auditor that approves every change.
type approver struct{}

func (approver) Name() string                        { return "judge" }
func (approver) Capabilities() provider.Capabilities { return provider.Capabilities{} }
func (approver) Stream(context.Context, provider.Request) iter.Seq2[provider.Delta, error] {
	return func(yield func(provider.Delta, error) bool) {
		yield(provider.Delta{Done: &provider.Response{Content: `{"approved": true, "reasons": []}`}}, nil)
	}
}

// The run metadata in .loopforge/runs names the run as the service knows
// it: session, provider, model, auditor, how commands ran.
func TestWorkspaceRunMetadataNamesTheRun(t *testing.T) {
	ctx := context.Background()
	svc := newService(t, &echoModel{answers: []string{"x"}})
	svc.conf().Workspace.Unsandboxed = true
	svc.conf().Profiles["editor"] = provider.Profile{Name: "editor", Kind: config.KindClaude, Model: "editor-1"}
	svc.reg[config.KindClaude] = func(provider.Profile) (provider.Provider, error) {
		return &editorModel{contents: []string{"done\n"}}, nil
	}
	svc.conf().Profiles["judge"] = provider.Profile{Name: "judge", Kind: "judge"}
	svc.reg["judge"] = func(provider.Profile) (provider.Provider, error) { return approver{}, nil }
	dir := testRepo(t)
	info, err := svc.StartRun(ctx, RunRequest{Prompt: "Write done", Provider: "editor", Auditor: "judge", Mode: "workspace",
		Workdir: dir, Validate: []string{"grep -q done answer.txt"}})
	if err != nil {
		t.Fatal(err)
	}
	if run, err := svc.Wait(ctx, info.RunID); err != nil || run.Status != event.RunStatusSuccess {
		t.Fatalf("run = %+v, %v", run, err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, ".loopforge/runs/*.json"))
	if len(files) != 1 {
		t.Fatalf("metadata files = %v", files)
	}
	b, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	var meta map[string]any
	if err := json.Unmarshal(b, &meta); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"session_id": info.SessionID, "provider": "editor", "model": "editor-1", "auditor": "judge",
		"commands": "unsandboxed", "status": "success", "branch": git(t, dir, "branch", "--show-current"), "commit": git(t, dir, "rev-parse", "HEAD")}
	for k, v := range want {
		if meta[k] != v {
			t.Errorf("%s = %v, want %v", k, meta[k], v)
		}
	}
}
