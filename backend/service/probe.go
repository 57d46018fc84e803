package service

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/loopforge/loopforge/backend/provider"
)

// probeTTL is how long a profile's check (a coding CLI's `--version`, a
// keyless endpoint's answer) is reused by the provider list.
const probeTTL = 30 * time.Second

// probes caches, per profile, what its check found, for probeTTL. A result
// holds only for the profile as it was checked (a changed configuration
// checks again), and a key rejection of the profile drops it. Callers asking
// while a check of the same profile runs wait for that one.
type probes struct {
	mu       sync.Mutex
	results  map[string]probeResult // by profile name
	gen      map[string]uint64      // by profile name; forget bumps it
	inflight map[probeKey]*probeCall
	now      func() time.Time // nil = time.Now (tests move the clock)
}

type probeKey struct {
	name  string
	print [sha256.Size]byte
	gen   uint64
}

type probeResult struct {
	print   [sha256.Size]byte
	version string
	err     error
	at      time.Time
}

// probeCall is one check in progress; done is closed when it has ended.
type probeCall struct {
	done    chan struct{}
	waiters int // callers waiting for it (tests look)
	version string
	err     error
}

// profilePrint identifies a profile as configured: every field, the key
// included (hashed, so no copy of the key is kept).
func profilePrint(p provider.Profile) [sha256.Size]byte {
	b, _ := json.Marshal(p) // a Profile always marshals
	return sha256.Sum256(append(append(b, 0), p.APIKey...))
}

func (pc *probes) clock() time.Time {
	if pc.now != nil {
		return pc.now()
	}
	return time.Now()
}

// check returns what c's check says about profile p: from the cache when it
// is fresh, else from a check shared with concurrent callers. The check
// itself runs within checkTimeout whatever ctx does; a caller whose ctx ends
// first stops waiting (and the result is kept for the next).
func (pc *probes) check(ctx context.Context, p provider.Profile, c checker) (string, error) {
	fp := profilePrint(p)
	pc.mu.Lock()
	if r, ok := pc.results[p.Name]; ok && r.print == fp && pc.clock().Sub(r.at) < probeTTL {
		pc.mu.Unlock()
		return r.version, r.err
	}
	key := probeKey{name: p.Name, print: fp, gen: pc.gen[p.Name]}
	call := pc.inflight[key]
	if call == nil {
		if pc.inflight == nil {
			pc.inflight = map[probeKey]*probeCall{}
		}
		call = &probeCall{done: make(chan struct{})}
		pc.inflight[key] = call
		go pc.run(context.WithoutCancel(ctx), key, c, call)
	}
	call.waiters++
	pc.mu.Unlock()

	select {
	case <-call.done:
		return call.version, call.err
	case <-ctx.Done():
		pc.mu.Lock()
		call.waiters--
		pc.mu.Unlock()
		return "", fmt.Errorf("check not finished: %w", context.Cause(ctx))
	}
}

// run performs one check and records it, unless the profile was forgotten
// meanwhile (the result may predate what made it stale).
func (pc *probes) run(ctx context.Context, key probeKey, c checker, call *probeCall) {
	ctx, cancel := context.WithTimeout(ctx, checkTimeout)
	defer cancel()
	func() {
		defer func() {
			if v := recover(); v != nil {
				call.version, call.err = "", fmt.Errorf("check failed: %v", v)
			}
		}()
		call.version, call.err = c.Check(ctx)
	}()
	pc.mu.Lock()
	defer pc.mu.Unlock()
	if pc.gen[key.name] == key.gen {
		if pc.results == nil {
			pc.results = map[string]probeResult{}
		}
		pc.results[key.name] = probeResult{print: key.print, version: call.version, err: call.err, at: pc.clock()}
	}
	delete(pc.inflight, key)
	close(call.done)
}

// forget drops what is known about the profile: the next list checks it
// again, and a check still running is not recorded.
func (pc *probes) forget(name string) {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	delete(pc.results, name)
	if pc.gen == nil {
		pc.gen = map[string]uint64{}
	}
	pc.gen[name]++
}

// forgetAll is forget for every profile (the configuration was read again).
func (pc *probes) forgetAll() {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	if pc.gen == nil {
		pc.gen = map[string]uint64{}
	}
	for name := range pc.results {
		pc.gen[name]++
	}
	for key := range pc.inflight {
		pc.gen[key.name]++
	}
	clear(pc.results)
}
