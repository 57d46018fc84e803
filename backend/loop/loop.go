// Package loop runs one code-generation loop: generate → execute → decide →
// reflect → generate … until the code runs cleanly or the iteration limit is
// reached.
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
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/loopforge/loopforge/backend/event"
	"github.com/loopforge/loopforge/backend/judge"
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

// Preparer is an Executor that can set up an execution before its code
// exists (*sandbox.Runner: namespaces, cgroup and the interpreter started,
// waiting for the program). The loop prepares the next execution when a
// generation begins and hands the code over once it is extracted; an
// Executor without it runs every execution cold.
type Preparer interface {
	Prepare(ctx context.Context, req sandbox.Request) (sandbox.Prepared, error)
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
	// Stdin is given to the generated code's standard input (script mode);
	// "" = none (it reads EOF).
	Stdin string
	// Tests judge each iteration's program (script mode): success is every
	// test passing instead of a clean exit. Each test is one more
	// execution after the program's own. nil or empty: no tests.
	Tests *judge.Suite
	// Workdir and Mode are passed to coding CLIs: "" and script mode give
	// each call a private empty directory and no write access.
	Workdir string
	Mode    provider.Mode
	// Workspace configures ModeWorkspace (see WorkspaceSettings); the
	// Executor and Language are then unused.
	Workspace *WorkspaceSettings
	// Images keeps the pictures each execution leaves (script mode); nil
	// runs the code without collecting any.
	Images ImageStore
	// Log receives what only developers need (a sandbox prepared ahead
	// that could not be used); nil is slog.Default().
	Log *slog.Logger
}

// ImageStore keeps the pictures of one execution of the run; the loop
// saves them before it announces the execution, so a client can fetch
// them as soon as it hears of them.
type ImageStore interface {
	SaveImages(ctx context.Context, iteration int, imgs []sandbox.Image) error
}

// Input is the task: a prompt, and for a follow-up the earlier thread.
type Input struct {
	Prompt  string
	History []provider.Message
	// Resume: History is a run's own thread, cut short (its answer broke
	// off, say), to go on with from its last message: Prompt is the task
	// the thread is about (for the reflection) and is not added to it.
	Resume bool
	// Reflection, with Resume, is the reflection the interrupted request
	// carried, added to the first request as the run would have.
	Reflection string
}

// Outcome is the result of Run.
type Outcome struct {
	Status     event.RunStatus // never event.RunStatusRunning or event.RunStatusInterrupted
	Iterations int
	FinalCode  string // the last code generated (it ran cleanly when Status is success)
	// Usage counts every token the providers reported, those of calls that
	// failed midway included (provider.PartialOf).
	Usage provider.Usage
	// Model is the model the run's last answer came from when the provider
	// answered from a fallback model instead of the one asked for
	// (provider.Response.FallbackFrom); "" when the model asked for did.
	Model string
	// Messages is the thread after the run: History, the prompt, and every
	// answer and error report of this run (never the reflections).
	Messages []provider.Message
	// Err explains event.RunStatusError (a provider or recording failure) and
	// event.RunStatusCancelled (the context's cause).
	Err error
	// Tests are the results of the last program the tests judged (nil:
	// the run has no tests, or no program was judged).
	Tests *event.TestsPayload
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
	fallback   string // Outcome.Model
	reflection string // for the first generation (Input.Reflection)
	// next is the sandbox being prepared for the next execution (script
	// mode with a Preparer), nil when none is.
	next *preparing
}

// preparing is a Prepare call under way in its own goroutine: the model's
// request does not wait for it.
type preparing struct {
	done chan struct{} // closed when p and err are set
	p    sandbox.Prepared
	err  error
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
	if in.Resume {
		r.reflection = in.Reflection
	}
	msgs := append([]provider.Message(nil), in.History...)
	if !in.Resume || len(msgs) == 0 || msgs[len(msgs)-1].Role != provider.RoleUser {
		msgs = append(msgs, provider.Message{Role: provider.RoleUser, Content: in.Prompt})
	}
	var out Outcome
	if s.Mode == provider.ModeWorkspace {
		out = r.runWorkspace(ctx, msgs)
	} else {
		out = r.run(ctx, msgs)
	}
	out.Usage, out.Model = r.usage, r.fallback
	return settled(ctx, out)
}

