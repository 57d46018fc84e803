package cliproc

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"time"

	"github.com/loopforge/loopforge/backend/procgroup"
	"github.com/loopforge/loopforge/backend/provider"
)

// Version runs `bin --version` (in its own process group, killed when
// ctx ends) and returns the first line it prints.
func Version(ctx context.Context, provName, bin string, env []string) (string, error) {
	cmd := exec.Command(bin, "--version")
	cmd.Env = env
	dieWithParent(cmd)
	cmd.WaitDelay = time.Second
	out, errOut := procgroup.NewHeadTail(4096, 0), procgroup.NewHeadTail(4096, 0)
	cmd.Stdout, cmd.Stderr = out, errOut
	var x procgroup.Exit
	p, err := procgroup.Start(ctx, cmd, procgroup.Options{})
	if err == nil {
		x = p.Wait()
		err = x.Err
	}
	if ctx.Err() != nil {
		return "", &provider.Error{Provider: provName, Kind: provider.KindTimeout,
			Message: fmt.Sprintf("`%s --version` did not answer in time", bin), Err: ctx.Err()}
	}
	if err != nil {
		return "", &provider.ExecutionError{Provider: provName, Cmd: []string{bin, "--version"},
			ExitCode: x.ShellCode(), Stderr: strings.TrimSpace(string(errOut.Head())), Err: err}
	}
	for line := range strings.SplitSeq(string(out.Head()), "\n") {
		if line = strings.TrimSpace(line); line != "" {
			return line, nil
		}
	}
	return "", nil
}
