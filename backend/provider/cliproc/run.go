package cliproc

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"os/exec"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/loopforge/loopforge/backend/procgroup"
	"github.com/loopforge/loopforge/backend/provider"
)

const (
	// MaxLine is the longest stdout line read: claude's init event is a few
	// KB, but tool results carry whole files.
	MaxLine = 16 << 20
	// DefaultGrace is how long a CLI has to exit after SIGTERM before the
	// group is SIGKILLed.
	DefaultGrace = 2 * time.Second

	stderrHead = 2 << 10 // stderr kept: its start (usage errors) ...
	stderrTail = 6 << 10 // ... and its end (the latest complaint)
	// waitDelay bounds the wait for stderr once the group is gone; only a
	// process that left the group (setsid) can hold it open that long.
	waitDelay  = time.Second
	rawExcerpt = 200 // bytes of a bad line quoted in errors
)

// Parser reads one CLI's events.
type Parser interface {
	// Event handles the JSON object on one stdout line, reporting what it
	// means to r. An error means the line is not an event of this CLI; the
	// call then ends with a *provider.ParseError. Unknown event types are
	// not errors: they are ignored.
	Event(line []byte, r *Result) error
}

// ParserFunc adapts a function to Parser.
type ParserFunc func(line []byte, r *Result) error

// Event calls f.
func (f ParserFunc) Event(line []byte, r *Result) error { return f(line, r) }

// Spec is one CLI call.
type Spec struct {
	Provider string   // profile name, for errors and Response.Provider
	Binary   string   // resolved executable (see Binary.Find)
	Args     []string // arguments after the executable
	Dir      string   // working directory
	Env      []string // the whole environment (see Env)
	// Stdin is written to the CLI's stdin; "" means /dev/null.
	Stdin   string
	Timeout time.Duration // 0 = provider.DefaultCallTimeout
	Grace   time.Duration // SIGTERM to SIGKILL; 0 = DefaultGrace
	Model   string        // Response.Model until the CLI names one

	KeyEnv   string   // the variable holding the CLI's key, named in auth errors
	AuthHint string   // what the user can do about a rejected key
	Secrets  []string // values redacted from stderr, messages and Command
	// Explain, if set, interprets an exit without a final event: an HTTP
	// status the exit code stands for (401 makes an auth error) and/or a
	// message for the user.
	Explain func(exitCode int, stderr string) (status int, msg string)
	// Classify, if set, recognizes a failure the CLI reports in words (the
	// message of its failure event, or its stderr when it ended without a
	// final event) that deserves an error of its own, such as codex's
	// "Missing environment variable"; nil leaves the usual error.
	Classify func(text string) error
}

// Run starts the CLI and streams its answer; see the package doc. How a call
// ends:
//
//   - the final event reports success: a Done delta, Status success (a
//     non-zero exit code then only adds a warning);
//   - it reports a failure: status error; an *provider.Error when an HTTP
//     status stands behind it (401: KindAuth, 403: KindForbidden), else an
//     *provider.ExecutionError with the CLI's message;
//   - a malformed JSON line: a *provider.ParseError; status error, or
//     partial when the final event never came;
//   - the timeout: *provider.Error of KindTimeout (errors.Is ErrTimeout),
//     partial; cancelling ctx: an error wrapping context.Canceled, partial;
//   - the CLI ended without its final event: *provider.ExecutionError
//     (errors.Is ErrIncomplete when it had said something or exited 0);
//     partial when some answer arrived, else error;
//   - it could not start: a bare *provider.ExecutionError, ExitCode -1.
//
// All but the last arrive wrapped in a *provider.PartialError.
func Run(ctx context.Context, s Spec, p Parser) iter.Seq2[provider.Delta, error] {
	return func(yield func(provider.Delta, error) bool) {
		run(ctx, s, p, yield)
	}
}

