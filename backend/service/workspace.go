package service

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/loopforge/loopforge/backend/config"
	"github.com/loopforge/loopforge/backend/gitops"
	"github.com/loopforge/loopforge/backend/loop"
	"github.com/loopforge/loopforge/backend/provider"
	"github.com/loopforge/loopforge/backend/store"
)

const modeWorkspace = "workspace"

// cliKinds edit the workdir with their own tools; other kinds need
// Capabilities.Tools to edit files through the workspace tools.
var cliKinds = map[string]bool{config.KindCodex: true, config.KindClaude: true, config.KindGemini: true}

// prepareWorkspace validates a workspace-mode request before anything is
// recorded: a usable git work tree without uncommitted changes, a provider
// able to edit files, and the auditor's profile.
func (s *Service) prepareWorkspace(ctx context.Context, req RunRequest, prof provider.Profile, model provider.Provider, set *loop.Settings) error {
	switch req.Mode {
	case "", "script":
		if req.Task != nil || len(req.Validate) > 0 || req.Auditor != "" {
			return fmt.Errorf("%w: a task, validation commands and an auditor need --mode workspace", ErrInvalidRequest)
		}
		return nil
	case modeWorkspace:
	default:
		return fmt.Errorf("%w: unknown mode %q (script or workspace)", ErrInvalidRequest, req.Mode)
	}
	dir := req.Workdir
	if dir == "" {
		dir = s.Workdir()
	}
	if dir == "" {
		return fmt.Errorf("%w: workspace mode needs a workdir", ErrInvalidRequest)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return fmt.Errorf("%w: workdir %s: %w", ErrInvalidRequest, dir, err)
	}
	if !model.Capabilities().Tools && !cliKinds[prof.Kind] {
		return fmt.Errorf("%w: provider %q (kind %s) cannot edit files: it has neither its own file tools (a coding CLI) nor tool calling", ErrInvalidRequest, prof.Name, prof.Kind)
	}
	repo, err := gitops.Open(ctx, abs)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrInvalidRequest, err)
	}
	if !repo.HasCommits(ctx) {
		return fmt.Errorf("%w: the repository in %s has no commit yet; commit once so loopforge can branch from it", ErrInvalidRequest, repo.Dir)
	}
	if err := repo.RequireClean(ctx); err != nil {
		var de *gitops.DirtyError
		if errors.As(err, &de) {
			return fmt.Errorf("%w: %w", ErrInvalidRequest, err)
		}
		return err
	}
	ws := &loop.WorkspaceSettings{Git: true, ReuseBranch: true, Tools: s.cfg.Tools,
		Meta: map[string]any{"provider": prof.Name, "model": prof.Model}}
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
		ws.Auditor = am
		ws.Meta["auditor"] = ap.Name
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
	id := sess.ID
	if len(id) > 8 {
		id = id[:8]
	}
	ws.Branch = gitops.Slug(sess.Title) + "-" + gitops.Slug(id)
	ws.Meta = map[string]any{"session_id": sess.ID}
	for k, v := range set.Workspace.Meta {
		ws.Meta[k] = v
	}
	set.Workspace = &ws
	return set
}

func runMode(set loop.Settings) string {
	if set.Mode == provider.ModeWorkspace {
		return modeWorkspace
	}
	return "script"
}

// validateOf lists a workspace run's validation commands (nil in script mode).
func validateOf(set loop.Settings) []string {
	if set.Workspace == nil {
		return nil
	}
	return set.Workspace.Task.Validate
}
