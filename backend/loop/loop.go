// Package loop runs one code-generation loop: generate → execute → decide →
// reflect → generate … until the code runs cleanly or the iteration limit is
// reached (design.md §4).
//
// Run is straight-line code over three seams: a Model that streams answers,
// an Executor that runs code, and an Emitter that records every step. Events
// are emitted in order; Run returns only after the last one was accepted.
// The reflection is kept apart from the message history: it is added to the
// next generation request only, never to the thread that is stored.
package loop

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"strings"
	"time"

	"github.com/loopforge/loopforge/backend/event"
	"github.com/loopforge/loopforge/backend/provider"
	"github.com/loopforge/loopforge/backend/sandbox"
)

// Model is what the loop needs from a provider.
type Model interface {
	Capabilities() provider.Capabilities
	Stream(ctx context.Context, req provider.Request) iter.Seq2[provider.Delta, error]
}

// Executor runs generated code; *sandbox.Runner implements it.
type Executor interface {
	Run(ctx context.Context, req sandbox.Request) (sandbox.Result, error)
}

// Emitter records one event; an error aborts the run (nothing may be lost).
type Emitter func(event.Event) error

// Settings of one run.
type Settings struct {
	MaxIterations int
	Reflect       bool
	Language      string // "python" when empty
	Limits        sandbox.Limits
	// AllowNetwork lets the generated code open internet sockets (the
	// user's opt-in for one run).
	AllowNetwork bool
	// Workdir and Mode are passed to coding CLIs: "" and script mode give
	// each call a private empty directory and no write access.
	Workdir string
	Mode    provider.Mode
	// Workspace configures ModeWorkspace (see WorkspaceSettings); the
	// Executor and Language are then unused.
	Workspace *WorkspaceSettings
}

// Input is the task: a prompt, and for a follow-up the earlier thread.
type Input struct {
	Prompt  string
	History []provider.Message
}

// Outcome is the result of Run.
type Outcome struct {
	Status     event.RunStatus // never event.RunStatusRunning or event.RunStatusInterrupted
	Iterations int
	FinalCode  string // the last code generated (it ran cleanly when Status is success)
	Usage      provider.Usage
	// Messages is the thread after the run: History, the prompt, and every
	// answer and error report of this run (never the reflections).
	Messages []provider.Message
	// Err explains event.RunStatusError (a provider or recording failure) and
	// event.RunStatusCancelled (the context's cause).
	Err error
}

// ErrInvalidSettings reports unusable settings before anything starts.
var ErrInvalidSettings = errors.New("invalid loop settings")

// Tail sizes of execution output quoted to the model.
const (
	feedbackStderr = 4000
	feedbackStdout = 1500
)

type runner struct {
	model      Model
	exec       Executor
	emit       Emitter
	set        Settings
	lang       Language
	structured bool
	prompt     string
	usage      provider.Usage
}

// Run executes the loop. It never panics on bad model output or bad code:
// those become failed iterations. Provider errors end the run with
// event.RunStatusError; a cancelled ctx ends it with event.RunStatusCancelled.
func Run(ctx context.Context, m Model, x Executor, emit Emitter, s Settings, in Input) Outcome {
	lang, err := LookupLanguage(s.Language)
	if err != nil {
		return Outcome{Status: event.RunStatusError, Err: fmt.Errorf("%w: %w", ErrInvalidSettings, err)}
	}
	if s.MaxIterations < 1 {
		return Outcome{Status: event.RunStatusError, Err: fmt.Errorf("%w: the iteration limit must be at least 1 (got %d)", ErrInvalidSettings, s.MaxIterations)}
	}
	if strings.TrimSpace(in.Prompt) == "" {
		return Outcome{Status: event.RunStatusError, Err: fmt.Errorf("%w: the prompt is empty", ErrInvalidSettings)}
	}
	r := &runner{model: m, exec: x, emit: emit, set: s, lang: lang, prompt: in.Prompt,
		structured: m.Capabilities().StructuredOutput}
	msgs := append(append([]provider.Message(nil), in.History...), provider.Message{Role: provider.RoleUser, Content: in.Prompt})
	var out Outcome
	if s.Mode == provider.ModeWorkspace {
		out = r.runWorkspace(ctx, msgs)
	} else {
		out = r.run(ctx, msgs)
	}
	out.Usage = r.usage
	if out.Err != nil && ctx.Err() != nil {
		out.Status, out.Err = event.RunStatusCancelled, context.Cause(ctx)
	}
	return out
}