// settled is out as the caller reports it: a run that failed because ctx
// ended was cancelled, whatever step noticed it.
func settled(ctx context.Context, out Outcome) Outcome {
	if out.Err != nil && ctx.Err() != nil {
		out.Status, out.Err = event.RunStatusCancelled, context.Cause(ctx)
	}
	return out
}

// scriptThread is what one script-mode iteration hands the next.
type scriptThread struct {
	msgs       []provider.Message
	code       string // the newest usable program
	reflection string // for the next generation only
	// session is the coding CLI's own conversation, resumed by each
	// generation after the first so the CLI keeps its context; only the
	// newest message is then sent.
	session  string
	sessions bool
}

// run is the script-mode loop: generate, execute, judge and, on failure,
// reflect, until the program passes or the iteration limit is reached.
func (r *runner) run(ctx context.Context, msgs []provider.Message) Outcome {
	defer r.discardPrepared()
	th := &scriptThread{msgs: msgs, reflection: r.reflection, sessions: r.model.Capabilities().Sessions}
	for it := 1; ; it++ {
		if out, done := r.iteration(ctx, it, th); done {
			return out
		}
	}
}

// iteration runs iteration it; done says the run ends with out.
func (r *runner) iteration(ctx context.Context, it int, th *scriptThread) (out Outcome, done bool) {
	out = Outcome{Iterations: it, FinalCode: th.code, Messages: th.msgs}
	if err := r.send(event.IterationStarted, event.IterationPayload{Iteration: it}); err != nil {
		return fail(out, err), true
	}
	code, formatErr, err := r.generate(ctx, it, th)
	out.Messages = th.msgs
	if err != nil {
		return fail(out, err), true
	}
	if formatErr != nil {
		return r.unusable(it, th, out, formatErr)
	}
	th.code, out.FinalCode = code, code
	v, err := r.executeAndJudge(ctx, it, code)
	out.Tests = v.tests
	if err != nil {
		return fail(out, err), true
	}
	return r.decide(ctx, it, th, out, v)
}

// generate asks the model for the program (and, meanwhile, sets up the
// sandbox it will run in). formatErr says the answer held no usable
// program; err, that the call or its event failed.
func (r *runner) generate(ctx context.Context, it int, th *scriptThread) (code string, formatErr, err error) {
	r.prepareNext(ctx)
	req := provider.Request{System: generateSystemPrompt.render(r.promptData()), Messages: th.msgs,
		Workdir: r.set.Workdir, Mode: r.set.Mode}
	if th.sessions {
		req.SessionID = th.session
	}
	if th.reflection != "" {
		req.Messages = withReflection(th.msgs, th.reflection)
	}
	if r.structured {
		req.Schema = &provider.Schema{Name: "program", Description: "a complete program", JSON: answerSchema}
	}
	start := time.Now()
	resp, err := r.call(ctx, it, event.PhaseGenerate, req)
	if err != nil {
		return "", nil, err
	}
	th.msgs = append(th.msgs, provider.Message{Role: provider.RoleAssistant, Content: resp.Content})
	if th.sessions && resp.SessionID != "" {
		th.session = resp.SessionID
	}
	code, formatErr = extractCode(resp.Content, r.lang, r.structured)
	gen := event.GeneratedPayload{Iteration: it, Content: resp.Content, Code: code, Language: r.lang.Fence, Model: resp.Model,
		InputTokens: resp.Usage.InputTokens, OutputTokens: resp.Usage.OutputTokens, DurationMS: time.Since(start).Milliseconds()}
	if fe, ok := errors.AsType[*FormatError](formatErr); ok {
		gen.FormatError, gen.FormatCode, gen.FormatParams = fe.Error(), fe.Code, fe.Params
	}
	if err := r.send(event.Generated, gen); err != nil {
		return "", nil, err
	}
	return code, formatErr, nil
}

