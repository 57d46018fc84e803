package loop

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/loopforge/loopforge/backend/event"
	"github.com/loopforge/loopforge/backend/gitops"
	"github.com/loopforge/loopforge/backend/provider"
	"github.com/loopforge/loopforge/backend/sandbox"
	"github.com/loopforge/loopforge/backend/workspace"
)

// WorkspaceSettings configure workspace mode (Settings.Mode ModeWorkspace):
// the model edits files in Settings.Workdir — a coding CLI with its own
// tools, an API model through the workspace tools — then the validation
// commands run there, the auditor (if any) reviews the diff, and on success
// the change is committed to a feature branch. Reflection is not used: the
// fix prompt carries the validation log and the audit report instead
// (seeds/002 _build_prompt).
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
	// Meta is merged into the run metadata written to .loopforge/runs.
	Meta map[string]any
}

// Task is a workspace task (seeds/004): instructions, input artifacts (files
// read into the prompt, folders shown as a tree), constraints and validation
// commands. The YAML form is what `loopforge run --task FILE` reads.
type Task struct {
	Instructions string   `yaml:"instructions" json:"instructions"`
	Inputs       []string `yaml:"inputs" json:"inputs,omitempty"`
	Constraints  []string `yaml:"constraints" json:"constraints,omitempty"`
	Validate     []string `yaml:"validate" json:"validate,omitempty"`
}

// Tail sizes of validation output quoted to the model.
const (
	validateStderr = 6000
	validateStdout = 4000
	maxInputBytes  = 64 << 10
	maxDiffBytes   = 200 << 10
)

type validation struct {
	Command  string
	ExitCode int
	TimedOut bool
	Stdout   string
	Stderr   string
}

