package sandbox

import "sync"

// cleanups counts the removals of ended runs' cgroups and directories,
// which go on after Run has returned. Unlike a sync.WaitGroup it may be
// waited for while new removals start (runs in parallel, each caller
// waiting for what has ended so far): wait returns at a moment when none is
// under way.
type cleanups struct {
	mu   sync.Mutex
	n    int
	idle *sync.Cond
}

func newCleanups() *cleanups {
	c := &cleanups{}
	c.idle = sync.NewCond(&c.mu)
	return c
}

// goRemove runs f in the background, counted; at once on a nil c (a Runner
// made by hand, as doctor's).
func (c *cleanups) goRemove(f func()) {
	if c == nil {
		f()
		return
	}
	c.mu.Lock()
	c.n++
	c.mu.Unlock()
	go func() {
		defer c.done()
		f()
	}()
}

func (c *cleanups) done() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n--; c.n == 0 {
		c.idle.Broadcast()
	}
}

func (c *cleanups) wait() {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for c.n > 0 {
		c.idle.Wait()
	}
}