// unusable ends an iteration whose answer held no usable program: it says
// exactly what was wrong and asks again. There is nothing to reflect on,
// so reflection is skipped.
func (r *runner) unusable(it int, th *scriptThread, out Outcome, formatErr error) (Outcome, bool) {
	summary := "unusable answer: " + problemOf(formatErr)
	if err := r.send(event.IterationDone, event.IterationDonePayload{Iteration: it, Status: event.IterationStatusError, Summary: summary}); err != nil {
		return fail(out, err), true
	}
	th.msgs = append(th.msgs, provider.Message{Role: provider.RoleUser, Content: formatErrorPrompt.render(r.formatData(formatErr))})
	out.Messages = th.msgs
	if it >= r.set.MaxIterations {
		out.Status = event.RunStatusLimitReached
		return out, true
	}
	th.reflection = ""
	return out, false
}

// executeAndJudge runs the program and, when the run has tests, the tests.
func (r *runner) executeAndJudge(ctx context.Context, it int, code string) (verdict, error) {
	if err := r.send(event.ExecStarted, event.IterationPayload{Iteration: it}); err != nil {
		return verdict{}, err
	}
	res, err := r.execute(ctx, it, code)
	if err != nil {
		return verdict{}, err
	}
	if len(res.Images) > 0 && r.set.Images != nil {
		if err := r.set.Images.SaveImages(ctx, it, res.Images); err != nil {
			return verdict{}, fmt.Errorf("recording the program's pictures: %w", err)
		}
	}
	if err := r.send(event.ExecFinished, execPayload(it, res)); err != nil {
		return verdict{}, err
	}
	if ctx.Err() != nil {
		// Stopped: what the code printed until then stays with the iteration.
		return verdict{}, ctx.Err()
	}
	v := verdict{res: res}
	if !r.set.Tests.Empty() {
		tests, err := r.test(ctx, it, code)
		if err != nil {
			return verdict{}, err
		}
		v.tests = &tests
	}
	return v, nil
}

// decide ends the iteration on v: success, the limit, or a reflection for
// the next generation.
func (r *runner) decide(ctx context.Context, it int, th *scriptThread, out Outcome, v verdict) (Outcome, bool) {
	status := event.IterationStatusError
	if v.passed() {
		status = event.IterationStatusSuccess
	}
	if err := r.send(event.IterationDone, event.IterationDonePayload{Iteration: it, Status: status, Summary: v.summary()}); err != nil {
		return fail(out, err), true
	}
	if v.passed() {
		out.Status = event.RunStatusSuccess
		return out, true
	}
	// The report joins the thread even at the limit, so a follow-up prompt
	// on this session knows how the last attempt failed.
	th.msgs = append(th.msgs, provider.Message{Role: provider.RoleUser, Content: v.feedback()})
	out.Messages = th.msgs
	if it >= r.set.MaxIterations {
		out.Status = event.RunStatusLimitReached
		return out, true
	}
	th.reflection = ""
	if r.set.Reflect {
		reflection, err := r.reflect(ctx, it, th.code, v)
		if err != nil {
			return fail(out, err), true
		}
		th.reflection = reflection
	}
	return out, false
}

// execute runs the code, streaming what it prints as exec_output events
// while it runs. A failure to record them stops the execution and is the
// error.
func (r *runner) execute(ctx context.Context, it int, code string) (sandbox.Result, error) {
	ctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	live := newLiveOutput(it, r.set.Limits.Effective().OutputHead, outputWindow,
		func(p event.ExecOutputPayload) error { return r.send(event.ExecOutput, p) }, stop)
	req := r.execRequest()
	req.Code, req.LiveStdout, req.LiveStderr = code, live.stdout(), live.stderr()
	var (
		res sandbox.Result
		err error
	)
	if p := r.takePrepared(); p != nil {
		res, err = p.Run(ctx, req)
	} else {
		res, err = r.exec.Run(ctx, req)
	}
	liveErr := live.close()
	if err != nil {
		return res, fmt.Errorf("running the generated code: %w", err)
	}
	return res, liveErr
}

// execRequest is an execution of this run without its code.
func (r *runner) execRequest() sandbox.Request {
	req := sandbox.Request{Language: r.lang.Sandbox, Limits: r.set.Limits, AllowNetwork: r.set.AllowNetwork,
		Images: r.set.Images != nil}
	if r.set.Stdin != "" {
		req.Stdin = []byte(r.set.Stdin)
	}
	return req
}

