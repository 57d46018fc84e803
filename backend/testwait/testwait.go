// Package testwait is the one way tests wait for a condition: poll it, and
// fail only when it has not held for a time no healthy run gets near (so a
// loaded machine slows a test down but never fails it). Imported by tests
// only.
package testwait

import (
	"testing"
	"time"
)

// Until polls cond every millisecond or so until it holds; the test fails
// naming what after within.
func Until(tb testing.TB, what string, within time.Duration, cond func() bool) {
	tb.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			tb.Fatalf("gave up after %s waiting for %s", within, what)
		}
		time.Sleep(time.Millisecond) // the poll interval, not a wait for anything
	}
}