func run(ctx context.Context, s Spec, p Parser, yield func(provider.Delta, error) bool) {
	start := time.Now()
	argv := redactAll(append([]string{s.Binary}, s.Args...), s.Secrets)
	timeout := s.Timeout
	if timeout <= 0 {
		timeout = provider.DefaultCallTimeout
	}
	if err := ctx.Err(); err != nil {
		yield(provider.Delta{}, ctxError(s.Provider, err, timeout))
		return
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	stopCtx, stop := context.WithCancel(ctx)
	defer stop()
	c, err := startCLI(stopCtx, s)
	if err != nil {
		yield(provider.Delta{}, &provider.ExecutionError{Provider: s.Provider, Cmd: argv, ExitCode: -1, Err: err})
		return
	}

	// Wait stops nothing by itself: it waits until the group is gone and
	// reaps the leader. A panic in a parser or in the consumer's loop body
	// must not leave the CLI running: stop it, wait, re-panic.
	defer func() {
		if v := recover(); v != nil {
			stop()
			c.proc.Wait()
			panic(v)
		}
	}()

	readDone := c.closeStdoutAfterExit()
	res := &Result{}
	res.resp.Model = s.Model
	sc := scanEvents(c.stdout, s, p, res, yield)
	close(readDone)
	if sc.broke || res.fatal || sc.err != nil {
		stop()
	}
	exit := c.proc.Wait().ShellCode()
	if sc.broke {
		return
	}
	res.resp.Provider = s.Provider
	res.resp.Content = res.content.String()
	res.resp.Command = argv
	res.resp.Duration = time.Since(start)
	o := ending{s: s, argv: argv, res: res, scan: sc, exit: exit, errOut: redact(stderrText(c.stderr), s.Secrets)}
	if ctx.Err() != nil {
		o.ctxErr = ctxError(s.Provider, ctx.Err(), timeout)
	}
	o.yield(yield)
}

// cli is a started CLI process.
type cli struct {
	proc   *procgroup.Proc
	stdout io.ReadCloser
	stderr *procgroup.HeadTail
}

// startCLI starts the CLI under a reaper of its own in a new session and
// process group (procgroup.Start with Reap): the CLI and the commands it
// runs are detached from loopforge's terminal, a signal to the group
// reaches them, and whatever left the group (setsid) is still killed by the
// reaper once the CLI has exited or is stopped. Stopping (ctx's end):
// SIGTERM to the group, then, after the grace, SIGKILL to everything.
func startCLI(ctx context.Context, s Spec) (*cli, error) {
	grace := s.Grace
	if grace <= 0 {
		grace = DefaultGrace
	}
	cmd := &exec.Cmd{Path: s.Binary, Args: append([]string{s.Binary}, s.Args...), Dir: s.Dir, Env: s.Env}
	if s.Stdin != "" {
		cmd.Stdin = strings.NewReader(s.Stdin)
	}
	c := &cli{stderr: procgroup.NewHeadTail(stderrHead, stderrTail)}
	cmd.Stderr = c.stderr
	cmd.WaitDelay = waitDelay
	var err error
	if c.stdout, err = cmd.StdoutPipe(); err != nil {
		return nil, err
	}
	if c.proc, err = procgroup.Start(ctx, cmd, procgroup.Options{Grace: grace, Reap: true}); err != nil {
		return nil, err
	}
	return c, nil
}

// closeStdoutAfterExit stops the reading once the CLI has exited and what
// is buffered has had time to be read: a process that left the group
// (setsid) can hold stdout open after the leader exited and the group was
// killed. Closing the returned channel says the reading is over.
func (c *cli) closeStdoutAfterExit() chan struct{} {
	readDone := make(chan struct{})
	go func() {
		select {
		case <-c.proc.Done():
		case <-readDone:
			return
		}
		t := time.NewTimer(waitDelay)
		defer t.Stop()
		select {
		case <-t.C:
			_ = c.stdout.Close()
		case <-readDone:
		}
	}()
	return readDone
}

// scanned is how the reading of the CLI's stdout ended.
type scanned struct {
	lines    int
	parseErr *provider.ParseError // the first malformed event
	broke    bool                 // the consumer stopped
	err      error                // a line over MaxLine
}

// scanEvents reads the CLI's JSON lines into res through p, yielding the
// answer's text as it comes, until EOF, a fatal event, an over-long line or
// the consumer's stop.
func scanEvents(stdout io.Reader, s Spec, p Parser, res *Result, yield func(provider.Delta, error) bool) scanned {
	var out scanned
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 0, 64<<10), MaxLine)
	for sc.Scan() {
		out.lines++
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		if err := readEvent(line, out.lines, s, p, res); err != nil && out.parseErr == nil {
			out.parseErr = err
		}
		for _, t := range res.takePending() {
			if !yield(provider.Delta{Text: t}, nil) {
				out.broke = true
				break
			}
		}
		if out.broke || res.fatal {
			break
		}
	}
	out.err = sc.Err()
	if out.err != nil && !errors.Is(out.err, bufio.ErrTooLong) {
		res.Warn("stopped reading the CLI's output: " + out.err.Error())
		out.err = nil
	}
	return out
}