// runWorkspace is the workspace-mode counterpart of run; msgs ends with the
// user's prompt, which is replaced by the implement prompt built from it.
func (r *runner) runWorkspace(ctx context.Context, msgs []provider.Message) (out Outcome) {
	wset := r.set.Workspace
	if wset == nil {
		wset = &WorkspaceSettings{}
	}
	task := wset.Task
	if strings.TrimSpace(task.Instructions) == "" {
		task.Instructions = r.prompt
	}
	runner := wset.Runner
	switch {
	case runner != nil:
	case r.exec != nil:
		runner = NewSandboxCommands(r.exec, wset.CommandLimits, r.set.AllowNetwork,
			func(w string) { _ = r.send(event.Log, event.LogPayload{Level: "warn", Message: "sandbox: " + w}) })
	default:
		runner = workspace.ExecRunner{Timeout: wset.CommandLimits.Timeout}
	}
	maxRounds := wset.MaxToolRounds
	if maxRounds <= 0 {
		maxRounds = 30
	}
	started := time.Now()
	meta := map[string]any{"started_at": started.UTC(), "task": task, "max_iterations": r.set.MaxIterations}
	for k, v := range wset.Meta {
		meta[k] = v
	}

	ws, err := workspace.Open(r.set.Workdir)
	if err != nil {
		return Outcome{Status: event.RunStatusError, Err: fmt.Errorf("%w: %w", ErrInvalidSettings, err)}
	}
	defer ws.Close()
	defer func() {
		meta["status"], meta["iterations"], meta["finished_at"] = out.Status, out.Iterations, time.Now().UTC()
		meta["input_tokens"], meta["output_tokens"] = r.usage.InputTokens, r.usage.OutputTokens
		if out.Err != nil {
			meta["error"] = out.Err.Error()
		}
		if p, err := ws.WriteRunMeta(started, meta); err == nil {
			_ = r.send(event.Git, event.GitPayload{Action: "metadata", Path: p})
		} else {
			_ = r.send(event.Log, event.LogPayload{Level: "warn", Message: "could not write the run metadata: " + err.Error()})
		}
	}()

	implement, err := implementPrompt(ws, task)
	if err != nil {
		return Outcome{Status: event.RunStatusError, Err: fmt.Errorf("%w: %w", ErrInvalidSettings, err)}
	}

	var repo *gitops.Repo
	// git is never run on a repository whose control files changed; the
	// guard's windows span the model's and the validation commands' turns
	// only (nil without git: it guards nothing).
	var guard *gitops.Guard
	var branch string // the feature branch
	if wset.Git {
		if repo, err = gitops.Open(ctx, ws.Root()); err != nil {
			return Outcome{Status: event.RunStatusError, Err: err}
		}
		if err := repo.RequireClean(ctx); err != nil {
			return Outcome{Status: event.RunStatusError, Err: err}
		}
		if branch, err = repo.StartBranch(ctx, wset.Branch, wset.ReuseBranch); err != nil {
			return Outcome{Status: event.RunStatusError, Err: fmt.Errorf("creating the feature branch: %w", err)}
		}
		meta["branch"] = branch
		if guard, err = repo.Guard(ctx); err != nil {
			return Outcome{Status: event.RunStatusError, Err: err}
		}
		if err := r.send(event.Git, event.GitPayload{Action: "branch", Branch: branch}); err != nil {
			return Outcome{Status: event.RunStatusError, Err: err}
		}
	}

	var tools *workspace.Registry
	if r.model.Capabilities().Tools {
		tools = workspace.NewRegistry(ws, runner)
		for _, t := range wset.Tools {
			if err := tools.RegisterCommand(t); err != nil {
				return Outcome{Status: event.RunStatusError, Err: fmt.Errorf("%w: %w", ErrInvalidSettings, err)}
			}
		}
	}
	system := render("ws_system.tmpl", map[string]any{"Tools": tools != nil, "Validate": task.Validate})

	// The user's prompt is replaced by the implement prompt, which embeds it.
	msgs[len(msgs)-1].Content = implement
	var (
		session  string
		sessions = r.model.Capabilities().Sessions
		diff     string
	)
	for it := 1; ; it++ {
		out = Outcome{Iterations: it, FinalCode: diff, Messages: msgs}
		if err := r.send(event.IterationStarted, event.IterationPayload{Iteration: it}); err != nil {
			return fail(out, err)
		}

		// generate (with tool rounds for API models)
		req := provider.Request{System: system, Messages: msgs, Workdir: ws.Root(), Mode: provider.ModeWorkspace}
		if sessions {
			req.SessionID = session
		}
		if err := guard.Begin(modelActor(r.model)); err != nil {
			return fail(out, err)
		}
		start := time.Now()
		resp, problem, err := r.generateWithTools(ctx, it, req, tools, maxRounds)
		if gerr := guard.Check(); gerr != nil {
			return fail(out, gerr) // a refusal matters more than how the call ended
		}
		if err != nil {
			return fail(out, err)
		}
		msgs = append(msgs, provider.Message{Role: provider.RoleAssistant, Content: resp.Content})
		out.Messages = msgs
		if sessions && resp.SessionID != "" {
			session = resp.SessionID
		}
		gen := event.GeneratedPayload{Iteration: it, Content: resp.Content, FormatError: problem,
			InputTokens: resp.Usage.InputTokens, OutputTokens: resp.Usage.OutputTokens, DurationMS: time.Since(start).Milliseconds()}
		if err := r.send(event.Generated, gen); err != nil {
			return fail(out, err)
		}

		// validate
		var failures []validation
		if problem == "" {
			for _, c := range task.Validate {
				if err := guard.Begin(fmt.Sprintf("validation command `%s`", c)); err != nil {
					return fail(out, err)
				}
				res, err := runner.RunCommand(ctx, ws.Root(), c, nil)
				if gerr := guard.Check(); gerr != nil {
					return fail(out, gerr)
				}
				if ctx.Err() != nil {
					return fail(out, ctx.Err())
				}
				if err != nil {
					res = workspace.CommandResult{Command: c, ExitCode: -1, Stderr: err.Error()}
				}
				if err := r.send(event.Validated, event.ValidatePayload{Iteration: it, Command: c, ExitCode: res.ExitCode,
					Passed: res.OK(), TimedOut: res.TimedOut, Stdout: res.Stdout, Stderr: res.Stderr,
					Truncated: res.Truncated, DurationMS: res.Duration.Milliseconds()}); err != nil {
					return fail(out, err)
				}
				if !res.OK() {
					failures = append(failures, validation{Command: c, ExitCode: res.ExitCode, TimedOut: res.TimedOut,
						Stdout: tail(res.Stdout, validateStdout), Stderr: tail(res.Stderr, validateStderr)})
				}
			}
		}
		if repo != nil {
			if err := guard.Check(); err != nil { // nothing may change between the windows either
				return fail(out, err)
			}
			if d, err := repo.Diff(ctx, maxDiffBytes); err == nil {
				diff = d
				out.FinalCode = d
			}
		}

		// audit (only a change that passed validation is worth reviewing)
		var rejected []string
		if problem == "" && len(failures) == 0 && wset.Auditor != nil {
			approved, reasons, err := r.audit(ctx, it, wset.Auditor, task, diff, resp.Content)
			if err != nil {
				return fail(out, err)
			}
			if !approved {
				rejected = reasons
				if len(rejected) == 0 {
					rejected = []string{"the reviewer rejected the change without giving a reason"}
				}
			}
		}

		// decide
		if problem == "" && len(failures) == 0 && len(rejected) == 0 {
			summary := "validation passed"
			if len(task.Validate) == 0 {
				summary = "done (no validation commands)"
			}
			if err := r.send(event.IterationDone, event.IterationDonePayload{Iteration: it, Status: "success", Summary: summary}); err != nil {
				return fail(out, err)
			}
			if repo != nil {
				msg := commitMessage(task, resp.Content, it)
				if err := guard.Check(); err != nil {
					return fail(out, err)
				}
				if err := repo.RequireBranch(ctx, branch); err != nil {
					return fail(out, err)
				}
				hash, err := repo.Commit(ctx, msg)
				switch {
				case errors.Is(err, gitops.ErrNothingToCommit):
					_ = r.send(event.Log, event.LogPayload{Level: "warn", Message: "validation passed but nothing changed: no commit"})
				case err != nil:
					return fail(out, fmt.Errorf("committing the result: %w", err))
				default:
					meta["commit"] = hash
					if err := r.send(event.Git, event.GitPayload{Action: "commit", Commit: hash, Message: msg, Branch: branch}); err != nil {
						return fail(out, err)
					}
				}
			}
			out.Status = event.RunStatusSuccess
			return out
		}
		if err := r.send(event.IterationDone, event.IterationDonePayload{Iteration: it, Status: "error",
			Summary: failureSummary(problem, failures, rejected)}); err != nil {
			return fail(out, err)
		}
		msgs = append(msgs, provider.Message{Role: provider.RoleUser, Content: render("ws_fix.tmpl", map[string]any{
			"Attempt": it, "Failures": failures, "Audit": rejected, "Problem": problem,
		})})
		out.Messages = msgs
		if it >= r.set.MaxIterations {
			out.Status = event.RunStatusLimitReached
			if repo != nil {
				_ = r.send(event.Git, event.GitPayload{Action: "uncommitted", Branch: branch,
					Message: "no commit: the last attempt's changes are left in the workdir for inspection"})
			}
			return out
		}
	}
}