// prepareNext starts preparing the next execution's sandbox unless one is
// prepared already (an answer without code leaves it for the next one) or
// the executor cannot. ctx is the run's: its end kills the sandbox.
func (r *runner) prepareNext(ctx context.Context) {
	px, ok := r.exec.(Preparer)
	if !ok || r.next != nil {
		return
	}
	next := &preparing{done: make(chan struct{})}
	r.next = next
	req := r.execRequest()
	go func() {
		defer close(next.done)
		next.p, next.err = px.Prepare(ctx, req)
	}()
}

// takePrepared hands over the sandbox prepared for this execution; nil
// (run cold) when there is none or preparing it failed, which is logged.
func (r *runner) takePrepared() sandbox.Prepared {
	next := r.next
	if next == nil {
		return nil
	}
	r.next = nil
	<-next.done
	switch {
	case errors.Is(next.err, sandbox.ErrPrepareLimit):
		// Expected when many runs share the machine (a class).
		r.log().Debug("loop: running cold: as many sandboxes prepared as allowed")
		return nil
	case errors.Is(next.err, sandbox.ErrNoWarmStart):
		return nil // every execution starts cold on this system (Windows, macOS)
	case next.err != nil:
		r.log().Warn("loop: running cold: preparing the sandbox failed", "err", next.err)
		return nil
	}
	return next.p
}

// discardPrepared tears down a sandbox prepared for an execution that will
// not come (the run ended without it).
func (r *runner) discardPrepared() {
	if next := r.next; next != nil {
		r.next = nil
		<-next.done
		if next.p != nil {
			next.p.Close()
		}
	}
}

func (r *runner) log() *slog.Logger {
	if r.set.Log != nil {
		return r.set.Log
	}
	return slog.Default()
}

// call streams one request to the run's model (see callModel), and notes
// which model answered.
func (r *runner) call(ctx context.Context, it int, phase event.Phase, req provider.Request) (*provider.Response, error) {
	resp, err := r.callModel(ctx, r.model, it, phase, req)
	if err == nil {
		r.fallback = ""
		if resp.FallbackFrom != "" {
			r.fallback = resp.Model
		}
	}
	return resp, err
}

