package service

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/loopforge/loopforge/backend/provider"
)

// probedModel counts its checks; a check waits for release when it is set.
type probedModel struct {
	checks  *atomic.Int32
	release chan struct{}
}

func (probedModel) Name() string                        { return "probed" }
func (probedModel) Capabilities() provider.Capabilities { return provider.Capabilities{} }
func (probedModel) Stream(context.Context, provider.Request) iter.Seq2[provider.Delta, error] {
	return func(yield func(provider.Delta, error) bool) {
		yield(provider.Delta{}, fmt.Errorf("probed: not logged in: %w", provider.ErrAuth))
	}
}
func (m probedModel) Check(ctx context.Context) (string, error) {
	n := m.checks.Add(1)
	if m.release != nil {
		select {
		case <-m.release:
		case <-ctx.Done():
			return "", ctx.Err()
		}
	}
	return fmt.Sprintf("v%d", n), nil
}

// probedService has one profile, "p", whose checks m counts, and a clock the
// test moves.
func probedService(t *testing.T, m probedModel) (*Service, *time.Time) {
	t.Helper()
	cfg := loadConfig(t, t.TempDir(), t.TempDir())
	cfg.Profiles = map[string]provider.Profile{"p": {Name: "p", Kind: "probed", Model: "m1"}}
	cfg.Order = []string{"p"}
	reg := provider.Registry{"probed": func(provider.Profile) (provider.Provider, error) { return m, nil }}
	s := &Service{reg: reg}
	s.cfg.Store(cfg)
	now := time.Now()
	s.probes.now = func() time.Time { return now }
	return s, &now
}

func onlyStatus(t *testing.T, list []ProviderStatus) ProviderStatus {
	t.Helper()
	if len(list) != 1 {
		t.Fatalf("%d profiles listed", len(list))
	}
	return list[0]
}

// waiting is how many callers wait for a running check.
func (pc *probes) waiting() int {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	n := 0
	for _, c := range pc.inflight {
		n += c.waiters
	}
	return n
}

// The provider list checks a profile again only when its last check is
// older than probeTTL, when the profile changed, or when its key was
// rejected; the rejection shows at once.
func TestProvidersReuseChecks(t *testing.T) {
	var checks atomic.Int32
	m := probedModel{checks: &checks}
	s, now := probedService(t, m)
	ctx := context.Background()
	want := func(version string, n int32) ProviderStatus {
		t.Helper()
		st := onlyStatus(t, s.ProvidersContext(ctx))
		if !st.Available || st.Version != version || checks.Load() != n {
			t.Fatalf("%+v after %d checks; want version %s after %d", st, checks.Load(), version, n)
		}
		return st
	}
	want("v1", 1)
	want("v1", 1)
	*now = now.Add(probeTTL - time.Second)
	want("v1", 1)
	*now = now.Add(time.Second)
	want("v2", 2)

	// A changed profile is checked again.
	p := s.conf().Profiles["p"]
	p.Model = "m2"
	s.conf().Profiles["p"] = p
	want("v3", 3)
	want("v3", 3)
	p.APIKey = "new key"
	s.conf().Profiles["p"] = p
	want("v4", 4)

	// A rejected key shows in the very next list, which checks again.
	for range s.watch(p, m).Stream(ctx, provider.Request{}) {
	}
	if st := want("v5", 5); st.KeyRejected == nil || !strings.Contains(st.KeyRejected.Message, "not logged in") {
		t.Fatalf("key rejection not shown: %+v", st)
	}
	want("v5", 5)
}

// Callers listing the providers together share one check.
func TestProvidersShareOneCheck(t *testing.T) {
	var checks atomic.Int32
	release := make(chan struct{})
	s, _ := probedService(t, probedModel{checks: &checks, release: release})
	const callers = 4
	got := make([][]ProviderStatus, callers)
	var wg sync.WaitGroup
	for i := range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i] = s.ProvidersContext(context.Background())
		}()
	}
	waitFor(t, "every caller to wait for the check", func() bool { return s.probes.waiting() == callers })
	close(release)
	wg.Wait()
	for i, list := range got {
		if st := onlyStatus(t, list); !st.Available || st.Version != "v1" {
			t.Errorf("caller %d: %+v", i, st)
		}
	}
	if n := checks.Load(); n != 1 {
		t.Fatalf("%d checks", n)
	}
}

// A caller whose context ends stops waiting; the check goes on and is
// reused, unless the profile was forgotten (its key rejected) meanwhile.
func TestProvidersContextEndsTheWait(t *testing.T) {
	var checks atomic.Int32
	release := make(chan struct{})
	s, _ := probedService(t, probedModel{checks: &checks, release: release})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan []ProviderStatus)
	go func() { done <- s.ProvidersContext(ctx) }()
	waitFor(t, "the caller to wait for the check", func() bool { return s.probes.waiting() == 1 })
	cancel()
	if st := onlyStatus(t, <-done); st.Available || !strings.Contains(st.Reason, "check not finished") || !errors.Is(ctx.Err(), context.Canceled) {
		t.Fatalf("cancelled caller: %+v", st)
	}
	waitFor(t, "nobody waiting", func() bool { return s.probes.waiting() == 0 })
	close(release)
	waitFor(t, "the check to end", func() bool {
		s.probes.mu.Lock()
		defer s.probes.mu.Unlock()
		return len(s.probes.inflight) == 0
	})
	if st := onlyStatus(t, s.Providers()); st.Version != "v1" || checks.Load() != 1 {
		t.Fatalf("the finished check is not reused: %+v after %d checks", st, checks.Load())
	}

	// A check that was running when the profile was forgotten is not kept.
	var checks2 atomic.Int32
	block := make(chan struct{})
	s2, _ := probedService(t, probedModel{checks: &checks2, release: block})
	go func() { done <- s2.Providers() }()
	waitFor(t, "the check to start", func() bool { return s2.probes.waiting() == 1 })
	s2.probes.forget("p")
	close(block)
	if st := onlyStatus(t, <-done); st.Version != "v1" {
		t.Fatalf("the caller that waited: %+v", st)
	}
	if st := onlyStatus(t, s2.Providers()); st.Version != "v2" || checks2.Load() != 2 {
		t.Fatalf("a check older than the rejection was kept: %+v after %d checks", st, checks2.Load())
	}
}