// generateWithTools calls the model and, while it asks for tools, runs them
// and calls again. The tool exchange stays in a private copy of the thread:
// only the final answer joins the stored history. problem is set when the
// model kept calling tools past maxRounds.
func (r *runner) generateWithTools(ctx context.Context, it int, req provider.Request, tools *workspace.Registry, maxRounds int) (*provider.Response, string, error) {
	if tools != nil {
		for _, t := range tools.Tools() {
			req.Tools = append(req.Tools, provider.ToolSpec{Name: t.Name, Description: t.Description, Parameters: t.Parameters})
		}
		req.Messages = append([]provider.Message(nil), req.Messages...)
	}
	var total provider.Usage
	var content strings.Builder
	for round := 0; ; round++ {
		resp, err := r.call(ctx, it, event.PhaseGenerate, req)
		if err != nil {
			return nil, "", err
		}
		total.InputTokens += resp.Usage.InputTokens
		total.OutputTokens += resp.Usage.OutputTokens
		if resp.Content != "" {
			if content.Len() > 0 {
				content.WriteString("\n")
			}
			content.WriteString(resp.Content)
		}
		if tools == nil || len(resp.ToolCalls) == 0 {
			final := *resp
			final.Content, final.Usage = content.String(), total
			return &final, "", nil
		}
		if round >= maxRounds {
			final := *resp
			final.Content, final.Usage = content.String(), total
			return &final, fmt.Sprintf("the model was still calling tools after %d rounds; finish with fewer, larger steps", maxRounds), nil
		}
		req.Messages = append(req.Messages, provider.Message{Role: provider.RoleAssistant, Content: resp.Content, ToolCalls: resp.ToolCalls})
		for _, tc := range resp.ToolCalls {
			start := time.Now()
			output, ok := tools.Call(ctx, tc.Name, tc.Input)
			if err := r.send(event.ToolCalled, event.ToolCallPayload{Iteration: it, ID: tc.ID, Name: tc.Name, Input: string(tc.Input),
				Output: output, OK: ok, DurationMS: time.Since(start).Milliseconds()}); err != nil {
				return nil, "", err
			}
			req.Messages = append(req.Messages, provider.Message{Role: provider.RoleTool, ToolCallID: tc.ID, Content: output})
		}
		if ctx.Err() != nil {
			return nil, "", ctx.Err()
		}
	}
}