func (r *runner) run(ctx context.Context, msgs []provider.Message) Outcome {
	var (
		code       string
		reflection string // for the next generation only
		// session is the coding CLI's own conversation, resumed by each
		// generation after the first so the CLI keeps its context; only
		// the newest message is then sent.
		session  string
		sessions = r.model.Capabilities().Sessions
	)
	for it := 1; ; it++ {
		out := Outcome{Iterations: it, FinalCode: code, Messages: msgs}
		if err := r.send(event.IterationStarted, event.IterationPayload{Iteration: it}); err != nil {
			return fail(out, err)
		}

		// generate
		req := provider.Request{System: render("generate_system.tmpl", r.promptData()), Messages: msgs,
			Workdir: r.set.Workdir, Mode: r.set.Mode}
		if sessions {
			req.SessionID = session
		}
		if reflection != "" {
			req.Messages = withReflection(msgs, reflection)
		}
		if r.structured {
			req.Schema = &provider.Schema{Name: "program", Description: "a complete program", JSON: answerSchema}
		}
		start := time.Now()
		resp, err := r.call(ctx, it, event.PhaseGenerate, req)
		if err != nil {
			return fail(out, err)
		}
		msgs = append(msgs, provider.Message{Role: provider.RoleAssistant, Content: resp.Content})
		out.Messages = msgs
		if sessions && resp.SessionID != "" {
			session = resp.SessionID
		}
		newCode, formatErr := extractCode(resp.Content, r.lang, r.structured)
		gen := event.GeneratedPayload{Iteration: it, Content: resp.Content, Code: newCode, Language: r.lang.Fence,
			InputTokens: resp.Usage.InputTokens, OutputTokens: resp.Usage.OutputTokens, DurationMS: time.Since(start).Milliseconds()}
		if formatErr != nil {
			gen.FormatError = formatErr.Error()
		}
		if err := r.send(event.Generated, gen); err != nil {
			return fail(out, err)
		}

		if formatErr != nil {
			// Unusable output: say exactly what was wrong and ask again. There
			// is nothing to reflect on, so reflection is skipped.
			summary := "unusable answer: " + strings.TrimPrefix(formatErr.Error(), errNoCode.Error()+": ")
			if err := r.send(event.IterationDone, event.IterationDonePayload{Iteration: it, Status: "error", Summary: summary}); err != nil {
				return fail(out, err)
			}
			msgs = append(msgs, provider.Message{Role: provider.RoleUser, Content: render("format_error.tmpl", r.formatData(formatErr))})
			out.Messages = msgs
			if it >= r.set.MaxIterations {
				out.Status = event.RunStatusLimitReached
				return out
			}
			reflection = ""
			continue
		}
		code = newCode
		out.FinalCode = code

		// execute
		if err := r.send(event.ExecStarted, event.IterationPayload{Iteration: it}); err != nil {
			return fail(out, err)
		}
		res, err := r.exec.Run(ctx, sandbox.Request{Language: r.lang.Sandbox, Code: code, Limits: r.set.Limits, AllowNetwork: r.set.AllowNetwork})
		if err != nil {
			return fail(out, fmt.Errorf("running the generated code: %w", err))
		}
		if ctx.Err() != nil {
			return fail(out, ctx.Err())
		}
		if err := r.send(event.ExecFinished, execPayload(it, res)); err != nil {
			return fail(out, err)
		}

		// decide
		if res.Status == sandbox.StatusOK {
			if err := r.send(event.IterationDone, event.IterationDonePayload{Iteration: it, Status: "success", Summary: "ran cleanly"}); err != nil {
				return fail(out, err)
			}
			out.Status = event.RunStatusSuccess
			return out
		}
		if err := r.send(event.IterationDone, event.IterationDonePayload{Iteration: it, Status: "error", Summary: res.Description()}); err != nil {
			return fail(out, err)
		}
		// The report joins the thread even at the limit, so a follow-up
		// prompt on this session knows how the last attempt failed.
		msgs = append(msgs, provider.Message{Role: provider.RoleUser, Content: render("exec_failed.tmpl", feedbackData(res))})
		out.Messages = msgs
		if it >= r.set.MaxIterations {
			out.Status = event.RunStatusLimitReached
			return out
		}

		// reflect
		reflection = ""
		if r.set.Reflect {
			reflection, err = r.reflect(ctx, it, code, res)
			if err != nil {
				return fail(out, err)
			}
		}
	}
}

