package sandbox

import (
	"context"
	"errors"
	"sync/atomic"
)

// Prepared is an execution set up ahead of its code by [Runner.Prepare].
// Exactly one of Run or Close ends it; Close after Run does nothing. The
// two must not be called concurrently. It is an interface so that a
// wrapper of the executor (the class's execution queue) can add to Run.
type Prepared interface {
	// Run runs req.Code in the prepared sandbox and reports it as
	// [Runner.Run] does; req's other fields must be those given to
	// Prepare, apart from LiveStdout and LiveStderr, which are taken from
	// here. When the prepared sandbox cannot be used (it ended before its
	// code came, or req differs), Run runs req cold and logs why.
	Run(ctx context.Context, req Request) (Result, error)
	// Close tears an unused prepared sandbox down: its processes killed,
	// its cgroup and directories removed. It returns once the processes
	// are gone; the removals finish in the background ([Runner.Wait]).
	Close()
}

// ErrPreparedUsed is returned by Prepared.Run on a sandbox already run or
// closed.
var ErrPreparedUsed = errors.New("sandbox: prepared sandbox already used or closed")

// errDiscarded stops a prepared sandbox that is not used.
var errDiscarded = errors.New("sandbox: prepared sandbox discarded")

// ErrPrepareLimit is Prepare's error when Options.MaxPrepared sandboxes are
// prepared and not yet used or closed: the execution runs cold.
var ErrPrepareLimit = errors.New("sandbox: as many sandboxes prepared as allowed")

// WarmStats count a Runner's prepared sandboxes since it was made.
type WarmStats struct {
	Prepared  int64 // started by Prepare
	Used      int64 // handed their code by Prepared.Run
	Discarded int64 // torn down unused (Close, or a Run that could not use them)
	Fallbacks int64 // Prepared.Run calls that ran the code cold instead
	Refused   int64 // Prepare calls refused at MaxPrepared (ErrPrepareLimit)
	Live      int64 // prepared now, not yet used or closed
}

// warmCounters back WarmStats and the MaxPrepared bound; shared by copies
// of a Runner.
type warmCounters struct {
	prepared, used, discarded, fallbacks, refused atomic.Int64
	live                                          atomic.Int64
	max                                           int64
}

// WarmStats reports the prepared sandboxes so far.
func (r *Runner) WarmStats() WarmStats {
	c := r.warm
	return WarmStats{Prepared: c.prepared.Load(), Used: c.used.Load(), Discarded: c.discarded.Load(),
		Fallbacks: c.fallbacks.Load(), Refused: c.refused.Load(), Live: c.live.Load()}
}

// reserve takes one of the MaxPrepared places; free gives it back.
func (c *warmCounters) reserve() bool {
	if c.live.Add(1) > c.max {
		c.live.Add(-1)
		c.refused.Add(1)
		return false
	}
	return true
}

func (c *warmCounters) free() { c.live.Add(-1) }

// ErrNoWarmStart is Prepare's error where a sandbox cannot be set up ahead
// of its code (on Windows and macOS every execution starts cold): the
// execution runs cold, as with ErrPrepareLimit.
var ErrNoWarmStart = errors.New("sandbox: no warm start on this system")