// readEvent keeps one non-empty line of the CLI's stdout and hands a JSON
// event to p; text that is not an event is noted and skipped.
func readEvent(line []byte, n int, s Spec, p Parser, res *Result) *provider.ParseError {
	if line[0] != '{' {
		res.resp.RawEvents = append(res.resp.RawEvents, jsonString(line))
		res.Warn(fmt.Sprintf("ignored output line %d, which is not a JSON event: %q", n, excerpt(line)))
		return nil
	}
	if !json.Valid(line) {
		res.resp.RawEvents = append(res.resp.RawEvents, jsonString(line))
		var v any
		return &provider.ParseError{Provider: s.Provider, Line: n, Raw: excerpt(line), Err: json.Unmarshal(line, &v)}
	}
	raw := json.RawMessage(bytes.Clone(line))
	res.resp.RawEvents = append(res.resp.RawEvents, raw)
	if err := p.Event(raw, res); err != nil {
		return &provider.ParseError{Provider: s.Provider, Line: n, Raw: excerpt(line), Err: err}
	}
	return nil
}

// ending is everything known once the CLI is gone: it says how the call
// ended (see Run).
type ending struct {
	s      Spec
	argv   []string
	res    *Result
	scan   scanned
	exit   int
	errOut string // stderr, redacted
	ctxErr error  // the timeout or the cancellation, when ctx ended
}

func (o ending) yield(yield func(provider.Delta, error) bool) {
	res := o.res
	if res.final && res.failure == nil && !res.fatal && o.scan.err == nil && o.scan.parseErr == nil {
		if o.exit != 0 {
			res.Warn(fmt.Sprintf("the CLI exited with code %d after reporting success", o.exit))
		}
		resp := res.resp
		resp.Status = provider.StatusSuccess
		yield(provider.Delta{Done: &resp}, nil)
		return
	}
	status, err := o.failed()
	resp := res.resp
	resp.Status = status
	yield(provider.Delta{}, &provider.PartialError{Partial: &resp, Err: err})
}

// failed is the status and error of a call that did not succeed.
func (o ending) failed() (provider.Status, error) {
	res := o.res
	switch {
	case res.fatal:
		return provider.StatusError, failureError(o.s, o.argv, res.failure, o.exit, o.errOut)
	case o.scan.err != nil:
		return provider.StatusPartial, &provider.ParseError{Provider: o.s.Provider, Line: o.scan.lines + 1,
			Raw: "(a line longer than the limit; the CLI was stopped)", Err: o.scan.err}
	case !res.final && o.ctxErr != nil:
		return provider.StatusPartial, o.ctxErr
	case o.scan.parseErr != nil:
		if !res.final {
			return provider.StatusPartial, o.scan.parseErr
		}
		return provider.StatusError, o.scan.parseErr
	case res.final:
		return provider.StatusError, failureError(o.s, o.argv, res.failure, o.exit, o.errOut)
	}
	return o.noFinalEvent()
}

