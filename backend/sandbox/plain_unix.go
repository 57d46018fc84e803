//go:build linux || darwin

package sandbox

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"

	"github.com/loopforge/loopforge/backend/procgroup"
)

// shimOS is the plain sandbox of macOS, level "basic": the interpreter
// runs behind the re-exec shim ("<self> __sbx_child", child_darwin.go),
// which sets the rlimits and execs it, in a process group of its own that
// the timeout and cancellation kill (procgroup). No memory rlimit: macOS
// does not enforce RLIMIT_AS (nor RLIMIT_DATA for the allocators' mmap),
// so one would promise what does not happen. Linux's tests run it too,
// with Linux's shim, which takes the same spec.
type shimOS struct {
	self string // the shim executable
	path string // PATH for the code
	lang string // LANG for the code
}

func (s *shimOS) level() string { return IsolationBasic }

func (s *shimOS) codeAsFile() bool { return false }

func (s *shimOS) interpreter(r *plainRunner, lang string, lim Limits) (interpreter, error) {
	return unixInterpreter(r.python, r.node, lang, lim)
}

func (s *shimOS) env(_ *plainRunner, wd string) []string { return unixEnv(s.path, s.lang, wd) }

// command starts the shim with the spec in its environment and the write
// end of the status pipe as fd 3 (see shim_unix.go).
func (s *shimOS) command(x *plainRun, in interpreter) error {
	spec := childSpec{Version: specVersion, Path: in.path, Args: in.args, Rlimits: baseRlimits(x.lim),
		Isolation: IsolationBasic}
	b, err := json.Marshal(spec)
	if err != nil {
		return fmt.Errorf("sandbox: encode spec: %w", err)
	}
	if x.statusR, x.statusW, err = os.Pipe(); err != nil {
		return fmt.Errorf("sandbox: status pipe: %w", err)
	}
	x.status = make(chan []byte, 1)
	cmd := exec.Command(s.self, childArg)
	cmd.ExtraFiles = []*os.File{x.statusW}
	// The code's environment is set after this: the spec joins it, and
	// the shim takes it out before exec.
	x.extraEnv = []string{specEnv + "=" + string(b)}
	x.cmd = cmd
	x.opts = procgroup.Options{SweepWithin: plainSweepWithin}
	plainReport(&x.res, x.req, Protections{}, "rlimits")
	return nil
}

// started reads the shim's report: EOF comes when it execs or dies.
func (s *shimOS) started(x *plainRun, err error) {
	_ = x.statusW.Close() // the shim holds its own copy
	x.statusW = nil
	if err != nil {
		x.status <- nil
		return
	}
	go func() {
		b, _ := io.ReadAll(x.statusR)
		x.status <- b
	}()
}

// check fails the run when the shim could not start the interpreter, or
// the executable never acted as the shim.
func (s *shimOS) check(x *plainRun, _ procgroup.Exit, killedByUs bool) error {
	status := <-x.status
	switch i := bytes.IndexByte(status, statusFail); {
	case i >= 0:
		return fmt.Errorf("%w: %s", ErrShim, status[i+1:])
	case len(status) == 0 && !killedByUs:
		return fmt.Errorf("%w: %s exited without acting as the shim (does its main call sandbox.RunChildIfRequested first?)", ErrShim, s.self)
	}
	return nil
}
