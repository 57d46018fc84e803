package sandbox

import (
	"sync"
	"sync/atomic"
	"testing"
)

// wait returns only once every removal started before it has finished,
// and may be called while other removals start (parallel runs, each
// waiting for its own clean-up).
func TestCleanupsWait(t *testing.T) {
	c := newCleanups()
	release := make(chan struct{})
	var finished atomic.Int32
	for range 3 {
		c.goRemove(func() {
			<-release
			finished.Add(1)
		})
	}
	waited := make(chan struct{})
	go func() {
		c.wait()
		close(waited)
	}()
	select {
	case <-waited:
		t.Fatal("wait returned while three removals were under way")
	default:
	}
	close(release)
	<-waited
	if n := finished.Load(); n != 3 {
		t.Fatalf("wait returned after %d of 3 removals", n)
	}

	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 100 {
				c.goRemove(func() {})
				c.wait()
			}
		})
	}
	wg.Wait()
	c.wait()
}