// noFinalEvent is the error of a CLI that ended without its final event.
func (o ending) noFinalEvent() (provider.Status, error) {
	status := provider.StatusError
	if o.res.hasOutput() {
		status = provider.StatusPartial
	}
	if o.s.Classify != nil {
		if err := o.s.Classify(o.errOut); err != nil {
			return status, err
		}
	}
	if o.s.Explain != nil {
		if code, msg := o.s.Explain(o.exit, o.errOut); code >= 400 || msg != "" {
			return status, failureError(o.s, o.argv, &failure{status: code, msg: msg}, o.exit, o.errOut)
		}
	}
	e := &provider.ExecutionError{Provider: o.s.Provider, Cmd: o.argv, ExitCode: o.exit, Stderr: o.errOut}
	if o.exit == 0 || o.res.hasOutput() {
		e.Err = provider.ErrIncomplete
	}
	return status, e
}

// failureError turns a failure the CLI reported into the error callers
// branch on: an *provider.Error when an HTTP status stands behind it, else
// an *provider.ExecutionError carrying the CLI's words.
func failureError(s Spec, argv []string, f *failure, exit int, stderr string) error {
	msg := redact(f.msg, s.Secrets)
	if s.Classify != nil {
		if err := s.Classify(msg); err != nil {
			return err
		}
	}
	if f.status >= 400 {
		e := provider.NewErrorContext(s.Provider, s.KeyEnv, "", "").FromStatus(f.status, msg, nil)
		if e.Kind == provider.KindAuth && s.AuthHint != "" {
			if e.Message != "" {
				e.Message += " — "
			}
			e.Message += s.AuthHint
		}
		return e
	}
	if msg == "" {
		msg = "no details given"
	}
	return &provider.ExecutionError{Provider: s.Provider, Cmd: argv, ExitCode: exit,
		Message: provider.NewErrorContext(s.Provider, "", "", "").Clean(msg), Stderr: stderr}
}

// ctxError reports a call stopped by its context: past its deadline, a
// KindTimeout *provider.Error; cancelled, an error wrapping
// context.Canceled (nothing failed).
func ctxError(name string, err error, timeout time.Duration) error {
	if errors.Is(err, context.DeadlineExceeded) {
		return &provider.Error{Provider: name, Kind: provider.KindTimeout,
			Message: fmt.Sprintf("no final answer within %v; the CLI was stopped", timeout), Err: err}
	}
	return fmt.Errorf("%s: call cancelled: %w", name, err)
}

func jsonString(b []byte) json.RawMessage {
	j, _ := json.Marshal(string(b))
	return j
}

// excerpt is the start of a line, cut on a rune boundary.
func excerpt(b []byte) string {
	if len(b) <= rawExcerpt {
		return string(b)
	}
	cut := rawExcerpt
	for cut > 0 && !utf8.RuneStart(b[cut]) {
		cut--
	}
	return string(b[:cut]) + "…"
}

// Redaction: keys travel only in the environment, but a CLI may echo them.
// Short values are left alone (they would only garble words).
func redact(s string, secrets []string) string {
	for _, k := range secrets {
		if len(k) >= 8 {
			s = strings.ReplaceAll(s, k, "[redacted]")
		}
	}
	return s
}

func redactAll(ss []string, secrets []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = redact(s, secrets)
	}
	return out
}

var ansi = regexp.MustCompile(`\x1b\[[0-9;?]*[ -/]*[@-~]`)

// stderrText is the kept stderr, without terminal escapes, trimmed: its
// start holds usage errors, its end the latest complaint. The end starts
// on a line.
func stderrText(b *procgroup.HeadTail) string {
	head, tail, dropped := b.Parts()
	s := string(head)
	if dropped > 0 {
		if i := bytes.IndexByte(tail, '\n'); i >= 0 && i < len(tail)-1 {
			tail = tail[i+1:]
		}
		s += "\n…\n"
	}
	s += string(tail)
	return strings.TrimSpace(ansi.ReplaceAllString(strings.ToValidUTF8(s, "�"), ""))
}
