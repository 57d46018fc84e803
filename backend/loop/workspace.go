package loop

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/loopforge/loopforge/backend/event"
	"github.com/loopforge/loopforge/backend/gitops"
	"github.com/loopforge/loopforge/backend/provider"
	"github.com/loopforge/loopforge/backend/runreq"
	"github.com/loopforge/loopforge/backend/sandbox"
	"github.com/loopforge/loopforge/backend/workspace"
)

// WorkspaceSettings configure workspace mode (Settings.Mode ModeWorkspace):
// the model edits files in Settings.Workdir — a coding CLI with its own
// tools, an API model through the workspace tools — then the validation
// commands run there, the auditor (if any) reviews the diff, and on success
// the change is committed to a feature branch. Reflection is not used: the
// fix prompt carries the validation log and the audit report instead.
type WorkspaceSettings struct {
	Task Task
	// Runner runs validation commands, run_command and user tools. Default:
	// SandboxCommands over the loop's Executor with CommandLimits (the
	// project folder writable, network as Settings.AllowNetwork), or
	// workspace.ExecRunner{} when Run was given no Executor.
	Runner workspace.CommandRunner
	// CommandLimits bound one command in the sandbox (zero fields take the
	// sandbox's defaults; a test suite usually needs a longer Timeout).
	CommandLimits sandbox.Limits
	// Tools offered to models with Capabilities.Tools, beyond the built-in
	// file tools.
	Tools []workspace.CommandTool
	// Auditor, when set, reviews each change that passed validation.
	Auditor Model
	// Git: refuse a dirty workdir, work on loopforge/<Branch>, commit on
	// success. Off, the files are edited in place and nothing is committed.
	Git bool
	// Branch is the slug of the feature branch (the session's title or id).
	Branch string
	// ReuseBranch checks out loopforge/<Branch> if it exists (a follow-up
	// run of the same session) instead of making a suffixed one.
	ReuseBranch bool
	// MaxToolRounds bounds the tool calls of one generation (default 30).
	MaxToolRounds int
	// Labels are written into the run metadata (see RunMeta).
	Labels RunLabels
}

// Task is a workspace task: instructions, input artifacts (files read into
// the prompt, folders shown as a tree), constraints and validation commands;
// declared with the run request it comes in.
type Task = runreq.Task

// RunMeta is the record of one workspace run, written as JSON to
// .loopforge/runs/<start time>.json in the workdir (git-ignored: it is for
// the user; nothing reads it back). What the run did not reach is left out.
type RunMeta struct {
	RunLabels
	Task          Task            `json:"task"`
	MaxIterations int             `json:"max_iterations"`
	Branch        string          `json:"branch,omitempty"`
	StartedAt     time.Time       `json:"started_at"`
	FinishedAt    time.Time       `json:"finished_at"`
	Status        event.RunStatus `json:"status"`
	Iterations    int             `json:"iterations"`
	Commit        string          `json:"commit,omitempty"`
	Error         string          `json:"error,omitempty"`
	InputTokens   int             `json:"input_tokens"`
	OutputTokens  int             `json:"output_tokens"`
}

// RunLabels are what the caller knows of a workspace run and the loop does
// not.
type RunLabels struct {
	SessionID string `json:"session_id,omitempty"`
	Provider  string `json:"provider"`
	Model     string `json:"model"`
	Auditor   string `json:"auditor,omitempty"` // the auditor's profile
	// Commands is CommandsUnsandboxed when the commands ran outside the
	// sandbox.
	Commands string `json:"commands,omitempty"`
	// Worktree is a comparison's own git worktree, made from Repository.
	Worktree   string `json:"worktree,omitempty"`
	Repository string `json:"repository,omitempty"`
}

// CommandsUnsandboxed is RunLabels.Commands for commands run without the
// sandbox (`workspace: {sandbox: false}`).
const CommandsUnsandboxed = "unsandboxed"

// maxDiffBytes bounds the diff kept of an attempt (and shown to the auditor).
const maxDiffBytes = 200 << 10

// wsRun is one workspace-mode run. Each attempt goes through the steps of
// wsstep.go — generate, validate, audit, commit — until one passes or the
// iteration limit is reached; the run's state lives here, between them.
type wsRun struct {
	r         *runner // events, model calls and the token count, as in the script loop
	set       *WorkspaceSettings
	task      Task
	commands  workspace.CommandRunner
	ws        *workspace.Workspace
	tools     *workspace.Registry // nil: the model edits the files itself (a coding CLI)
	maxRounds int
	system    string
	sessions  bool   // the model resumes its own conversation …
	session   string // … this one
	msgs      []provider.Message
	diff      string // the change so far (the last diff git could give)

	// With WorkspaceSettings.Git (repo nil without): the feature branch, and
	// the guard that refuses git after anything changed its control files.
	// Its windows span the model's and the validation commands' turns only;
	// a nil guard guards nothing.
	repo   *gitops.Repo
	guard  *gitops.Guard
	branch string

	meta RunMeta
}

