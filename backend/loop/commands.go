package loop

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/loopforge/loopforge/backend/event"
	"github.com/loopforge/loopforge/backend/sandbox"
	"github.com/loopforge/loopforge/backend/workspace"
)

// SandboxCommands runs workspace commands (validation, run_command, user
// tools) in the sandbox with the project folder writable, so a model's
// command is held to the same rules as its generated scripts: no network
// unless allowed, the rest of the user's files out of reach, limits, and
// the whole process tree killed at the end.
type SandboxCommands struct {
	Exec         Executor
	Limits       sandbox.Limits // Timeout bounds one command
	AllowNetwork bool
	// Env is exported to the command (as shell assignments before it: the
	// sandbox rebuilds the environment from scratch).
	Env []string
	// Warn, when set, is told about each sandbox warning once.
	Warn func(event.ExecNote)

	warned map[string]bool // shared with WithEnv copies: told once per run
}

// NewSandboxCommands returns a runner for one run's commands.
func NewSandboxCommands(x Executor, limits sandbox.Limits, allowNetwork bool, warn func(event.ExecNote)) *SandboxCommands {
	return &SandboxCommands{Exec: x, Limits: limits, AllowNetwork: allowNetwork, Warn: warn, warned: map[string]bool{}}
}

// RunCommand implements workspace.CommandRunner.
func (x *SandboxCommands) RunCommand(ctx context.Context, dir, command string, stdin []byte) (workspace.CommandResult, error) {
	script := command
	if len(x.Env) > 0 {
		var b strings.Builder
		for _, kv := range x.Env {
			name, value, _ := strings.Cut(kv, "=")
			fmt.Fprintf(&b, "export %s=%s\n", name, shellQuote(value))
		}
		script = b.String() + command
	}
	res, err := x.Exec.Run(ctx, sandbox.Request{Language: "sh", Code: script, Dir: dir, Stdin: stdin,
		Limits: x.Limits, AllowNetwork: x.AllowNetwork})
	out := workspace.CommandResult{Command: command, ExitCode: res.ExitCode, Stdout: res.Stdout, Stderr: res.Stderr,
		Truncated: res.Truncated, Duration: res.Duration}
	if err != nil {
		var de *sandbox.DirError
		if errors.As(err, &de) {
			return out, fmt.Errorf("%w: %w", ErrInvalidSettings, err)
		}
		return out, fmt.Errorf("running %q in the sandbox: %w", command, err)
	}
	for _, n := range res.Notes {
		x.warn(n)
	}
	switch res.Status {
	case sandbox.StatusOK:
	case sandbox.StatusTimeout:
		out.TimedOut, out.ExitCode = true, -1
	case sandbox.StatusKilled:
		return out, ctx.Err()
	case sandbox.StatusError:
		if res.Signal == "" {
			break // a nonzero exit says it all
		}
		fallthrough
	default: // a signal, or the output or memory limit: tell the model why
		out.ExitCode = -1
		if out.Stderr != "" && !strings.HasSuffix(out.Stderr, "\n") {
			out.Stderr += "\n"
		}
		out.Stderr += "loopforge: " + res.Description()
	}
	return out, nil
}

// warn tells Warn about n the first time it is seen in this run.
func (x *SandboxCommands) warn(n event.ExecNote) {
	w := sandbox.English(n)
	if x.Warn == nil || x.warned[w] {
		return
	}
	x.warned[w] = true
	x.Warn(n)
}

// WithEnv returns a copy that also exports kv (NAME=value) to the command.
func (x *SandboxCommands) WithEnv(kv ...string) workspace.CommandRunner {
	c := &SandboxCommands{Exec: x.Exec, Limits: x.Limits, AllowNetwork: x.AllowNetwork, Warn: x.Warn, warned: x.warned}
	c.Env = append(append([]string(nil), x.Env...), kv...)
	return c
}

// shellQuote makes s one single-quoted sh word.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
