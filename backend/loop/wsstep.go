package loop

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/loopforge/loopforge/backend/event"
	"github.com/loopforge/loopforge/backend/gitops"
	"github.com/loopforge/loopforge/backend/provider"
	"github.com/loopforge/loopforge/backend/workspace"
)

// The steps of one workspace attempt: generate, validate, audit, commit.
// Each reports what it did as events; wsRun.iterate strings them together.

// Tails of a failed validation command's output quoted to the model.
const (
	validateStderr = 6000
	validateStdout = 4000
)

// generate asks the model for an attempt inside a guard window (running
// its tool calls, for an API model); the answer joins the thread.
func (w *wsRun) generate(ctx context.Context, it int) (attempt, error) {
	req := provider.Request{System: w.system, Messages: w.msgs, Workdir: w.ws.Root(), Mode: provider.ModeWorkspace}
	if w.sessions {
		req.SessionID = w.session
	}
	if err := w.guard.Begin(modelActor(w.r.model)); err != nil {
		return attempt{}, err
	}
	start := time.Now()
	resp, problem, err := w.generateWithTools(ctx, it, req)
	if gerr := w.guard.Check(); gerr != nil {
		return attempt{}, gerr // a refusal matters more than how the call ended
	}
	if err != nil {
		return attempt{}, err
	}
	w.msgs = append(w.msgs, provider.Message{Role: provider.RoleAssistant, Content: resp.Content})
	if w.sessions && resp.SessionID != "" {
		w.session = resp.SessionID
	}
	gen := event.GeneratedPayload{Iteration: it, Content: resp.Content, FormatError: problem,
		InputTokens: resp.Usage.InputTokens, OutputTokens: resp.Usage.OutputTokens, DurationMS: time.Since(start).Milliseconds()}
	return attempt{answer: resp.Content, problem: problem}, w.r.send(event.Generated, gen)
}

// generateWithTools calls the model and, while it asks for tools, runs them
// and calls again. The tool exchange stays in a private copy of the thread:
// only the final answer joins the stored history. problem is set when the
// model kept calling tools past maxRounds.
func (w *wsRun) generateWithTools(ctx context.Context, it int, req provider.Request) (*provider.Response, string, error) {
	if w.tools != nil {
		for _, t := range w.tools.Tools() {
			req.Tools = append(req.Tools, provider.ToolSpec{Name: t.Name, Description: t.Description, Parameters: t.Parameters})
		}
		req.Messages = append([]provider.Message(nil), req.Messages...)
	}
	var answer toolAnswer
	for round := 0; ; round++ {
		resp, err := w.r.call(ctx, it, event.PhaseGenerate, req)
		if err != nil {
			return nil, "", err
		}
		answer.add(resp)
		if w.tools == nil || len(resp.ToolCalls) == 0 {
			return answer.final(resp), "", nil
		}
		if round >= w.maxRounds {
			return answer.final(resp), fmt.Sprintf("the model was still calling tools after %d rounds; finish with fewer, larger steps", w.maxRounds), nil
		}
		req.Messages = append(req.Messages, provider.Message{Role: provider.RoleAssistant, Content: resp.Content, ToolCalls: resp.ToolCalls})
		results, err := w.callTools(ctx, it, resp.ToolCalls)
		if err != nil {
			return nil, "", err
		}
		req.Messages = append(req.Messages, results...)
		if ctx.Err() != nil {
			return nil, "", ctx.Err()
		}
	}
}

// toolAnswer gathers the text and the usage of a generation's rounds.
type toolAnswer struct {
	content strings.Builder
	usage   provider.Usage
}

func (a *toolAnswer) add(resp *provider.Response) {
	a.usage.InputTokens += resp.Usage.InputTokens
	a.usage.OutputTokens += resp.Usage.OutputTokens
	if resp.Content != "" {
		if a.content.Len() > 0 {
			a.content.WriteString("\n")
		}
		a.content.WriteString(resp.Content)
	}
}

// final is the last response with the whole text and usage.
func (a *toolAnswer) final(last *provider.Response) *provider.Response {
	final := *last
	final.Content, final.Usage = a.content.String(), a.usage
	return &final
}

// callTools runs the model's tool calls and returns their results as tool
// messages.
func (w *wsRun) callTools(ctx context.Context, it int, calls []provider.ToolCall) ([]provider.Message, error) {
	var results []provider.Message
	for _, tc := range calls {
		start := time.Now()
		output, ok := w.tools.Call(ctx, tc.Name, tc.Input)
		if err := w.r.send(event.ToolCalled, event.ToolCallPayload{Iteration: it, ID: tc.ID, Name: tc.Name, Input: string(tc.Input),
			Output: output, OK: ok, DurationMS: time.Since(start).Milliseconds()}); err != nil {
			return nil, err
		}
		results = append(results, provider.Message{Role: provider.RoleTool, ToolCallID: tc.ID, Content: output})
	}
	return results, nil
}

