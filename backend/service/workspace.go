package service

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/loopforge/loopforge/backend/config"
	"github.com/loopforge/loopforge/backend/event"
	"github.com/loopforge/loopforge/backend/gitops"
	"github.com/loopforge/loopforge/backend/loop"
	"github.com/loopforge/loopforge/backend/provider"
	"github.com/loopforge/loopforge/backend/store"
	"github.com/loopforge/loopforge/backend/workspace"
)

// cliKinds edit the workdir with their own tools; other kinds need
// Capabilities.Tools to edit files through the workspace tools.
var cliKinds = map[string]bool{config.KindCodex: true, config.KindClaude: true, config.KindGemini: true}

// prepareWorkspace validates a workspace-mode request (settings checked its
// mode) before anything is recorded: a usable git work tree without
// uncommitted changes, a provider able to edit files, and the auditor's
// profile.
func (s *Service) prepareWorkspace(ctx context.Context, req RunRequest, prof provider.Profile, model provider.Provider, set *loop.Settings) error {
	if req.Mode != event.ModeWorkspace {
		return nil
	}
	dir := req.Workdir
	if dir == "" {
		dir = s.Workdir()
	}
	if dir == "" {
		return invalid(CodeWorkspaceNoDir, nil, "workspace mode needs a workdir")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return fmt.Errorf("%w: workdir %s: %w", ErrInvalidRequest, dir, err)
	}
	if !model.Capabilities().Tools && !cliKinds[prof.Kind] {
		return invalid(CodeWorkspaceNoEdit, map[string]string{"provider": prof.Name, "kind": prof.Kind},
			"provider %q (kind %s) cannot edit files: it has neither its own file tools (a coding CLI) nor tool calling", prof.Name, prof.Kind)
	}
	repo, err := gitops.Open(ctx, abs)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrInvalidRequest, err)
	}
	if !repo.HasCommits(ctx) {
		return invalid(CodeWorkspaceNoCommit, map[string]string{"dir": repo.Dir}, "the repository in %s has no commit yet; commit once so loopforge can branch from it", repo.Dir)
	}
	if err := repo.RequireClean(ctx); err != nil {
		var de *gitops.DirtyError
		if errors.As(err, &de) {
			return fmt.Errorf("%w: %w", ErrInvalidRequest, err)
		}
		return err
	}
	cfg := s.conf()
	ws := &loop.WorkspaceSettings{Git: true, ReuseBranch: true, Tools: cfg.Tools,
		Labels: loop.RunLabels{Provider: prof.Name, Model: prof.Model}}
	ws.CommandLimits = cfg.Limits
	ws.CommandLimits.Timeout = cfg.Workspace.CommandTimeout
	if cfg.Workspace.Unsandboxed {
		ws.Runner = workspace.ExecRunner{Timeout: cfg.Workspace.CommandTimeout}
		ws.Labels.Commands = loop.CommandsUnsandboxed
	} else if _, err := s.executor(); err != nil {
		return fmt.Errorf("cannot run the validation commands in the sandbox: %w (or set `workspace: {sandbox: false}` in loopforge.yml to run them unsandboxed)", err)
	}
	if req.Task != nil {
		ws.Task = *req.Task
		ws.Task.Validate = append([]string(nil), req.Task.Validate...)
	}
	if strings.TrimSpace(ws.Task.Instructions) == "" {
		ws.Task.Instructions = req.Prompt
	}
	for _, v := range req.Validate {
		if strings.TrimSpace(v) != "" {
			ws.Task.Validate = append(ws.Task.Validate, v)
		}
	}
	if req.Auditor != "" {
		ap, err := s.Profile(req.Auditor, "", "")
		if err != nil {
			return fmt.Errorf("auditor: %w", err)
		}
		am, err := s.reg.New(ap)
		if err != nil {
			return fmt.Errorf("auditor: %w", err)
		}
		ws.Auditor = s.watch(ap, am)
		ws.Labels.Auditor = ap.Name
	}
	set.Mode, set.Workdir, set.Workspace = provider.ModeWorkspace, repo.Dir, ws
	return nil
}

// withBranch names the feature branch after the session: its title's slug
// plus the id's start, so a follow-up run of the session reuses its branch
// and another session never does.
func withBranch(set loop.Settings, sess *store.Session) loop.Settings {
	if set.Workspace == nil {
		return set
	}
	ws := *set.Workspace
	if ws.Branch == "" { // a comparison's worktree already has its branch
		ws.Branch = gitops.Slug(sess.Title) + "-" + gitops.Slug(shortID(sess.ID))
	}
	ws.Labels.SessionID = sess.ID
	set.Workspace = &ws
	return set
}