// call streams one provider request, emitting every text delta as a token
// and every notice (a retry) as a warning when it arrives.
func (r *runner) call(ctx context.Context, it int, phase event.Phase, req provider.Request) (*provider.Response, error) {
	var final *provider.Response
	for d, err := range r.model.Stream(ctx, req) {
		if err != nil {
			return nil, err
		}
		if d.Notice != "" {
			if err := r.send(event.Log, event.LogPayload{Level: "warn", Message: d.Notice}); err != nil {
				return nil, err
			}
		}
		if d.Text != "" {
			if err := r.send(event.Token, event.TokenPayload{Iteration: it, Phase: phase, Text: d.Text}); err != nil {
				return nil, err
			}
		}
		if d.Done != nil {
			final = d.Done
		}
	}
	if final == nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, &provider.Error{Kind: provider.KindProtocol, Message: "the answer stream ended without a final message"}
	}
	for _, w := range final.Warnings {
		if err := r.send(event.Log, event.LogPayload{Level: "warn", Message: w}); err != nil {
			return nil, err
		}
	}
	r.usage.InputTokens += final.Usage.InputTokens
	r.usage.OutputTokens += final.Usage.OutputTokens
	r.usage.CostUSD += final.Usage.CostUSD
	return final, nil
}

// reflect asks the model why the code failed. The answer is plain text; an
// empty one is allowed and means "continue with the history only".
func (r *runner) reflect(ctx context.Context, it int, code string, res sandbox.Result) (string, error) {
	d := feedbackData(res)
	req := provider.Request{
		Workdir: r.set.Workdir, Mode: provider.ModeScript, // reflecting never needs to edit anything
		System: render("reflect_system.tmpl", r.promptData()),
		Messages: []provider.Message{{Role: provider.RoleUser, Content: render("reflect_user.tmpl", map[string]any{
			"Prompt": r.prompt, "Fence": r.lang.Fence, "Code": strings.TrimRight(code, "\n"),
			"Description": d["Description"], "Stderr": d["Stderr"],
		})}},
	}
	resp, err := r.call(ctx, it, event.PhaseReflect, req)
	if err != nil {
		return "", err
	}
	text := strings.TrimSpace(resp.Content)
	if err := r.send(event.Reflection, event.ReflectionPayload{Iteration: it, Text: text}); err != nil {
		return "", err
	}
	if text == "" {
		if err := r.send(event.Log, event.LogPayload{Level: "warn", Message: "the reflection was empty; retrying with the error report only"}); err != nil {
			return "", err
		}
	}
	return text, nil
}

func (r *runner) send(kind event.Kind, payload any) error {
	if err := r.emit(event.New(kind, payload)); err != nil {
		return fmt.Errorf("recording %s: %w", kind, err)
	}
	return nil
}

func (r *runner) promptData() map[string]any {
	return map[string]any{"Language": r.lang.Name, "Fence": r.lang.Fence, "Structured": r.structured}
}

func (r *runner) formatData(err error) map[string]any {
	d := r.promptData()
	d["Problem"] = strings.TrimPrefix(err.Error(), errNoCode.Error()+": ")
	return d
}

// withReflection returns a copy of msgs whose last (user) message carries the
// reflection, leaving the stored thread untouched.
func withReflection(msgs []provider.Message, reflection string) []provider.Message {
	out := append([]provider.Message(nil), msgs...)
	last := &out[len(out)-1]
	last.Content = render("with_reflection.tmpl", map[string]any{"Feedback": last.Content, "Reflection": reflection})
	return out
}

func feedbackData(res sandbox.Result) map[string]any {
	return map[string]any{
		"Description": res.Description(),
		"ExitCode":    res.ExitCode,
		"Stderr":      tail(res.Stderr, feedbackStderr),
		"Stdout":      tail(res.Stdout, feedbackStdout),
	}
}

func execPayload(it int, res sandbox.Result) event.ExecPayload {
	return event.ExecPayload{
		Iteration: it, Status: string(res.Status), ExitCode: res.ExitCode, Signal: res.Signal,
		Stdout: res.Stdout, Stderr: res.Stderr, Truncated: res.Truncated,
		DurationMS: res.Duration.Milliseconds(), Isolation: res.Isolation, Description: res.Description(),
		Warnings: res.Warnings,
		Protections: map[string]bool{
			"files": res.Protections.Files, "network": res.Protections.Network, "processes": res.Protections.Processes,
			"memory": res.Protections.Memory, "signals": res.Protections.Signals,
		},
	}
}

func fail(out Outcome, err error) Outcome {
	out.Status, out.Err = event.RunStatusError, err
	return out
}