// validate runs the task's validation commands and returns those that
// failed.
func (w *wsRun) validate(ctx context.Context, it int) ([]validation, error) {
	var failures []validation
	for _, c := range w.task.Validate {
		res, err := w.runValidation(ctx, c)
		if err != nil {
			return nil, err
		}
		if err := w.r.send(event.Validated, event.ValidatePayload{Iteration: it, Command: c, ExitCode: res.ExitCode,
			Passed: res.OK(), TimedOut: res.TimedOut, Stdout: res.Stdout, Stderr: res.Stderr,
			Truncated: res.Truncated, DurationMS: roundMS(res.Duration)}); err != nil {
			return nil, err
		}
		if !res.OK() {
			failures = append(failures, validation{Command: c, ExitCode: res.ExitCode, TimedOut: res.TimedOut,
				Stdout: tail(res.Stdout, validateStdout), Stderr: tail(res.Stderr, validateStderr)})
		}
	}
	return failures, nil
}

// runValidation runs one validation command inside a guard window; a
// command that cannot be started fails with exit code -1.
func (w *wsRun) runValidation(ctx context.Context, c string) (workspace.CommandResult, error) {
	if err := w.guard.Begin(fmt.Sprintf("validation command `%s`", c)); err != nil {
		return workspace.CommandResult{}, err
	}
	res, err := w.commands.RunCommand(ctx, w.ws.Root(), c, nil)
	if gerr := w.guard.Check(); gerr != nil {
		return res, gerr
	}
	if ctx.Err() != nil {
		return res, ctx.Err()
	}
	if err != nil {
		res = workspace.CommandResult{Command: c, ExitCode: -1, Stderr: err.Error()}
	}
	return res, nil
}

// audit has auditor review diff, a change that passed validation, and
// returns its reasons to reject it (none: approved). The auditor is called
// through the run, so its tokens count as the run's.
func (w *wsRun) audit(ctx context.Context, it int, auditor Model, diff, summary string) ([]string, error) {
	if strings.TrimSpace(diff) == "" {
		diff = "(no diff available)"
	}
	req := provider.Request{
		Workdir: w.r.set.Workdir, Mode: provider.ModeScript, // the auditor only reads
		System: auditSystemPrompt.render(struct{}{}),
		Messages: []provider.Message{{Role: provider.RoleUser, Content: auditUserPrompt.render(auditData{
			Instructions: w.task.Instructions, Constraints: w.task.Constraints, Diff: diff, Summary: strings.TrimSpace(summary),
		})}},
	}
	if auditor.Capabilities().StructuredOutput {
		req.Schema = &provider.Schema{Name: "verdict", Description: "approve or reject the change", JSON: auditSchema}
	}
	resp, err := w.r.callModel(ctx, auditor, it, event.PhaseAudit, req)
	if err != nil {
		return nil, fmt.Errorf("auditor: %w", err)
	}
	v := readVerdict(resp.Content)
	if err := w.r.send(event.Audited, event.AuditPayload{Iteration: it, Approved: *v.Approved, Reasons: v.Reasons}); err != nil {
		return nil, err
	}
	return v.rejection(), nil
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

// rejection is nil for an approval and never empty otherwise.
func (v auditVerdict) rejection() []string {
	switch {
	case *v.Approved:
		return nil
	case len(v.Reasons) == 0:
		return []string{"the reviewer rejected the change without giving a reason"}
	default:
		return v.Reasons
	}
}

// readVerdict reads the auditor's answer; one that cannot be read rejects
// the change, saying why, so the next attempt gets reviewed again.
func readVerdict(s string) auditVerdict {
	v, err := parseVerdict(s)
	if err != nil {
		return auditVerdict{Approved: new(bool), Reasons: []string{"the review could not be read (" + err.Error() + "); answer again"}}
	}
	return v
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

// commit records a passing attempt on the feature branch (without git,
// nothing); the branch and git's control files must be as the run left
// them.
func (w *wsRun) commit(ctx context.Context, it int, answer string) error {
	if w.repo == nil {
		return nil
	}
	msg := commitMessage(w.task, answer, it)
	if err := w.guard.Check(); err != nil {
		return err
	}
	if err := w.repo.RequireBranch(ctx, w.branch); err != nil {
		return err
	}
	hash, err := w.repo.Commit(ctx, msg)
	switch {
	case errors.Is(err, gitops.ErrNothingToCommit):
		_ = w.r.send(event.Log, event.NewLog("warn", "validation passed but nothing changed: no commit", event.NoticeNoChange))
		return nil
	case err != nil:
		return fmt.Errorf("committing the result: %w", err)
	}
	w.meta.Commit = hash
	return w.r.send(event.Git, event.GitPayload{Action: "commit", Commit: hash, Message: msg, Branch: w.branch})
}
