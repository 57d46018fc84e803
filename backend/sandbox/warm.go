//go:build linux

package sandbox

// Warm runs: the sandbox of the next execution is set up while the model is
// still writing its code. Prepare starts the whole chain a cold Run starts
// after the code arrives (run dir, cgroup, bubblewrap's namespaces, the
// shim's layers and rlimits, the interpreter's own start-up) and leaves the
// interpreter blocked on opening its program: a file in the run dir that is
// a symbolic link to /proc/self/fd/4, the read end of a pipe only this run
// holds. Stdin stays the program's own (Request.Stdin, or /dev/null).
// Prepared.Run hands the code over: it writes the program file for real
// (renamed over the link, so tracebacks and __file__ read the code as in a
// cold run with a file), writes the code into the pipe and closes it; the
// interpreter reads to EOF and runs it. The timeout, the caller's context
// and the live output start at the hand-over; everything else (limits,
// isolation, output caps, pictures, the final kill and clean-up) is the
// cold run's own code (execution.go).

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync"
	"time"
)

// Prepare sets up the execution of req before its code exists (req.Code,
// LiveStdout and LiveStderr are ignored): everything Run would do up to the
// interpreter's start, which then waits for its program. It returns once
// the process is started, not once the interpreter is ready; ctx's end
// kills it. The error is Run's for the same request (an unsupported
// language, a refused Dir, a sandbox that cannot start) or ctx's; the
// caller may then run cold.
func (r *Runner) Prepare(ctx context.Context, req Request) (Prepared, error) {
	req.Code, req.LiveStdout, req.LiveStderr = "", nil, nil
	if x := r.beginZygote(ctx, req, true); x != nil {
		// Forked from the zygote: every layer applied, the code's process
		// waits for its code.
		return newZygotePrepared(ctx, x), nil
	}
	if !r.warm.reserve() {
		return nil, ErrPrepareLimit
	}
	x, _, err := r.setup(ctx, req, true)
	if x == nil {
		r.warm.free()
		if err == nil { // cancelled before anything started
			err = fmt.Errorf("sandbox: prepare: %w", context.Cause(ctx))
		}
		return nil, err
	}
	if res, err, ok := x.start(ctx); !ok {
		x.release()
		r.warm.free()
		if err == nil {
			err = fmt.Errorf("sandbox: prepare: %s", res.Status)
		}
		return nil, err
	}
	r.warm.prepared.Add(1)
	return &prepared{x: x}, nil
}

type prepared struct {
	x    *execution
	once sync.Once // Run or Close, whichever comes first
}

func (p *prepared) Close() {
	p.once.Do(func() {
		defer p.x.r.warm.free()
		p.x.kill(errDiscarded)
		p.x.release()
		p.x.r.warm.discarded.Add(1)
		slog.Debug("sandbox: prepared sandbox discarded unused", "isolation", p.x.res.Isolation)
	})
}

func (p *prepared) Run(ctx context.Context, req Request) (Result, error) {
	handed := time.Now()
	res, err := Result{}, ErrPreparedUsed
	p.once.Do(func() {
		p.x.r.warm.free() // from here on it runs, or falls back: no longer idle
		res, err = p.run(ctx, req, handed)
	})
	return res, err
}

func (p *prepared) run(ctx context.Context, req Request, handed time.Time) (Result, error) {
	x, r := p.x, p.x.r
	cold := func(why string) (Result, error) {
		x.release()
		r.warm.discarded.Add(1)
		r.warm.fallbacks.Add(1)
		slog.Warn("sandbox: running cold: the prepared sandbox cannot be used", "reason", why)
		return r.Run(ctx, req)
	}
	if why := x.differs(req); why != "" {
		x.kill(errDiscarded)
		return cold(why)
	}
	select {
	case <-x.proc.Done():
		// It ended before its code came (killed, a layer that failed, a
		// broken interpreter): the code never ran, so a cold run is safe
		// and reports a failure of its own, if any.
		return cold(x.deadReason())
	default:
	}
	if ctx.Err() != nil {
		x.kill(context.Cause(ctx))
		x.release()
		r.warm.discarded.Add(1)
		res := x.res
		res.Status = StatusKilled
		return res, nil
	}
	defer x.release()
	r.warm.used.Add(1)
	x.arm(ctx, handed)
	x.startOutput(req)
	if err := x.feed(req.Code); err != nil {
		// The interpreter died or was stopped meanwhile: finish says how.
		slog.Debug("sandbox: handing the code over", "err", err)
	}
	return x.finish()
}

