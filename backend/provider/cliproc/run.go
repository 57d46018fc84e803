package cliproc

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"os"
	"regexp"
	"strings"
	"sync"
	"syscall"
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
	waitDelay = time.Second
	// sweepWithin bounds the wait for the rest of the group to die.
	sweepWithin = 2 * time.Second
	// reaperWithin bounds the wait for the reaper once asked to kill
	// everything (it gives up on unkillable processes after 10 s).
	reaperWithin = 15 * time.Second
	rawExcerpt   = 200 // bytes of a bad line quoted in errors
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
	grace := s.Grace
	if grace <= 0 {
		grace = DefaultGrace
	}
	if err := ctx.Err(); err != nil {
		yield(provider.Delta{}, ctxError(s.Provider, err, timeout))
		return
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	// The CLI runs under a reaper of its own (procgroup.Reap), which leads
	// a new session and process group: the CLI and the commands it runs are
	// detached from loopforge's terminal (no /dev/tty reads that stop the
	// group, no TIOCSTI keystroke injection), a signal to the group reaches
	// them, and whatever left the group (setsid) is still killed by the
	// reaper once the CLI has exited or we ask it to.
	reaped := procgroup.Reap(s.Binary, s.Args...)
	cmd := reaped.Cmd
	cmd.Dir, cmd.Env = s.Dir, s.Env
	if s.Stdin != "" {
		cmd.Stdin = strings.NewReader(s.Stdin)
	}
	stderr := &headTail{}
	cmd.Stderr = stderr
	cmd.WaitDelay = waitDelay
	stdout, err := cmd.StdoutPipe()
	if err == nil {
		err = reaped.Start()
	}
	if err != nil {
		yield(provider.Delta{}, &provider.ExecutionError{Provider: s.Provider, Cmd: argv, ExitCode: -1, Err: err})
		return
	}
	defer reaped.Kill()    // by then nothing is left: this releases the pipe
	pid := cmd.Process.Pid // the reaper's, which is the group's id

	// gone closes once the reaper has exited, so the CLI and everything it
	// started are dead, and the group is swept (a safety net): nothing a
	// CLI started outlives the call.
	gone := make(chan struct{})
	go func() {
		defer close(gone)
		_ = procgroup.WaitExit(pid)
		_ = procgroup.Sweep(pid, sweepWithin)
	}()
	stopReq := make(chan struct{})
	var stopOnce sync.Once
	stop := func() { stopOnce.Do(func() { close(stopReq) }) }
	killed := make(chan struct{})
	go func() {
		defer close(killed)
		select {
		case <-ctx.Done():
		case <-stopReq:
		case <-gone:
			return
		}
		_ = procgroup.Signal(pid, syscall.SIGTERM)
		t := time.NewTimer(grace)
		defer t.Stop()
		select {
		case <-gone:
		case <-t.C:
			// gemini's launcher, for one, ignores SIGTERM.
			reaped.Kill()
		}
		t.Reset(reaperWithin)
		select {
		case <-gone:
		case <-t.C:
			// The reaper itself does not answer: kill the group at least.
			_ = procgroup.Signal(pid, syscall.SIGKILL)
		}
	}()

	// wait stops nothing by itself: it waits until the group is gone and
	// reaps the leader. A panic in a parser or in the consumer's loop body
	// must not leave the CLI running: stop it, wait, re-panic.
	wait := sync.OnceFunc(func() {
		<-gone
		<-killed
		_ = cmd.Wait() // the exit status is in ProcessState
	})
	defer func() {
		if v := recover(); v != nil {
			stop()
			wait()
			panic(v)
		}
	}()

	// A process that left the group (setsid) can hold stdout open after the
	// leader exited and the group was killed: stop reading then, once what
	// is buffered has had time to be read.
	readDone := make(chan struct{})
	go func() {
		select {
		case <-gone:
		case <-readDone:
			return
		}
		t := time.NewTimer(waitDelay)
		defer t.Stop()
		select {
		case <-t.C:
			_ = stdout.Close()
		case <-readDone:
		}
	}()

	res := &Result{}
	res.resp.Model = s.Model
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 0, 64<<10), MaxLine)
	var (
		n        int
		parseErr *provider.ParseError
		broke    bool
	)
	for sc.Scan() {
		n++
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		if line[0] != '{' {
			// Text on stdout is not an event: noted, kept, skipped.
			res.resp.RawEvents = append(res.resp.RawEvents, jsonString(line))
			res.Warn(fmt.Sprintf("ignored output line %d, which is not a JSON event: %q", n, excerpt(line)))
			continue
		}
		if !json.Valid(line) {
			res.resp.RawEvents = append(res.resp.RawEvents, jsonString(line))
			if parseErr == nil {
				var v any
				parseErr = &provider.ParseError{Provider: s.Provider, Line: n, Raw: excerpt(line), Err: json.Unmarshal(line, &v)}
			}
			continue
		}
		raw := json.RawMessage(bytes.Clone(line))
		res.resp.RawEvents = append(res.resp.RawEvents, raw)
		if err := p.Event(raw, res); err != nil && parseErr == nil {
			parseErr = &provider.ParseError{Provider: s.Provider, Line: n, Raw: excerpt(line), Err: err}
		}
		for _, t := range res.takePending() {
			if !yield(provider.Delta{Text: t}, nil) {
				broke = true
				break
			}
		}
		if broke || res.fatal {
			break
		}
	}
	close(readDone)
	scanErr := sc.Err()
	if scanErr != nil && !errors.Is(scanErr, bufio.ErrTooLong) {
		res.Warn("stopped reading the CLI's output: " + scanErr.Error())
		scanErr = nil
	}
	if broke || res.fatal || scanErr != nil {
		stop()
	}
	wait()
	if broke {
		return
	}
	exit := exitCode(cmd.ProcessState)
	errOut := redact(stderr.String(), s.Secrets)

	res.resp.Provider = s.Provider
	res.resp.Content = res.content.String()
	res.resp.Command = argv
	res.resp.Duration = time.Since(start)
	end := func(status provider.Status, err error) {
		resp := res.resp
		resp.Status = status
		yield(provider.Delta{}, &provider.PartialError{Partial: &resp, Err: err})
	}
	switch {
	case res.fatal:
		end(provider.StatusError, failureError(s, argv, res.failure, exit, errOut))
	case scanErr != nil:
		end(provider.StatusPartial, &provider.ParseError{Provider: s.Provider, Line: n + 1,
			Raw: "(a line longer than the limit; the CLI was stopped)", Err: scanErr})
	case !res.final && ctx.Err() != nil:
		end(provider.StatusPartial, ctxError(s.Provider, ctx.Err(), timeout))
	case parseErr != nil:
		status := provider.StatusError
		if !res.final {
			status = provider.StatusPartial
		}
		end(status, parseErr)
	case res.final && res.failure == nil:
		if exit != 0 {
			res.Warn(fmt.Sprintf("the CLI exited with code %d after reporting success", exit))
		}
		resp := res.resp
		resp.Status = provider.StatusSuccess
		yield(provider.Delta{Done: &resp}, nil)
	case res.final:
		end(provider.StatusError, failureError(s, argv, res.failure, exit, errOut))
	default:
		status := provider.StatusError
		if res.hasOutput() {
			status = provider.StatusPartial
		}
		if s.Classify != nil {
			if err := s.Classify(errOut); err != nil {
				end(status, err)
				return
			}
		}
		if s.Explain != nil {
			if code, msg := s.Explain(exit, errOut); code >= 400 || msg != "" {
				end(status, failureError(s, argv, &failure{status: code, msg: msg}, exit, errOut))
				return
			}
		}
		e := &provider.ExecutionError{Provider: s.Provider, Cmd: argv, ExitCode: exit, Stderr: errOut}
		if exit == 0 || res.hasOutput() {
			e.Err = provider.ErrIncomplete
		}
		end(status, e)
	}
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

