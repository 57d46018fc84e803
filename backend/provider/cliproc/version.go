package cliproc

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/loopforge/loopforge/backend/procgroup"
	"github.com/loopforge/loopforge/backend/provider"
)

// Version runs `bin --version` (in its own process group, killed when
// ctx ends) and returns the first line it prints.
func Version(ctx context.Context, provName, bin string, env []string) (string, error) {
	cmd := exec.CommandContext(ctx, bin, "--version")
	cmd.Env = env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL}
	cmd.Cancel = func() error { _ = procgroup.Signal(cmd.Process.Pid, syscall.SIGKILL); return nil }
	cmd.WaitDelay = time.Second
	var out, errOut bytes.Buffer
	cmd.Stdout = &limitWriter{w: &out, n: 4096}
	cmd.Stderr = &limitWriter{w: &errOut, n: 4096}
	err := cmd.Run()
	if cmd.Process != nil {
		_ = procgroup.Sweep(cmd.Process.Pid, sweepWithin)
	}
	if ctx.Err() != nil {
		return "", &provider.Error{Provider: provName, Kind: provider.KindTimeout,
			Message: fmt.Sprintf("`%s --version` did not answer in time", bin), Err: ctx.Err()}
	}
	if err != nil {
		return "", &provider.ExecutionError{Provider: provName, Cmd: []string{bin, "--version"},
			ExitCode: exitCode(cmd.ProcessState), Stderr: strings.TrimSpace(errOut.String()), Err: err}
	}
	for line := range strings.SplitSeq(out.String(), "\n") {
		if line = strings.TrimSpace(line); line != "" {
			return line, nil
		}
	}
	return "", nil
}