// auditVerdict is the auditor's JSON answer.
type auditVerdict struct {
	Approved *bool    `json:"approved"`
	Reasons  []string `json:"reasons"`
}

var auditSchema = map[string]any{
	"type": "object",
	"properties": map[string]any{
		"approved": map[string]any{"type": "boolean"},
		"reasons":  map[string]any{"type": "array", "items": map[string]any{"type": "string"}},
	},
	"required":             []string{"approved", "reasons"},
	"additionalProperties": false,
}

func (r *runner) audit(ctx context.Context, it int, auditor Model, task Task, diff, summary string) (bool, []string, error) {
	if strings.TrimSpace(diff) == "" {
		diff = "(no diff available)"
	}
	req := provider.Request{
		Workdir: r.set.Workdir, Mode: provider.ModeScript, // the auditor only reads
		System: render("audit_system.tmpl", nil),
		Messages: []provider.Message{{Role: provider.RoleUser, Content: render("audit_user.tmpl", map[string]any{
			"Instructions": task.Instructions, "Constraints": task.Constraints, "Diff": diff, "Summary": strings.TrimSpace(summary),
		})}},
	}
	if auditor.Capabilities().StructuredOutput {
		req.Schema = &provider.Schema{Name: "verdict", Description: "approve or reject the change", JSON: auditSchema}
	}
	// The auditor's tokens are the run's cost too, so it goes through call
	// with its own model.
	saved := r.model
	r.model = auditor
	resp, err := r.call(ctx, it, event.PhaseAudit, req)
	r.model = saved
	if err != nil {
		return false, nil, fmt.Errorf("auditor: %w", err)
	}
	v, perr := parseVerdict(resp.Content)
	if perr != nil {
		v = auditVerdict{Approved: new(bool), Reasons: []string{"the review could not be read (" + perr.Error() + "); answer again"}}
	}
	if err := r.send(event.Audited, event.AuditPayload{Iteration: it, Approved: *v.Approved, Reasons: v.Reasons}); err != nil {
		return false, nil, err
	}
	return *v.Approved, v.Reasons, nil
}