// exitCode is the exit status, or 128+n for a CLI killed by signal n (as
// shells report it).
func exitCode(ps *os.ProcessState) int {
	if ps == nil {
		return -1
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ps.ExitCode()
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

// headTail keeps the start and the end of a stream (stderr): the start holds
// usage errors, the end the latest complaint. Safe for concurrent use.
type headTail struct {
	mu      sync.Mutex
	head    []byte
	tail    []byte
	dropped bool
}

func (h *headTail) Write(p []byte) (int, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := len(p)
	if room := stderrHead - len(h.head); room > 0 {
		k := min(room, len(p))
		h.head = append(h.head, p[:k]...)
		p = p[k:]
	}
	h.tail = append(h.tail, p...)
	if over := len(h.tail) - stderrTail; over > 0 {
		h.tail = append(h.tail[:0], h.tail[over:]...)
		h.dropped = true
	}
	return n, nil
}

// String is the kept text, without terminal escapes, trimmed.
func (h *headTail) String() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	s := string(h.head)
	if h.dropped {
		t := h.tail
		if i := bytes.IndexByte(t, '\n'); i >= 0 && i < len(t)-1 {
			t = t[i+1:] // start the tail on a line
		}
		s += "\n…\n" + string(t)
	} else {
		s += string(h.tail)
	}
	return strings.TrimSpace(ansi.ReplaceAllString(strings.ToValidUTF8(s, "�"), ""))
}

// limitWriter keeps at most n bytes.
type limitWriter struct {
	w *bytes.Buffer
	n int
}

func (l *limitWriter) Write(p []byte) (int, error) {
	if room := l.n - l.w.Len(); room > 0 {
		l.w.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}
