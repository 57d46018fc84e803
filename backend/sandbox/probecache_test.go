//go:build linux

package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeProber counts the costly probes; its key is whatever the test sets.
type fakeProber struct {
	key    probeKey
	probes int
}

func (f *fakeProber) prober() prober {
	return prober{
		key:     func() (probeKey, error) { return f.key, nil },
		cgroups: func() (*cgroupManager, CgroupHost) { return nil, CgroupHost{Version: "v2", Kill: true} },
		features: func(h *Host) {
			f.probes++
			h.Seccomp, h.LandlockABI, h.Namespaces = true, f.probes, true // LandlockABI tells probes apart
			h.Bwrap, h.BwrapOK = "/usr/bin/bwrap", true
		},
	}
}

func newFakeProber() *fakeProber {
	return &fakeProber{key: probeKey{Format: probeCacheFormat, BootID: "boot-1", EUID: 1000,
		Exe:   fileID{Path: "/opt/loopforge", Size: 100, MTime: 1, Dev: 1, Ino: 10},
		Bwrap: fileID{Path: "/usr/bin/bwrap", Size: 7, MTime: 2, Dev: 1, Ino: 11}, UserNS: "100,-,-"}}
}

func TestProbeCache(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cache") // created on first write
	f := newFakeProber()
	p := f.prober()
	probe := func(o ProbeOptions) *Host {
		t.Helper()
		o.CacheDir = dir
		h := p.probe(nil, o)
		if h.Cgroup.Version != "v2" {
			t.Fatalf("the cgroups are not this process's own: %+v", h.Cgroup)
		}
		return h
	}
	// abi: which probe's answer h carries (the fake numbers them).
	expectFrom := func(what string, h *Host, probes int, cached bool, abi int) {
		t.Helper()
		if f.probes != probes || h.Cached != cached || h.LandlockABI != abi || !h.BwrapOK {
			t.Fatalf("%s: %d probes (want %d), cached %v (want %v), host %+v", what, f.probes, probes, h.Cached, cached, h)
		}
	}
	expect := func(what string, h *Host, probes int, cached bool) {
		t.Helper()
		expectFrom(what, h, probes, cached, probes)
	}

	expect("first call", probe(ProbeOptions{}), 1, false)
	expect("second call", probe(ProbeOptions{}), 1, true)
	expect("third call", probe(ProbeOptions{}), 1, true)

	f.key.Exe.MTime = 2 // a new build at the same path
	expect("new binary", probe(ProbeOptions{}), 2, false)
	expect("after the new binary", probe(ProbeOptions{}), 2, true)

	f.key.BootID = "boot-2"
	expect("new boot", probe(ProbeOptions{}), 3, false)
	expect("after the new boot", probe(ProbeOptions{}), 3, true)

	f.key.Bwrap = fileID{} // bwrap uninstalled
	expect("bwrap changed", probe(ProbeOptions{}), 4, false)
	f.key.UserNS = "0,-,-" // user namespaces switched off
	expect("sysctl changed", probe(ProbeOptions{}), 5, false)
	f.key.EUID = 0
	expect("another user", probe(ProbeOptions{}), 6, false)

	expect("fresh", probe(ProbeOptions{Fresh: true}), 7, false)
	expect("after fresh", probe(ProbeOptions{}), 7, true)

	file := probeCacheFile(dir, f.key.Exe.Path)
	for _, corrupt := range []string{"", "{", "null", `{"key":{}}`, `{"key":` + strings.Repeat("[", 100), "\x00\xff"} {
		if err := os.WriteFile(file, []byte(corrupt), 0o600); err != nil {
			t.Fatal(err)
		}
		n := f.probes
		expect("corrupt cache "+corrupt, probe(ProbeOptions{}), n+1, false)
		expect("after a corrupt cache", probe(ProbeOptions{}), n+1, true)
	}

	// Another binary path has its own file: the CLI and desktop builds,
	// used in turn, do not evict each other.
	exe := f.key.Exe
	f.key.Exe = fileID{Path: "/opt/loopforge-desktop", Size: 200, MTime: 1, Dev: 1, Ino: 12}
	n := f.probes
	expect("the other binary", probe(ProbeOptions{}), n+1, false)
	f.key.Exe = exe
	expectFrom("the first binary again", probe(ProbeOptions{}), n+1, true, n)

	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			t.Errorf("a temporary file was left behind: %s", e.Name())
		}
		if fi, _ := e.Info(); fi.Mode().Perm() != 0o600 {
			t.Errorf("%s has mode %v, want 0600", e.Name(), fi.Mode().Perm())
		}
	}
}

func TestProbeCacheOff(t *testing.T) {
	f := newFakeProber()
	p := f.prober()
	for i := 1; i <= 2; i++ {
		if h := p.probe(nil, ProbeOptions{}); h.Cached || f.probes != i {
			t.Fatalf("without a cache dir every call probes: %d probes after %d calls", f.probes, i)
		}
	}
}

// A process that already has an answer keeps its cgroups when --fresh
// probes again (the first probe may have moved it into a leaf cgroup).
func TestFreshProbeKeepsTheProcessCgroups(t *testing.T) {
	f := newFakeProber()
	p := f.prober()
	prev := p.probe(nil, ProbeOptions{CacheDir: t.TempDir()})
	prev.Cgroup = CgroupHost{Version: "v2", Pids: true}
	p.cgroups = func() (*cgroupManager, CgroupHost) {
		t.Fatal("the cgroups were probed twice")
		return nil, CgroupHost{}
	}
	h := p.probe(prev, ProbeOptions{CacheDir: t.TempDir(), Fresh: true})
	if !h.Cgroup.Pids || f.probes != 2 {
		t.Fatalf("cgroups %+v, %d probes", h.Cgroup, f.probes)
	}
}

func TestCurrentProbeKey(t *testing.T) {
	if _, err := os.Stat("/proc/sys/kernel/random/boot_id"); err != nil {
		t.Skip("no boot id here")
	}
	k, err := currentProbeKey()
	if err != nil {
		t.Fatal(err)
	}
	exe, _ := os.Executable()
	if k.BootID == "" || k.Exe.Path != exe || k.Exe.Size == 0 || k.Exe.Ino == 0 || k.EUID != os.Geteuid() || strings.Count(k.UserNS, ",") != 2 {
		t.Fatalf("key %+v", k)
	}
	if k2, _ := currentProbeKey(); k2 != k {
		t.Fatalf("the key is not stable: %+v then %+v", k, k2)
	}
}

// The real probe, cached: the second process-level answer comes from disk
// and carries the same features.
func TestProbeCachedReal(t *testing.T) {
	dir := t.TempDir()
	key, err := currentProbeKey()
	if err != nil {
		t.Skip(err)
	}
	first := realProbe.probe(nil, ProbeOptions{CacheDir: dir})
	if _, ok := readProbeCache(probeCacheFile(dir, key.Exe.Path), key); !ok {
		t.Fatal("the probe was not cached")
	}
	second := realProbe.probe(first, ProbeOptions{CacheDir: dir})
	if !second.Cached || second.BwrapOK != first.BwrapOK || second.Namespaces != first.Namespaces ||
		second.LandlockABI != first.LandlockABI || second.Seccomp != first.Seccomp || !second.ProbedAt.Equal(first.ProbedAt) {
		t.Fatalf("cached %+v\nfirst  %+v", second, first)
	}
}