// runMode is the mode of a run with these settings.
func runMode(set loop.Settings) event.Mode {
	if set.Mode == provider.ModeWorkspace {
		return event.ModeWorkspace
	}
	return event.ModeScript
}

// validateOf lists a workspace run's validation commands (nil in script mode).
func validateOf(set loop.Settings) []string {
	if set.Workspace == nil {
		return nil
	}
	return set.Workspace.Task.Validate
}

func shortID(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}

// worktree is one comparison provider's own git worktree, so providers
// never edit the same files.
type worktree struct {
	main   *gitops.Repo // the user's repository
	path   string
	branch string // full name, loopforge/...
}

// addWorktree makes a worktree for one provider of a comparison under the
// data dir (not inside the project, where test runners would find it), on
// a new branch loopforge/<title>-<id>-<provider> made from HEAD, and points
// set at it.
func (s *Service) addWorktree(ctx context.Context, sess *store.Session, providerName string, set *loop.Settings) (*worktree, error) {
	main, err := gitops.Open(ctx, set.Workdir)
	if err != nil {
		return nil, err
	}
	title := gitops.Slug(sess.Title)
	if len(title) > 20 {
		title = strings.TrimRight(title[:20], "-")
	}
	slug := gitops.Slug(title + "-" + shortID(sess.ID) + "-" + providerName)
	if len(slug) > 36 { // room for a suffix within Slug's 40 characters
		slug = strings.TrimRight(slug[:36], "-")
	}
	name := slug
	for i := 2; ; i++ {
		exists, err := main.BranchExists(ctx, gitops.BranchPrefix+name)
		if err != nil {
			return nil, err
		}
		if !exists {
			break
		}
		name = fmt.Sprintf("%s-%d", slug, i)
	}
	dir := filepath.Join(s.conf().DataDir, "worktrees", gitops.Slug(shortID(sess.ID)+"-"+providerName))
	if err := os.MkdirAll(filepath.Dir(dir), 0o700); err != nil {
		return nil, fmt.Errorf("creating the worktrees folder: %w", err)
	}
	wt, err := main.AddWorktree(ctx, dir, gitops.BranchPrefix+name)
	if err != nil {
		return nil, fmt.Errorf("creating a git worktree for %s: %w", providerName, err)
	}
	ws := *set.Workspace
	ws.Branch, ws.ReuseBranch = name, true
	ws.Labels.Worktree, ws.Labels.Repository = wt.Dir, main.Dir
	set.Workspace, set.Workdir = &ws, wt.Dir
	return &worktree{main: main, path: wt.Dir, branch: gitops.BranchPrefix + name}, nil
}

// finish removes a successful run's worktree (its branch holds the
// commit; its run metadata moves to the repository's .loopforge/runs) and
// keeps a failed one for inspection. It reports what it did, as a notice.
func (w *worktree) finish(ctx context.Context, success bool) event.LogPayload {
	if !success {
		return event.NewLog("info", fmt.Sprintf("the worktree %s (branch %s) is kept for inspection; remove it with: git worktree remove --force %s", w.path, w.branch, w.path),
			event.NoticeWorktreeKept, "path", w.path, "branch", w.branch)
	}
	if err := copyRunMeta(w.path, w.main.Dir); err != nil {
		return event.NewLog("info", fmt.Sprintf("the worktree %s is kept: its run metadata could not be copied: %v", w.path, err),
			event.NoticeWorktreeMetaFailed, "path", w.path, "detail", err.Error())
	}
	if err := w.main.RemoveWorktree(ctx, w.path); err != nil {
		return event.NewLog("info", fmt.Sprintf("the worktree %s could not be removed: %v", w.path, err),
			event.NoticeWorktreeRemoveFailed, "path", w.path, "detail", err.Error())
	}
	return event.NewLog("info", fmt.Sprintf("the result is committed on branch %s; its worktree %s was removed", w.branch, w.path),
		event.NoticeWorktreeRemoved, "branch", w.branch, "path", w.path)
}

func copyRunMeta(from, to string) error {
	src, err := workspace.Open(from)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := workspace.Open(to)
	if err != nil {
		return err
	}
	defer dst.Close()
	return dst.CopyRunMeta(src)
}

// discard removes a worktree and its branch when the comparison could not
// start; nil-safe.
func (w *worktree) discard(ctx context.Context) {
	if w == nil {
		return
	}
	_ = w.main.RemoveWorktree(ctx, w.path)
	_, _ = w.main.Git(ctx, "branch", "-D", w.branch)
}
