//go:build linux

package sandbox

// The probe cache. Learning what the kernel and bwrap offer costs a few
// processes (bwrap three times, sh twice: 40 to 600 ms), and the answer only
// changes when the machine reboots or loopforge is replaced, so it is kept in
// the user's cache directory, keyed by both:
//
//   - the boot (/proc/sys/kernel/random/boot_id): a new kernel, new sysctls;
//   - this binary (path, size, modification time, device and inode): a new
//     loopforge may probe differently.
//
// And, because they change what the probe finds without a reboot, the
// effective uid, the bwrap it would try (its identity again), the sysctls
// that allow or forbid unprivileged user namespaces and AppArmor's policy
// revision (loading a profile that lets bwrap create them, the doctor's fix
// on Ubuntu 24.04+, changes it). A cache that does not
// match, or cannot be read or parsed, is probed again and rewritten. The
// cgroups are never cached: what this process may create depends on where it
// runs, and probing them is cheap. `loopforge doctor --fresh` re-probes.

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// probeCacheFormat changes when the file's layout does (2: why bwrap and
// the namespaces are blocked, and the user namespace sysctls).
const probeCacheFormat = 2

// probeKey is what the cached answer depends on.
type probeKey struct {
	Format int    `json:"format"`
	BootID string `json:"boot_id"`
	Exe    fileID `json:"exe"`
	EUID   int    `json:"euid"`
	Bwrap  fileID `json:"bwrap"` // zero when there is none to try
	UserNS string `json:"userns"`
	// AppArmor is the policy revision, "-" without AppArmor.
	AppArmor string `json:"apparmor"`
}

// appArmorRevision counts AppArmor policy loads and replacements.
const appArmorRevision = "/sys/kernel/security/apparmor/revision"

// fileID identifies a file's content without reading it.
type fileID struct {
	Path  string `json:"path,omitempty"`
	Size  int64  `json:"size,omitempty"`
	MTime int64  `json:"mtime_ns,omitempty"`
	Dev   uint64 `json:"dev,omitempty"`
	Ino   uint64 `json:"ino,omitempty"`
}

func identify(path string) (fileID, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return fileID{}, err
	}
	id := fileID{Path: path, Size: fi.Size(), MTime: fi.ModTime().UnixNano()}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		id.Dev, id.Ino = uint64(st.Dev), st.Ino
	}
	return id, nil
}

// currentProbeKey reads the key of this process on this boot.
func currentProbeKey() (probeKey, error) {
	k := probeKey{Format: probeCacheFormat, EUID: os.Geteuid()}
	b, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return k, fmt.Errorf("no boot id: %w", err)
	}
	if k.BootID = strings.TrimSpace(string(b)); k.BootID == "" {
		return k, errors.New("empty boot id")
	}
	exe, err := os.Executable()
	if err != nil {
		return k, err
	}
	if k.Exe, err = identify(exe); err != nil {
		return k, err
	}
	if p := findBwrap(""); p != "" {
		k.Bwrap, _ = identify(p) // unreadable: zero, as for none
	}
	// They forbid unprivileged user namespaces (and so bwrap) without a
	// reboot; a missing one reads as "-".
	s := readUserNSSysctls("")
	vals := []string{s.MaxUserNamespaces, s.UnprivilegedClone, s.AppArmorRestrict}
	for i, v := range vals {
		vals[i] = cmp.Or(v, "-")
	}
	k.UserNS = strings.Join(vals, ",")
	k.AppArmor = "-"
	if b, err := os.ReadFile(appArmorRevision); err == nil {
		k.AppArmor = strings.TrimSpace(string(b))
	}
	return k, nil
}

// probeCacheFile is where the binary at exe keeps its probe: one file per
// binary path, so two builds used in turn (the CLI build and the desktop
// build) do not evict each other.
func probeCacheFile(dir, exe string) string {
	sum := sha256.Sum256([]byte(exe))
	return filepath.Join(dir, "sandbox-probe-"+hex.EncodeToString(sum[:6])+".json")
}

type probeCacheEntry struct {
	Key  probeKey `json:"key"`
	Host *Host    `json:"host"`
}

// readProbeCache returns the cached features when the file holds an answer
// for key.
func readProbeCache(file string, key probeKey) (*Host, bool) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, false
	}
	var e probeCacheEntry
	if err := json.Unmarshal(b, &e); err != nil || e.Host == nil || e.Key != key {
		return nil, false
	}
	return e.Host, true
}

// writeProbeCache replaces the file atomically: processes starting together
// read either the old answer or the new one.
func writeProbeCache(file string, key probeKey, h *Host) error {
	hc := *h
	hc.Cached, hc.Cgroup = false, CgroupHost{} // the cgroups are per process
	b, err := json.MarshalIndent(probeCacheEntry{Key: key, Host: &hc}, "", "  ")
	if err != nil {
		return err
	}
	dir := filepath.Dir(file)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".sandbox-probe-*")
	if err != nil {
		return err
	}
	_, err = f.Write(append(b, '\n'))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), file)
	}
	if err != nil {
		_ = os.Remove(f.Name())
	}
	return err
}

// copyFeatures takes the cacheable part of a probe (probeFeatures's).
func copyFeatures(dst, src *Host) {
	dst.LandlockABI, dst.LandlockError = src.LandlockABI, src.LandlockError
	dst.Seccomp, dst.SeccompError = src.Seccomp, src.SeccompError
	dst.Namespaces, dst.NamespacesError, dst.NamespacesBlock = src.Namespaces, src.NamespacesError, src.NamespacesBlock
	dst.Bwrap, dst.BwrapVersion, dst.BwrapOK, dst.BwrapSize, dst.BwrapError = src.Bwrap, src.BwrapVersion, src.BwrapOK, src.BwrapSize, src.BwrapError
	dst.BwrapBlock, dst.UserNS = src.BwrapBlock, src.UserNS
	dst.ProbedAt = src.ProbedAt
}

// prober is the probe with its parts replaceable (tests inject keys and
// count probes).
type prober struct {
	key      func() (probeKey, error)
	cgroups  func() (*cgroupManager, CgroupHost)
	features func(*Host)
}

var realProbe = prober{
	key:      currentProbeKey,
	cgroups:  probeCgroups,
	features: func(h *Host) { probeFeatures(h, featureProbe{}) },
}

// probe answers for this process; prev is its earlier answer, whose cgroups
// are kept (they are probed once per process: the first probe may have moved
// the process into a leaf cgroup).
func (p prober) probe(prev *Host, o ProbeOptions) *Host {
	h := newHost()
	if prev != nil {
		h.cgroups, h.Cgroup = prev.cgroups, prev.Cgroup
	} else {
		// The cgroups first, alone: on a pure v2 host the probe may move this
		// process into a leaf cgroup to free the controllers for runs, which it
		// does only while the process is alone in its cgroup, so not while the
		// feature probes have children (sh, bwrap) in it.
		h.cgroups, h.Cgroup = p.cgroups()
	}
	if o.CacheDir == "" {
		p.features(h)
		return h
	}
	key, err := p.key()
	if err != nil { // cannot tell whether a cached answer still holds
		slog.Debug("sandbox probe not cached", "err", err)
		p.features(h)
		return h
	}
	file := probeCacheFile(o.CacheDir, key.Exe.Path)
	if !o.Fresh {
		if c, ok := readProbeCache(file, key); ok {
			copyFeatures(h, c)
			h.Cached = true
			return h
		}
	}
	p.features(h)
	if err := writeProbeCache(file, key, h); err != nil {
		slog.Info("cannot cache the sandbox probe (every process will probe)", "err", err)
	}
	return h
}