// differs says how req differs from what the sandbox was prepared for, ""
// when it does not.
func (x *execution) differs(req Request) string { return requestDiffers(x.req, req) }

// requestDiffers says how req differs from p, the request a sandbox was
// prepared for; "" when it does not.
func requestDiffers(p, req Request) string {
	switch {
	case req.Language != p.Language:
		return fmt.Sprintf("prepared for language %q, the code is %q", p.Language, req.Language)
	case req.Limits != p.Limits:
		return "prepared with other limits"
	case req.AllowNetwork != p.AllowNetwork:
		return "prepared with another network setting"
	case req.Dir != p.Dir:
		return "prepared for another directory"
	case !bytes.Equal(req.Stdin, p.Stdin):
		return "prepared with another standard input"
	case req.Images != p.Images:
		return "prepared with another pictures setting"
	}
	return ""
}

// deadReason waits for a warm run that ended before its hand-over to be
// gone and says why it ended.
func (x *execution) deadReason() string {
	end := x.proc.Wait()
	x.statusAfter(end)
	if i := bytes.IndexByte(x.status, statusFail); i >= 0 {
		return "it failed to start: " + string(x.status[i+1:])
	}
	if end.Signal != 0 {
		return "it was killed before its code came: " + end.Signal.String()
	}
	return fmt.Sprintf("it ended before its code came (exit %d)", end.Code)
}

// feed hands the code over: the program file becomes the program (a
// regular file renamed over the link, before the interpreter can see the
// end of the pipe), then the code goes through the pipe, whose end is the
// interpreter's signal to run it.
func (x *execution) feed(code string) error {
	tmp := x.script + ".new"
	err := os.WriteFile(tmp, []byte(code), 0o600)
	if err == nil {
		err = os.Rename(tmp, x.script)
	}
	if err != nil {
		// Not fatal: the program still comes through the pipe; tracebacks
		// just show no source lines.
		slog.Debug("sandbox: write the program file", "err", err)
	}
	_, err = io.WriteString(x.progW, code)
	if cerr := x.progW.Close(); err == nil {
		err = cerr
	}
	x.progW = nil
	return err
}

// zygotePrepared is a run prepared in the zygote (zygote_linux.go).
type zygotePrepared struct {
	x     *zygoteExec
	unarm func() bool // stops Prepare's ctx from killing it
	once  sync.Once
}

func newZygotePrepared(ctx context.Context, x *zygoteExec) *zygotePrepared {
	return &zygotePrepared{x: x, unarm: context.AfterFunc(ctx, x.kill)}
}

func (p *zygotePrepared) Close() {
	p.once.Do(func() {
		p.unarm()
		p.x.discard()
	})
}

func (p *zygotePrepared) Run(ctx context.Context, req Request) (Result, error) {
	handed := time.Now()
	res, err := Result{}, ErrPreparedUsed
	p.once.Do(func() {
		p.unarm()
		x, r := p.x, p.x.z.r
		if why := requestDiffers(x.req, req); why != "" {
			x.discard()
			slog.Warn("sandbox: running cold: the prepared sandbox cannot be used", "reason", why)
			res, err = r.Run(ctx, req)
			return
		}
		x.handOver(req.Code)
		var ok bool
		if res, err, ok = x.wait(ctx, req, handed); !ok {
			// Nothing of the code ran: fresh, or another zygote run.
			res, err = r.Run(ctx, req)
		}
	})
	return res, err
}