// callModel streams one request to m, emitting every text delta as a token
// and every notice (a retry) as a warning when it arrives, and a notice when
// a fallback model answered. Its tokens count toward the run's usage
// whichever model answers (the auditor's too), and so do the tokens a
// failed call reported before it failed.
func (r *runner) callModel(ctx context.Context, m Model, it int, phase event.Phase, req provider.Request) (*provider.Response, error) {
	var final *provider.Response
	for d, err := range m.Stream(ctx, req) {
		if err != nil {
			if got := provider.PartialOf(err); got != nil {
				r.count(got.Usage)
			}
			return nil, err
		}
		if d.Notice != "" {
			if err := r.send(event.Log, noticeOf(d)); err != nil {
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
	r.count(final.Usage)
	for _, w := range final.Warnings {
		if err := r.send(event.Log, event.LogPayload{Level: "warn", Message: w}); err != nil {
			return nil, err
		}
	}
	if final.FallbackFrom != "" {
		msg := fmt.Sprintf("%s answered instead of %s (the provider's fallback)", final.Model, final.FallbackFrom)
		if err := r.send(event.Log, event.NewLog("warn", msg, event.NoticeFallback, "from", final.FallbackFrom, "to", final.Model)); err != nil {
			return nil, err
		}
	}
	return final, nil
}

// count adds a call's tokens to the run's usage.
func (r *runner) count(u provider.Usage) { r.usage = r.usage.Add(u) }

// reflect asks the model why the code failed. The answer is plain text; an
// empty one is allowed and means "continue with the history only".
func (r *runner) reflect(ctx context.Context, it int, code string, v verdict) (string, error) {
	req := provider.Request{
		Workdir: r.set.Workdir, Mode: provider.ModeScript, // reflecting never needs to edit anything
		System: reflectSystemPrompt.render(r.promptData()),
		Messages: []provider.Message{{Role: provider.RoleUser, Content: reflectUserPrompt.render(v.reflectData(
			reflectData{Prompt: r.prompt, Fence: r.lang.Fence, Code: strings.TrimRight(code, "\n")}))}},
	}
	resp, err := r.call(ctx, it, event.PhaseReflect, req)
	if err != nil {
		return "", err
	}
	text := strings.TrimSpace(resp.Content)
	if err := r.send(event.Reflection, event.ReflectionPayload{Iteration: it, Text: text,
		InputTokens: resp.Usage.InputTokens, OutputTokens: resp.Usage.OutputTokens}); err != nil {
		return "", err
	}
	if text == "" {
		if err := r.send(event.Log, event.NewLog("warn", "the reflection was empty; retrying with the error report only", event.NoticeReflectionEmpty)); err != nil {
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

func (r *runner) promptData() languageData {
	return languageData{Language: r.lang.Name, Fence: r.lang.Fence, Structured: r.structured}
}

func (r *runner) formatData(err error) formatErrorData {
	return formatErrorData{languageData: r.promptData(), Problem: problemOf(err)}
}

// problemOf is what was wrong with an answer, without the "no code found"
// prefix.
// noticeOf is a provider's notice as a log line: with its code when it is
// a retry (the app words those), as the provider's text otherwise.
func noticeOf(d provider.Delta) event.LogPayload {
	r := d.Retry
	if r == nil {
		return event.LogPayload{Level: "warn", Message: d.Notice}
	}
	status := ""
	if r.Status != 0 {
		status = strconv.Itoa(r.Status)
	}
	return event.NewLog("warn", d.Notice, event.NoticeRetry, "provider", r.Provider, "reason", r.Reason, "status", status,
		"wait_ms", strconv.FormatInt(r.Wait.Milliseconds(), 10), "retry", strconv.Itoa(r.N), "max", strconv.Itoa(r.Max))
}

func problemOf(err error) string {
	if fe, ok := errors.AsType[*FormatError](err); ok {
		return fe.Problem()
	}
	return err.Error()
}

// withReflection returns a copy of msgs whose last (user) message carries the
// reflection, leaving the stored thread untouched.
func withReflection(msgs []provider.Message, reflection string) []provider.Message {
	out := append([]provider.Message(nil), msgs...)
	last := &out[len(out)-1]
	last.Content = withReflectionPrompt.render(reflectionData{Feedback: last.Content, Reflection: reflection})
	return out
}

func feedbackData(res sandbox.Result) execFeedback {
	return execFeedback{
		Description: res.Description(),
		ExitCode:    res.ExitCode,
		Stderr:      tail(res.Stderr, feedbackStderr),
		Stdout:      tail(res.Stdout, feedbackStdout),
	}
}

func execPayload(it int, res sandbox.Result) event.ExecPayload {
	outcome := res.Outcome()
	protections := map[string]bool{}
	for name, on := range res.Protections.Map() {
		protections[string(name)] = on
	}
	return event.ExecPayload{
		Iteration: it, Status: res.Status, ExitCode: res.ExitCode, Signal: res.Signal,
		Stdout: res.Stdout, Stderr: res.Stderr, Truncated: res.Truncated,
		DurationMS: roundMS(res.Duration), Isolation: res.Isolation,
		Outcome: &outcome, Description: sandbox.English(outcome),
		Protections: protections, Notes: res.Notes, Warnings: res.Warnings,
		Images: imageRefs(res.Images), ImageNotes: res.ImageNotes, ImagesSkipped: res.ImagesSkipped,
	}
}

// roundMS is d in whole milliseconds, rounded: a program's 3.8 ms reads as
// 4, not 3 (Milliseconds truncates), so sums of many are not biased low.
func roundMS(d time.Duration) int64 { return d.Round(time.Millisecond).Milliseconds() }

func imageRefs(imgs []sandbox.Image) []event.ImageRef {
	var refs []event.ImageRef
	for _, im := range imgs {
		refs = append(refs, event.ImageRef{Name: im.Name, MIME: im.MIME, Size: int64(len(im.Data)), Width: im.Width, Height: im.Height})
	}
	return refs
}

func fail(out Outcome, err error) Outcome {
	out.Status, out.Err = event.RunStatusError, err
	return out
}
