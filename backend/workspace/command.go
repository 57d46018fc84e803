package workspace

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/loopforge/loopforge/backend/procgroup"
)

// CommandResult is how one shell command ended.
type CommandResult struct {
	Command   string        `json:"command"`
	ExitCode  int           `json:"exit_code"` // -1 when killed or not started
	Stdout    string        `json:"stdout"`
	Stderr    string        `json:"stderr"`
	Truncated bool          `json:"truncated,omitempty"`
	TimedOut  bool          `json:"timed_out,omitempty"`
	Duration  time.Duration `json:"duration"`
}

// OK reports a zero exit.
func (r CommandResult) OK() bool { return r.ExitCode == 0 && !r.TimedOut }

// Describe is one line for a user or a model.
func (r CommandResult) Describe() string {
	switch {
	case r.TimedOut:
		return fmt.Sprintf("`%s` timed out after %s", r.Command, r.Duration.Round(time.Millisecond))
	case r.ExitCode == 0:
		return fmt.Sprintf("`%s` passed", r.Command)
	default:
		return fmt.Sprintf("`%s` failed with exit code %d", r.Command, r.ExitCode)
	}
}

// CommandRunner runs a shell command in a directory inside the workspace.
type CommandRunner interface {
	RunCommand(ctx context.Context, dir, command string, stdin []byte) (CommandResult, error)
}

// ExecRunner runs commands with /bin/sh -c in the workdir, in their own
// process group that is killed on timeout, cancellation and exit, with a
// scrubbed environment and capped output.
//
// It is the unsandboxed choice (loopforge.yml `workspace: {sandbox: false}`)
// for projects whose tests need the user's own toolchains and caches; by
// default loop.SandboxCommands runs commands in the sandbox instead.
type ExecRunner struct {
	Timeout   time.Duration // per command; default 5 minutes
	MaxOutput int           // bytes kept per stream (head + tail); default 256 KiB
	// Env, when non-nil, is the exact environment. Otherwise the parent's is
	// used minus anything that looks like a secret.
	Env []string
}

const (
	defaultCommandTimeout = 5 * time.Minute
	defaultMaxOutput      = 256 << 10
)

// RunCommand runs command; err is set only when it could not be started. A
// failing command is a CommandResult with a nonzero ExitCode.
func (x ExecRunner) RunCommand(ctx context.Context, dir, command string, stdin []byte) (CommandResult, error) {
	timeout := x.Timeout
	if timeout <= 0 {
		timeout = defaultCommandTimeout
	}
	limit := x.MaxOutput
	if limit <= 0 {
		limit = defaultMaxOutput
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	cmd := exec.Command("/bin/sh", "-c", command)
	cmd.Dir = dir
	cmd.Env = x.Env
	if cmd.Env == nil {
		cmd.Env = scrubbedEnv()
	}
	cmd.Stdin = bytes.NewReader(stdin)
	half := limit / 2
	stdout, stderr := procgroup.NewHeadTail(half, limit-half), procgroup.NewHeadTail(half, limit-half)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.WaitDelay = 2 * time.Second

	res := CommandResult{Command: command, ExitCode: -1}
	// In a process group of its own under a reaper, killed as a whole on
	// timeout, cancellation and exit: a test runner's children die with
	// it, also those that left the group with setsid (a dev server that
	// daemonises) — this path runs outside the sandbox (sandbox: false).
	p, err := procgroup.Start(ctx, cmd, procgroup.Options{SweepWithin: time.Second, Reap: true})
	if err != nil {
		return res, fmt.Errorf("starting %q: %w", command, err)
	}
	end := p.Wait()
	res.Duration = end.Duration
	res.Stdout, res.Stderr = stdout.Text(omittedMark), stderr.Text(omittedMark)
	res.Truncated = stdout.Dropped() > 0 || stderr.Dropped() > 0
	var ee *exec.ExitError
	switch err := end.Err; {
	case err == nil:
		res.ExitCode = 0
	case end.TimedOut:
		res.TimedOut = true
	case errors.As(err, &ee):
		res.ExitCode = ee.ExitCode()
	case errors.Is(err, exec.ErrWaitDelay):
		res.ExitCode = 0 // exited; a process that left the group held the pipes
	default:
		return res, fmt.Errorf("running %q: %w", command, err)
	}
	if ctx.Err() != nil && !res.TimedOut {
		return res, ctx.Err()
	}
	return res, nil
}

// omittedMark stands between the head and the tail of a command's output.
const omittedMark = "\n… [%d bytes omitted] …\n"

// WithEnv returns a copy that also passes kv (NAME=value) to the command.
func (x ExecRunner) WithEnv(kv ...string) CommandRunner {
	env := x.Env
	if env == nil {
		env = scrubbedEnv()
	}
	x.Env = append(append([]string(nil), env...), kv...)
	return x
}

// secretWords mark environment variables that are never passed on.
var secretWords = []string{"KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL"}

func scrubbedEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		up := strings.ToUpper(name)
		secret := false
		for _, w := range secretWords {
			if strings.Contains(up, w) {
				secret = true
				break
			}
		}
		if !secret {
			env = append(env, kv)
		}
	}
	return env
}