// runWorkspace is the workspace-mode counterpart of run; msgs ends with the
// user's prompt, which is replaced by the implement prompt built from it.
func (r *runner) runWorkspace(ctx context.Context, msgs []provider.Message) (out Outcome) {
	w, err := openWorkspaceRun(r, msgs)
	if err != nil {
		return Outcome{Status: event.RunStatusError, Err: fmt.Errorf("%w: %w", ErrInvalidSettings, err)}
	}
	// The metadata file says what Run will report: settled, so a cancelled
	// run is not written down as an error.
	defer func() { w.finish(settled(ctx, out)) }()
	if err := w.prepare(ctx); err != nil {
		return Outcome{Status: event.RunStatusError, Err: err}
	}
	return w.iterate(ctx)
}

// openWorkspaceRun opens the workdir and fills in the defaults.
func openWorkspaceRun(r *runner, msgs []provider.Message) (*wsRun, error) {
	set := r.set.Workspace
	if set == nil {
		set = &WorkspaceSettings{}
	}
	task := set.Task
	if strings.TrimSpace(task.Instructions) == "" {
		task.Instructions = r.prompt
	}
	started := time.Now().UTC()
	ws, err := workspace.Open(r.set.Workdir)
	if err != nil {
		return nil, err
	}
	w := &wsRun{r: r, set: set, task: task, commands: r.commandRunner(set), ws: ws, maxRounds: set.MaxToolRounds,
		sessions: r.model.Capabilities().Sessions, msgs: msgs}
	if w.maxRounds <= 0 {
		w.maxRounds = 30
	}
	w.meta = RunMeta{RunLabels: set.Labels, Task: task, MaxIterations: r.set.MaxIterations, StartedAt: started}
	return w, nil
}

// commandRunner is what runs the commands (see WorkspaceSettings.Runner).
func (r *runner) commandRunner(set *WorkspaceSettings) workspace.CommandRunner {
	switch {
	case set.Runner != nil:
		return set.Runner
	case r.exec != nil:
		return NewSandboxCommands(r.exec, set.CommandLimits, r.set.AllowNetwork,
			func(n event.ExecNote) {
				kv := []string{"note", n.Code}
				for k, v := range n.Params {
					kv = append(kv, k, v)
				}
				_ = r.send(event.Log, event.NewLog("warn", "sandbox: "+sandbox.English(n), event.NoticeSandbox, kv...))
			})
	default:
		return workspace.ExecRunner{Timeout: set.CommandLimits.Timeout}
	}
}

// prepare puts the implement prompt in place of the user's (refusing an
// input outside the workdir before anything changes), starts the feature
// branch and offers the tools.
func (w *wsRun) prepare(ctx context.Context) error {
	implement, err := implementPrompt(w.ws, w.task)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrInvalidSettings, err)
	}
	if w.set.Git {
		if err := w.startBranch(ctx); err != nil {
			return err
		}
	}
	if err := w.offerTools(); err != nil {
		return err
	}
	w.system = wsSystemPrompt.render(wsSystemData{Tools: w.tools != nil, Validate: w.task.Validate})
	w.msgs[len(w.msgs)-1].Content = implement // it embeds the user's prompt
	return nil
}

// startBranch refuses a dirty workdir, checks out the feature branch and
// starts guarding git's control files.
func (w *wsRun) startBranch(ctx context.Context) error {
	repo, err := gitops.Open(ctx, w.ws.Root())
	if err != nil {
		return err
	}
	if err := repo.RequireClean(ctx); err != nil {
		return err
	}
	if w.branch, err = repo.StartBranch(ctx, w.set.Branch, w.set.ReuseBranch); err != nil {
		return fmt.Errorf("creating the feature branch: %w", err)
	}
	w.meta.Branch = w.branch
	if w.guard, err = repo.Guard(ctx); err != nil {
		return err
	}
	w.repo = repo
	return w.r.send(event.Git, event.GitPayload{Action: "branch", Branch: w.branch})
}

// offerTools makes the workspace tools for a model that calls tools (a
// coding CLI has its own).
func (w *wsRun) offerTools() error {
	if !w.r.model.Capabilities().Tools {
		return nil
	}
	w.tools = workspace.NewRegistry(w.ws, w.commands)
	for _, t := range w.set.Tools {
		if err := w.tools.RegisterCommand(t); err != nil {
			return fmt.Errorf("%w: %w", ErrInvalidSettings, err)
		}
	}
	return nil
}

// iterate runs attempts until one passes and is committed, or the
// iteration limit is reached.
func (w *wsRun) iterate(ctx context.Context) Outcome {
	for it := 1; ; it++ {
		if err := w.r.send(event.IterationStarted, event.IterationPayload{Iteration: it}); err != nil {
			return w.failed(it, err)
		}
		a, err := w.generate(ctx, it)
		if err == nil {
			err = w.check(ctx, it, &a)
		}
		if err != nil {
			return w.failed(it, err)
		}
		if a.passed() {
			return w.succeed(ctx, it, a.answer)
		}
		if err := w.retry(it, a); err != nil {
			return w.failed(it, err)
		}
		if it >= w.r.set.MaxIterations {
			return w.giveUp(it)
		}
	}
}