func parseVerdict(s string) (auditVerdict, error) {
	var v auditVerdict
	i, j := strings.IndexByte(s, '{'), strings.LastIndexByte(s, '}')
	if i < 0 || j < i {
		return v, errors.New("no JSON object in the answer")
	}
	if err := json.Unmarshal([]byte(s[i:j+1]), &v); err != nil {
		return v, err
	}
	if v.Approved == nil {
		return v, errors.New(`the answer has no "approved" field`)
	}
	return v, nil
}

type inputView struct {
	Path    string
	Dir     bool
	Fence   string
	Content string
}

// implementPrompt is the first prompt: the task with its inputs read through
// the workspace (so an input outside the workdir is refused up front).
func implementPrompt(ws *workspace.Workspace, task Task) (string, error) {
	var inputs []inputView
	for _, p := range task.Inputs {
		entries, truncated, err := ws.List(p, true)
		if err != nil {
			return "", fmt.Errorf("input %s: %w", p, err)
		}
		if len(entries) == 1 && !entries[0].Dir && filepath.ToSlash(filepath.Clean(p)) == entries[0].Path {
			b, err := ws.ReadFile(p)
			if err != nil {
				return "", fmt.Errorf("input %s: %w", p, err)
			}
			content := string(b)
			if len(content) > maxInputBytes {
				content = content[:maxInputBytes] + "\n… [cut]"
			}
			inputs = append(inputs, inputView{Path: p, Fence: strings.TrimPrefix(filepath.Ext(p), "."), Content: strings.TrimRight(content, "\n")})
			continue
		}
		tree := strings.TrimRight(workspace.Tree(relativeTo(entries, p)), "\n")
		if truncated {
			tree += "\n…"
		}
		inputs = append(inputs, inputView{Path: p, Dir: true, Content: tree})
	}
	return render("ws_implement.tmpl", map[string]any{
		"Instructions": strings.TrimSpace(task.Instructions), "Constraints": task.Constraints, "Inputs": inputs, "Validate": task.Validate,
	}), nil
}

func relativeTo(entries []workspace.Entry, dir string) []workspace.Entry {
	prefix := filepath.ToSlash(filepath.Clean(dir)) + "/"
	out := make([]workspace.Entry, len(entries))
	for i, e := range entries {
		e.Path = strings.TrimPrefix(e.Path, prefix)
		out[i] = e
	}
	return out
}

func failureSummary(problem string, failures []validation, rejected []string) string {
	var parts []string
	if problem != "" {
		parts = append(parts, problem)
	}
	for _, f := range failures {
		if f.TimedOut {
			parts = append(parts, fmt.Sprintf("`%s` timed out", f.Command))
		} else {
			parts = append(parts, fmt.Sprintf("`%s` exit %d", f.Command, f.ExitCode))
		}
	}
	if len(rejected) > 0 {
		parts = append(parts, "auditor rejected: "+strings.Join(rejected, "; "))
	}
	return strings.Join(parts, "; ")
}

// commitMessage: a subject from the task's first line, then what the model
// said it did and what validated it.
func commitMessage(task Task, summary string, iterations int) string {
	subject := strings.TrimSpace(task.Instructions)
	if i := strings.IndexByte(subject, '\n'); i >= 0 {
		subject = subject[:i]
	}
	if r := []rune(subject); len(r) > 64 {
		subject = string(r[:63]) + "…"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "loopforge: %s\n", subject)
	if s := strings.TrimSpace(summary); s != "" {
		if len(s) > 2000 {
			s = s[:2000] + "…"
		}
		fmt.Fprintf(&b, "\n%s\n", s)
	}
	b.WriteString("\n")
	if len(task.Validate) > 0 {
		b.WriteString("Validated by:\n")
		for _, c := range task.Validate {
			fmt.Fprintf(&b, "  %s\n", c)
		}
	}
	fmt.Fprintf(&b, "Iterations: %d\n", iterations)
	return b.String()
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
