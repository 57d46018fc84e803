package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/loopforge/loopforge/backend/config"
	"github.com/loopforge/loopforge/backend/event"
	"github.com/loopforge/loopforge/backend/judge"
	"github.com/loopforge/loopforge/backend/loop"
	"github.com/loopforge/loopforge/backend/service"
	"github.com/loopforge/loopforge/backend/store"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"go.yaml.in/yaml/v3"
)

type runFlags struct {
	provider, model, baseURL, promptFile, session, language, workdir, timeout string
	stdin, retry                                                              string
	maxIter                                                                   int
	noReflect, json, allowNetwork                                             bool
	mode, task, auditor                                                       string
	validate                                                                  []string
	tests                                                                     string
}

func (e *env) runCmd() *cobra.Command {
	var f runFlags
	cmd := &cobra.Command{
		Use:   "run [flags] [PROMPT]",
		Short: "Run the generate → execute → reflect loop on one provider",
		Long: "Run the loop on one provider. The prompt is the argument, or --prompt-file FILE ('-' reads stdin);\n" +
			"with neither, the built-in data-structures teaching prompt (Portuguese original) is used.\n\n" +
			"Progress goes to stderr and the final code to stdout, so `loopforge run \"...\" > script.py` saves\n" +
			"a ready-to-run script. Exit codes: 0 success, 1 no success within the limit, 2 usage or\n" +
			"configuration error, 3 provider error.",
		Args: func(_ *cobra.Command, args []string) error { return nil },
		RunE: func(cmd *cobra.Command, args []string) error {
			return e.run(cmd.Context(), cmd, f, args)
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&f.provider, "provider", "p", "", "provider profile (default: from config or LOOPFORGE_PROVIDER, else the first with a key)")
	fl.StringVar(&f.baseURL, "base-url", "", "API endpoint (default: the profile's)")
	fl.StringVar(&f.session, "session", "", "continue a session: the follow-up keeps the thread's message history")
	fl.StringVar(&f.retry, "retry", "", "try run RUN again from where it stopped (its answer broke off, its provider failed): same session, thread and prompt")
	f.bind(fl, "model (default: the profile's)", "print JSON Lines events on stdout instead of human output")
	return cmd
}

func (e *env) run(ctx context.Context, cmd *cobra.Command, f runFlags, args []string) error {
	if f.retry != "" && (len(args) > 0 || f.promptFile != "" || f.session != "") {
		return usagef("--retry goes on with the run's own prompt and session: give no prompt, --prompt-file or --session")
	}
	req, workdir, err := e.request(cmd, f, args)
	if err != nil {
		return err
	}
	req.SessionID, req.Provider, req.BaseURL, req.Retry = f.session, f.provider, f.baseURL, f.retry
	svc, err := e.newService(ctx, workdir)
	if err != nil {
		return err
	}
	defer svc.Close()
	info, err := svc.StartRun(ctx, req)
	if err != nil {
		return flagWords(err)
	}

	defer cancelOnInterrupt(svc, info.RunID)()

	var p printer
	if f.json {
		p = &jsonPrinter{w: e.stdout}
	} else {
		hp := newHumanPrinter(e.stdout, e.stderr, info)
		hp.sandbox = sandboxLabel(svc.Defaults(), req.Mode == event.ModeWorkspace)
		p = hp
	}
	if err := svc.Follow(ctx, info.RunID, 0, p.event); err != nil {
		return err
	}
	run, runErr := svc.Wait(ctx, info.RunID)
	if run == nil {
		return runErr
	}
	if fe, ok := errors.AsType[*store.DiskFullError](runErr); ok && f.json {
		// The JSON stream says it in run_finished; a person watching the
		// terminal reads it here, in the words the human output uses.
		fmt.Fprintln(e.stderr, "loopforge: "+fe.Error())
	}
	switch run.Status {
	case event.RunStatusSuccess:
		return nil
	case event.RunStatusCancelled, event.RunStatusInterrupted:
		return &exitError{code: ExitInterrupted}
	case event.RunStatusError:
		if runErr != nil {
			return &exitError{code: exitCode(runErr)}
		}
	}
	return &exitError{code: ExitFailed}
}

// bind registers the flags run and compare share.
func (f *runFlags) bind(fl *pflag.FlagSet, modelUsage, jsonUsage string) {
	fl.StringVarP(&f.model, "model", "m", "", modelUsage)
	fl.IntVarP(&f.maxIter, "max-iterations", "n", 0, "iteration limit (default 5, or max_iterations from config)")
	fl.StringVar(&f.timeout, "timeout", "", "time limit for one execution of the generated code (default 30s, or timeout from config)")
	fl.BoolVar(&f.noReflect, "no-reflect", false, "send errors straight back instead of a reflection step")
	fl.BoolVar(&f.json, "json", false, jsonUsage)
	fl.StringVar(&f.promptFile, "prompt-file", "", "read the prompt from FILE ('-' = stdin)")
	fl.StringVar(&f.stdin, "stdin", "", "give the generated code FILE ('-' = this command's stdin) on its standard input, for input(); at most 64 KiB")
	fl.StringVar(&f.language, "language", "", "language of the generated code: python (default), sh or node")
	fl.BoolVar(&f.allowNetwork, "allow-network", false, "let the generated code (and workspace commands) reach the network for this run; off by default")
	fl.StringVar(&f.workdir, "workdir", "", "directory whose loopforge.yml and .env apply, and that workspace mode edits (default: the current one)")
	fl.StringVar(&f.mode, "mode", "", "script (default: code runs in the sandbox) or workspace (the model edits the workdir, a git repository)")
	fl.StringArrayVar(&f.validate, "validate", nil, "workspace mode: a command that must pass after each attempt, e.g. 'pytest -q' (repeatable)")
	fl.StringVar(&f.task, "task", "", "a YAML task file: instructions and tests (script mode), or instructions, inputs, constraints, validate (workspace mode)")
	fl.StringVar(&f.tests, "tests", "", "script mode: a YAML file of tests that judge each program (stdin → expected output, or Python assertions); success = all pass")
	fl.StringVar(&f.auditor, "auditor", "", "workspace mode: a provider profile that reviews each passing change")
}

// request turns the flags run and compare share, and the prompt argument,
// into a request; it also returns the resolved workdir. It reads the files
// the flags name and parses their values; the limits, defaults and what
// goes with what are the service's to check (StartRun), whose refusal of
// one option's value flagWords names by its flag.
func (e *env) request(cmd *cobra.Command, f runFlags, args []string) (service.RunRequest, string, error) {
	if f.stdin == "-" && f.promptFile == "-" {
		return service.RunRequest{}, "", usagef("--stdin - and --prompt-file - cannot both read this command's stdin")
	}
	task, tests, err := loadTaskAndTests(f)
	if err != nil {
		return service.RunRequest{}, "", err
	}
	workspace := f.mode == string(event.ModeWorkspace)
	prompt := ""
	if task != nil && len(args) == 0 && f.promptFile == "" {
		prompt = task.Instructions
	} else if workspace && len(args) == 0 && f.promptFile == "" {
		// Not the built-in teaching prompt: it is no task for a project.
		return service.RunRequest{}, "", usagef("workspace mode needs a task: a prompt, --prompt-file or --task")
	} else if prompt, err = e.prompt(f, args); err != nil {
		return service.RunRequest{}, "", err
	}
	if !workspace && task != nil && !task.Workspace() {
		task = nil // its instructions are the prompt; its tests are tests
	}
	req := service.RunRequest{Prompt: prompt, Model: f.model, MaxIterations: f.maxIter, Language: f.language,
		AllowNetwork: f.allowNetwork, Mode: event.Mode(f.mode), Validate: f.validate, Auditor: f.auditor, Task: task,
		Tests: tests.YAML()}
	if err := explicitZero(cmd, f); err != nil {
		return req, "", err
	}
	if f.timeout != "" {
		d, err := config.ParseDuration(f.timeout)
		if err != nil {
			return req, "", usagef("--timeout: %v", err)
		}
		req.TimeoutSeconds = d.Seconds()
	}
	if f.noReflect {
		no := false
		req.Reflect = &no
	}
	if f.stdin != "" {
		if req.Stdin, err = e.codeInput(f); err != nil {
			return req, "", err
		}
	}
	workdir, err := resolveWorkdir(f.workdir)
	if err != nil {
		return req, "", err
	}
	if workspace {
		req.Workdir = workdir
	}
	return req, workdir, nil
}

// loadTaskAndTests reads --task and --tests (--tests wins over the task's
// tests).
func loadTaskAndTests(f runFlags) (*loop.Task, *judge.Suite, error) {
	var (
		task  *loop.Task
		tests *judge.Suite
		err   error
	)
	if f.task != "" {
		if task, tests, err = loadTask(f.task); err != nil {
			return nil, nil, err
		}
	}
	if f.tests != "" {
		if tests, err = loadTests(f.tests); err != nil {
			return nil, nil, err
		}
	}
	return task, tests, nil
}

// explicitZero refuses -n 0 and --timeout 0: in the request a zero takes
// the configured default, but a flag given a zero asked for none.
func explicitZero(cmd *cobra.Command, f runFlags) error {
	if cmd.Flags().Changed("max-iterations") && f.maxIter == 0 {
		return usagef("%v", config.CheckMaxIterations("--max-iterations", 0))
	}
	if d, err := config.ParseDuration(f.timeout); f.timeout != "" && err == nil && d == 0 {
		return usagef("%v", config.CheckTimeout("--timeout", 0))
	}
	return nil
}

// runFlagNames are the flags of the run request's options, by their JSON
// field (the name a *config.ValueError from the service gives them).
var runFlagNames = map[string]string{"max_iterations": "--max-iterations", "timeout_seconds": "--timeout", "stdin": "--stdin"}

// flagWords names an option the service refused by the flag that set it.
func flagWords(err error) error {
	if ve, ok := errors.AsType[*config.ValueError](err); ok && runFlagNames[ve.Name] != "" {
		return usagef("%s %s", runFlagNames[ve.Name], ve.Problem)
	}
	return err
}

// codeInput reads --stdin: the text for the generated code's input.
func (e *env) codeInput(f runFlags) (string, error) {
	if f.mode == string(event.ModeWorkspace) {
		return "", usagef("--stdin is for script mode: workspace commands read no input")
	}
	var (
		b   []byte
		err error
	)
	if f.stdin == "-" {
		// One byte more than allowed tells "too long" without reading it all.
		b, err = io.ReadAll(io.LimitReader(e.stdin, config.MaxStdinBytes+1))
	} else {
		b, err = readLimited(f.stdin, config.MaxStdinBytes+1)
	}
	if errors.Is(err, os.ErrNotExist) {
		return "", usagef("--stdin: %s does not exist", f.stdin)
	}
	if err != nil {
		return "", usagef("--stdin: cannot read %s: %v", f.stdin, err)
	}
	return string(b), nil // the service checks its size
}

// readLimited reads at most n bytes of the file at path.
func readLimited(path string, n int64) ([]byte, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	return io.ReadAll(io.LimitReader(fh, n))
}

// cancelOnInterrupt makes Ctrl-C (or SIGTERM) cancel the runs — killing the
// generated code's process groups — while they are still recorded; a second
// Ctrl-C is left to the default handler. Call the returned func when done.
func cancelOnInterrupt(svc *service.Service, runIDs ...string) func() {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	stop := make(chan struct{})
	go func() {
		select {
		case <-sigs:
			signal.Stop(sigs)
			for _, id := range runIDs {
				_ = svc.Cancel(id)
			}
		case <-stop:
		}
	}()
	return func() {
		signal.Stop(sigs)
		close(stop)
	}
}

func (e *env) prompt(f runFlags, args []string) (string, error) {
	if f.promptFile != "" && len(args) > 0 {
		return "", usagef("give the prompt as an argument or with --prompt-file, not both")
	}
	if f.promptFile != "" {
		var b []byte
		var err error
		if f.promptFile == "-" {
			b, err = io.ReadAll(e.stdin)
		} else {
			b, err = os.ReadFile(f.promptFile)
		}
		if errors.Is(err, os.ErrNotExist) {
			return "", usagef("prompt file %s does not exist", f.promptFile)
		}
		if err != nil {
			return "", usagef("cannot read the prompt file: %v", err)
		}
		if strings.TrimSpace(string(b)) == "" {
			return "", usagef("the prompt file %s is empty", f.promptFile)
		}
		return string(b), nil
	}
	if len(args) > 0 {
		p := strings.Join(args, " ")
		if strings.TrimSpace(p) == "" {
			return "", usagef("the prompt is empty")
		}
		return p, nil
	}
	return loop.DefaultPrompt(), nil
}

type printer interface{ event(event.Event) error }

type jsonPrinter struct{ w io.Writer }

func (p *jsonPrinter) event(e event.Event) error { return writeLine(p.w, e) }

// humanPrinter writes one line per iteration to stderr and the final code to
// stdout. On a terminal it also keeps a live status line.
type humanPrinter struct {
	out, err io.Writer
	tty      bool
	info     service.RunInfo
	tokens   int
	status   string
	started  time.Time
	warned   map[string]bool   // sandbox warnings already shown (once per run)
	sandbox  string            // for the header: how the code (or the workspace commands) is isolated
	last     event.ExecPayload // the latest execution, shown under a success
	session  string
}

// shownOutputLines bounds the program output shown under a success: the
// terminal is for the loop's progress; all of it is in the history.
const shownOutputLines = 12

// sandboxLabel names how a run's code is isolated, as the app's sandbox line
// does: the level this machine gives, or that workspace commands run
// unsandboxed (loopforge.yml workspace: {sandbox: false}).
func sandboxLabel(d service.Defaults, workspace bool) string {
	switch {
	case workspace && !d.CommandsSandboxed:
		return "commands unsandboxed"
	case d.Isolation == "":
		return "no sandbox"
	}
	return "sandbox " + d.Isolation
}

func newHumanPrinter(out, errw io.Writer, info service.RunInfo) *humanPrinter {
	return &humanPrinter{out: out, err: errw, tty: isTerminal(errw), info: info, started: time.Now()}
}

func (p *humanPrinter) live(format string, a ...any) {
	if !p.tty {
		return
	}
	fmt.Fprintf(p.err, "\r\033[K"+format, a...)
}

func (p *humanPrinter) line(format string, a ...any) {
	if p.tty {
		fmt.Fprint(p.err, "\r\033[K")
	}
	fmt.Fprintf(p.err, format+"\n", a...)
}

// payload decodes e's payload; a payload that does not decode reads as
// its zero value (the printer shows what it can rather than stop).
func payload[T any](e event.Event) T {
	var v T
	_ = e.Decode(&v)
	return v
}

func (p *humanPrinter) event(e event.Event) error {
	switch e.Type {
	case event.RunStarted:
		p.runStarted(payload[event.RunStartedPayload](e))
	case event.IterationStarted:
		it := payload[event.IterationPayload](e)
		p.tokens, p.status = 0, fmt.Sprintf("iteration %d: generating", it.Iteration)
		p.live("%s…", p.status)
	case event.Token:
		p.tokens += len(payload[event.TokenPayload](e).Text)
		p.live("%s… %d chars", p.status, p.tokens)
	case event.ExecStarted:
		p.status = fmt.Sprintf("iteration %d: running the code", payload[event.IterationPayload](e).Iteration)
		p.live("%s…", p.status)
	case event.ExecFinished:
		p.execFinished(payload[event.ExecPayload](e))
	case event.IterationDone:
		p.iterationDone(payload[event.IterationDonePayload](e))
	case event.Tested:
		p.tests(payload[event.TestsPayload](e))
	case event.Reflection:
		p.status = fmt.Sprintf("iteration %d: reflecting", payload[event.ReflectionPayload](e).Iteration)
	case event.ToolCalled:
		if c := payload[event.ToolCallPayload](e); !c.OK {
			p.line("iteration %d: tool %s failed: %s", c.Iteration, c.Name, oneLine(c.Output))
		}
	case event.Validated:
		p.validated(payload[event.ValidatePayload](e))
	case event.Audited:
		p.audited(payload[event.AuditPayload](e))
	case event.Git:
		p.git(payload[event.GitPayload](e))
	case event.Log:
		p.line("note: %s", payload[event.LogPayload](e).Message)
	case event.RunFinished:
		p.finish(payload[event.RunFinishedPayload](e))
	}
	return nil
}

func (p *humanPrinter) runStarted(r event.RunStartedPayload) {
	model := ""
	if r.Model != "" {
		model = " (" + r.Model + ")"
	}
	reflect := "reflection on"
	if !r.Reflect {
		reflect = "reflection off"
	}
	sandbox := ""
	if p.sandbox != "" {
		sandbox = ", " + p.sandbox
	}
	p.session = r.SessionID
	p.line("loopforge: %s%s, up to %d iteration%s, %s%s, session %s", r.Provider, model, r.MaxIterations, plural(r.MaxIterations), reflect, sandbox, r.SessionID)
	if r.Mode == event.ModeWorkspace {
		p.line("workspace %s; validation: %s", r.Workdir, orNone(strings.Join(r.Validate, "; ")))
	}
	if r.AllowNetwork {
		p.line("network access allowed for this run")
	}
	if r.Stdin != "" {
		p.line("the code gets %d bytes on its standard input", len(r.Stdin))
	}
}

// execFinished keeps the execution for the iteration's verdict and says
// each sandbox warning once per run.
func (p *humanPrinter) execFinished(x event.ExecPayload) {
	p.last = x
	for _, w := range x.Warnings {
		if p.warned[w] {
			continue
		}
		if p.warned == nil {
			p.warned = map[string]bool{}
		}
		p.warned[w] = true
		p.line("sandbox warning: %s", w)
	}
}

func (p *humanPrinter) iterationDone(d event.IterationDonePayload) {
	if d.Status == event.IterationStatusSuccess {
		p.line("iteration %d: success", d.Iteration)
		p.programOutput(d.Iteration)
		return
	}
	p.line("iteration %d: error: %s", d.Iteration, oneLine(d.Summary))
}

func (p *humanPrinter) validated(v event.ValidatePayload) {
	verdict := "passed"
	if !v.Passed {
		verdict = fmt.Sprintf("failed (exit %d)", v.ExitCode)
	}
	p.line("iteration %d: `%s` %s", v.Iteration, v.Command, verdict)
}

func (p *humanPrinter) audited(a event.AuditPayload) {
	if a.Approved {
		p.line("iteration %d: auditor approved", a.Iteration)
		return
	}
	p.line("iteration %d: auditor rejected: %s", a.Iteration, oneLine(strings.Join(a.Reasons, "; ")))
}

func (p *humanPrinter) git(g event.GitPayload) {
	switch g.Action {
	case "branch":
		p.line("working on branch %s", g.Branch)
	case "commit":
		p.line("committed %.12s on %s", g.Commit, g.Branch)
	case "uncommitted":
		p.line("%s (branch %s)", g.Message, g.Branch)
	}
}

// programOutput shows what the working program printed (its last lines)
// and how many pictures it drew, on the status stream: stdout is the final
// code alone.
func (p *humanPrinter) programOutput(iteration int) {
	x := p.last
	if x.Iteration != iteration {
		return // a workspace run: its commands' output is in the validation
	}
	lines := strings.Split(strings.TrimRight(x.Stdout, "\n"), "\n")
	if x.Stdout == "" {
		lines = nil
	}
	if n := len(lines); n > shownOutputLines {
		p.line("  … %d earlier lines (all of it: loopforge export %s --format md)", n-shownOutputLines, p.session)
		lines = lines[n-shownOutputLines:]
	}
	for _, l := range lines {
		p.line("  │ %s", l)
	}
	if n := len(x.Images); n > 0 {
		p.line("  %d picture%s (in the app's History, and in exports: loopforge export %s --format html)", n, plural(n), p.session)
	}
}

func (p *humanPrinter) finish(f event.RunFinishedPayload) {
	took := time.Duration(f.DurationMS) * time.Millisecond
	stats := fmt.Sprintf("%s, %d tokens in / %d out", took.Round(100*time.Millisecond), f.InputTokens, f.OutputTokens)
	switch f.Status {
	case event.RunStatusSuccess:
		p.line("success after %d iteration%s (%s%s)", f.Iterations, plural(f.Iterations), testsNote(f), stats)
	case event.RunStatusLimitReached:
		p.line("limit reached: no working code after %d iteration%s (%s%s); the last attempt follows", f.Iterations, plural(f.Iterations), testsNote(f), stats)
	case event.RunStatusCancelled:
		p.line("cancelled after %d iteration%s", f.Iterations, plural(f.Iterations))
	default:
		p.line("%s: %s", f.Status, oneLine(f.Error))
		if service.Code(f.ErrorCode).Retryable() {
			p.line("to try this iteration again: loopforge run --retry %s", p.info.RunID)
		}
	}
	if f.FinalCode != "" && (f.Status == event.RunStatusSuccess || f.Status == event.RunStatusLimitReached) {
		fmt.Fprint(p.out, f.FinalCode)
	}
}

// tests shows an iteration's tests: a row of ✓ and ✗ with the count, then
// the first failing test's evidence (a hidden one's verdict only).
func (p *humanPrinter) tests(t event.TestsPayload) {
	var row strings.Builder
	for _, r := range t.Results {
		if r.Verdict == event.VerdictPassed {
			row.WriteString("✓")
		} else {
			row.WriteString("✗")
		}
	}
	p.line("iteration %d: tests %d/%d passed %s", t.Iteration, t.Passed, t.Total, row.String())
	for _, r := range t.Results {
		if r.Verdict == event.VerdictPassed {
			continue
		}
		name := ""
		if r.Name != "" {
			name = " (" + r.Name + ")"
		}
		p.line("  test %d%s: %s", r.Index, name, judge.English(r.Verdict))
		evidence := r.Diff
		if evidence == "" {
			evidence = r.Detail
		}
		if r.Hidden || r.Redacted {
			evidence = ""
		}
		lines := strings.Split(strings.TrimRight(evidence, "\n"), "\n")
		if len(lines) > shownOutputLines {
			lines = lines[len(lines)-shownOutputLines:]
		}
		for _, l := range lines {
			if l != "" {
				p.line("  │ %s", l)
			}
		}
		return // the first failure is enough on a terminal; all are in the history
	}
}

// testsNote is "3/5 tests passed, " for a run with tests, "" otherwise.
func testsNote(f event.RunFinishedPayload) string {
	if f.TestsTotal == 0 {
		return ""
	}
	return fmt.Sprintf("%d/%d tests passed, ", f.TestsPassed, f.TestsTotal)
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// loadTask reads a YAML task: in script mode its instructions and tests,
// in workspace mode the rest too:
//
//	instructions: Make the parser accept trailing commas.
//	inputs: [parser.py, tests/]
//	constraints: [standard library only]
//	validate: ["pytest -q"]
//	tests: [{stdin: "2 3", expected: "5"}]
func loadTask(path string) (*loop.Task, *judge.Suite, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, usagef("cannot read the task file: %v", err)
	}
	var t struct {
		loop.Task `yaml:",inline"`
		Tests     yaml.Node `yaml:"tests"`
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&t); err != nil {
		return nil, nil, usagef("task file %s: %v", path, err)
	}
	if strings.TrimSpace(t.Instructions) == "" {
		return nil, nil, usagef("task file %s has no instructions", path)
	}
	suite, err := judge.Parse(b) // the tests: list, with the judge's checks
	if t.Tests.IsZero() {
		suite, err = nil, nil
	}
	if err != nil {
		return nil, nil, usagef("task file %s: %v", path, err)
	}
	return &t.Task, suite, nil
}

// loadTests reads --tests: a YAML file with a tests: list (a task file
// too), or a bare list.
func loadTests(path string) (*judge.Suite, error) {
	b, err := readLimited(path, judge.MaxYAMLBytes+1)
	if errors.Is(err, os.ErrNotExist) {
		return nil, usagef("--tests: %s does not exist", path)
	}
	if err != nil {
		return nil, usagef("--tests: cannot read %s: %v", path, err)
	}
	suite, err := judge.Parse(b)
	if err != nil {
		return nil, usagef("--tests %s: %v", path, err)
	}
	if suite.Empty() {
		return nil, usagef("--tests %s: no tests in it", path)
	}
	return suite, nil
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