// check runs the validation commands on a usable answer, takes the diff,
// and has the auditor (if any) review a change that passed.
func (w *wsRun) check(ctx context.Context, it int, a *attempt) (err error) {
	if a.problem == "" {
		if a.failures, err = w.validate(ctx, it); err != nil {
			return err
		}
	}
	if err := w.takeDiff(ctx); err != nil {
		return err
	}
	if a.passed() && w.set.Auditor != nil {
		a.rejected, err = w.audit(ctx, it, w.set.Auditor, w.diff, a.answer)
	}
	return err
}

// takeDiff records the change against the branch's start; when git cannot
// give it, the last one stands.
func (w *wsRun) takeDiff(ctx context.Context) error {
	if w.repo == nil {
		return nil
	}
	if err := w.guard.Check(); err != nil { // nothing may change between the windows either
		return err
	}
	if d, err := w.repo.Diff(ctx, maxDiffBytes); err == nil {
		w.diff = d
	}
	return nil
}

// succeed reports a passing attempt and commits it.
func (w *wsRun) succeed(ctx context.Context, it int, answer string) Outcome {
	summary := "validation passed"
	if len(w.task.Validate) == 0 {
		summary = "done (no validation commands)"
	}
	if err := w.r.send(event.IterationDone, event.IterationDonePayload{Iteration: it, Status: event.IterationStatusSuccess, Summary: summary}); err != nil {
		return w.failed(it, err)
	}
	if err := w.commit(ctx, it, answer); err != nil {
		return w.failed(it, err)
	}
	return w.outcome(it, event.RunStatusSuccess, nil)
}

// retry reports a failed attempt and asks for a fix. The request joins the
// thread even at the limit, so a follow-up knows how the last attempt failed.
func (w *wsRun) retry(it int, a attempt) error {
	if err := w.r.send(event.IterationDone, event.IterationDonePayload{Iteration: it, Status: event.IterationStatusError, Summary: failureSummary(a)}); err != nil {
		return err
	}
	w.msgs = append(w.msgs, provider.Message{Role: provider.RoleUser, Content: fixPrompt(it, a)})
	return nil
}

// giveUp ends a run at its iteration limit, leaving the last attempt's
// changes in the workdir.
func (w *wsRun) giveUp(it int) Outcome {
	if w.repo != nil {
		_ = w.r.send(event.Git, event.GitPayload{Action: "uncommitted", Branch: w.branch,
			Message: "no commit: the last attempt's changes are left in the workdir for inspection"})
	}
	return w.outcome(it, event.RunStatusLimitReached, nil)
}

func (w *wsRun) failed(it int, err error) Outcome { return w.outcome(it, event.RunStatusError, err) }

// outcome is the run as it stands after iteration it.
func (w *wsRun) outcome(it int, status event.RunStatus, err error) Outcome {
	return Outcome{Status: status, Iterations: it, FinalCode: w.diff, Messages: w.msgs, Err: err}
}

// finish writes the run metadata and closes the workspace.
func (w *wsRun) finish(out Outcome) {
	defer w.ws.Close()
	m := &w.meta
	m.Status, m.Iterations, m.FinishedAt = out.Status, out.Iterations, time.Now().UTC()
	m.InputTokens, m.OutputTokens = w.r.usage.InputTokens, w.r.usage.OutputTokens
	if out.Err != nil {
		m.Error = out.Err.Error()
	}
	if p, err := w.ws.WriteRunMeta(m.StartedAt, m); err == nil {
		_ = w.r.send(event.Git, event.GitPayload{Action: "metadata", Path: p})
	} else {
		_ = w.r.send(event.Log, event.NewLog("warn", "could not write the run metadata: "+err.Error(), event.NoticeMetadataFailed, "detail", err.Error()))
	}
}

// modelActor names the model for a *gitops.TamperError: "the model
// (provider codex)" when it has a name (a provider.Provider does).
func modelActor(m Model) string {
	if n, ok := m.(interface{ Name() string }); ok && n.Name() != "" {
		return fmt.Sprintf("the model (provider %s)", n.Name())
	}
	return "the model"
}

// ErrorKind classifies a run's error for the UI (event.RunFinishedPayload's
// ErrorKind): event.ErrorWorkspaceGuard when loopforge stopped to protect
// the repository, "" otherwise.
func ErrorKind(err error) string {
	var te *gitops.TamperError
	var be *gitops.BranchMovedError
	if errors.As(err, &te) || errors.As(err, &be) {
		return event.ErrorWorkspaceGuard
	}
	return ""
}
