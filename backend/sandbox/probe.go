//go:build linux

package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Host is what this machine offers for isolating generated code. It is
// probed once per process (see [Probe]); nothing is assumed from the
// distribution or kernel version, every feature is tried.
type Host struct {
	Kernel string `json:"kernel"`
	Arch   string `json:"arch"`
	Root   bool   `json:"root"` // effective uid 0

	// LandlockABI is the kernel's Landlock ABI version, 0 when unavailable.
	// File rules need 1, TCP rules 4, signal and abstract-socket scopes 6.
	LandlockABI   int    `json:"landlock_abi"`
	LandlockError string `json:"landlock_error,omitempty"`

	Seccomp      bool   `json:"seccomp"`
	SeccompError string `json:"seccomp_error,omitempty"`

	// Namespaces: an unprivileged process can create user, PID, network and
	// mount namespaces (what bubblewrap needs).
	Namespaces      bool   `json:"namespaces"`
	NamespacesError string `json:"namespaces_error,omitempty"`
	// NamespacesBlock says why they cannot ("" when they can).
	NamespacesBlock NamespaceBlock `json:"namespaces_block,omitempty"`

	Bwrap        string `json:"bwrap,omitempty"` // path, when found
	BwrapVersion string `json:"bwrap_version,omitempty"`
	BwrapOK      bool   `json:"bwrap_ok"`   // a test sandbox started
	BwrapSize    bool   `json:"bwrap_size"` // --size caps tmpfs mounts (bwrap 0.7+)
	BwrapError   string `json:"bwrap_error,omitempty"`
	// BwrapBlock says why bubblewrap cannot be used, and so why runs get a
	// weaker level than "namespace" ("" when it can).
	BwrapBlock NamespaceBlock `json:"bwrap_block,omitempty"`

	// UserNS are the sysctls that allow or forbid unprivileged user
	// namespaces, as the probe read them.
	UserNS UserNSSysctls `json:"userns"`

	Cgroup CgroupHost `json:"cgroup"`

	// ProbedAt is when the kernel features above were probed; Cached says
	// they were read from the probe cache (see [ProbeCached]) rather than
	// probed by this process. The cgroups are always this process's own.
	ProbedAt time.Time `json:"probed_at"`
	Cached   bool      `json:"cached"`

	cgroups *cgroupManager
}

var (
	hostMu sync.Mutex
	host   *Host
)

// Probe inspects the machine once and caches the answer for the process.
func Probe() *Host { return ProbeCached(ProbeOptions{}) }

// ProbeCached is [Probe] with the answer also kept on disk (see
// probecache.go): once per process, and the costly part (a few bwrap and sh
// processes, 40 to 600 ms) once per boot and loopforge binary. Fresh probes
// again, even in a process that already has an answer, and rewrites the cache.
func ProbeCached(o ProbeOptions) *Host {
	hostMu.Lock()
	defer hostMu.Unlock()
	if host == nil || o.Fresh {
		host = realProbe.probe(host, o)
	}
	return host
}

// featureProbe is where probeFeatures looks. The zero value is this
// machine's; the tests substitute a bwrap (one that fails the way a
// restricted host's does) and sysctl files of their own.
type featureProbe struct {
	bwrap   string // explicit bwrap path ("" = the usual places, then PATH)
	procSys string // the sysctl tree ("" = /proc/sys)
}

// newHost is what costs nothing to learn: kernel, architecture, root.
func newHost() *Host {
	h := &Host{Arch: runtime.GOARCH, Root: os.Geteuid() == 0}
	var u unix.Utsname
	if unix.Uname(&u) == nil {
		h.Kernel = unix.ByteSliceToString(u.Release[:])
	}
	return h
}

// probeFeatures probes what the kernel and bwrap offer: the same for every
// process of this binary and user until the machine reboots (the cacheable
// part of the probe; the cgroups are per process).
func probeFeatures(h *Host, fp featureProbe) {
	h.ProbedAt = time.Now().UTC().Truncate(time.Second)
	h.UserNS = readUserNSSysctls(fp.procSys)
	var wg sync.WaitGroup
	wg.Go(func() {
		if abi, err := landlockABI(); err != nil {
			h.LandlockError = err.Error()
		} else {
			h.LandlockABI = abi
		}
		if !seccompSupported {
			h.SeccompError = "loopforge's seccomp filter is written for amd64 and arm64 only"
		} else if err := seccompAvailable(); err != nil {
			h.SeccompError = err.Error()
		} else {
			h.Seccomp = true
		}
	})
	wg.Go(func() {
		if err := probeNamespaces(); err != nil {
			h.NamespacesError = err.Error()
			h.NamespacesBlock = BlockNamespacesFailed
			if errors.Is(err, errUserNSRefused) {
				h.NamespacesBlock = h.UserNS.block(h.Root)
			}
		} else {
			h.Namespaces = true
		}
	})
	wg.Go(func() {
		b := probeBwrap(fp.bwrap, h.Root)
		h.Bwrap, h.BwrapVersion, h.BwrapSize = b.path, b.version, b.size
		if b.err == nil {
			h.BwrapOK = true
			return
		}
		h.BwrapError = b.err.Error()
		switch {
		case errors.Is(b.err, errBwrapMissing):
			h.BwrapBlock = BlockBwrapMissing
		case errors.Is(b.err, errBwrapSetuid):
			h.BwrapBlock = BlockBwrapSetuid
		case errors.Is(b.err, errUserNSRefused):
			h.BwrapBlock = h.UserNS.block(h.Root)
		default:
			h.BwrapBlock = BlockBwrapFailed
		}
	})
	wg.Wait()
	if !h.BwrapOK {
		slog.Debug("sandbox: bubblewrap cannot be used", "block", h.BwrapBlock, "err", h.BwrapError, "userns", h.UserNS)
	}
}

// probeNamespaces starts /bin/sh in new user, PID, network, mount and IPC
// namespaces, which is what an unprivileged sandbox needs from the kernel.
func probeNamespaces() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "/bin/sh", "-c", "exit 0")
	cmd.Env = []string{"PATH=" + systemPath}
	uid, gid := os.Getuid(), os.Getgid()
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Cloneflags:  syscall.CLONE_NEWUSER | syscall.CLONE_NEWPID | syscall.CLONE_NEWNET | syscall.CLONE_NEWNS | syscall.CLONE_NEWIPC,
		UidMappings: []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}},
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		// EPERM/EACCES: refused (a sysctl, AppArmor, a container's
		// seccomp profile); ENOSPC/EUSERS: a max_*_namespaces limit or
		// the nesting depth.
		for _, errno := range []error{syscall.EPERM, syscall.EACCES, syscall.ENOSPC, syscall.EUSERS} {
			if errors.Is(err, errno) {
				return fmt.Errorf("cannot create namespaces (%w): %v", errUserNSRefused, err)
			}
		}
		return fmt.Errorf("cannot create namespaces: %v %s", err, bytes.TrimSpace(stderr.Bytes()))
	}
	return nil
}

// errUserNSRefused marks a failure to create a user namespace (as opposed to
// anything else failing), whose cause the sysctls then tell.
var errUserNSRefused = errors.New("user namespace refused")

// UserNSSysctls are the sysctls that allow or forbid unprivileged user
// namespaces without a reboot; "" where the kernel has no such file.
type UserNSSysctls struct {
	MaxUserNamespaces string `json:"max_user_namespaces,omitempty"`       // user.max_user_namespaces
	UnprivilegedClone string `json:"unprivileged_userns_clone,omitempty"` // kernel.unprivileged_userns_clone (Debian)
	// AppArmorRestrict is kernel.apparmor_restrict_unprivileged_userns
	// (Ubuntu 23.10+): "1" sends a process that creates a user namespace
	// without a profile allowing it into a profile without capabilities,
	// where bwrap cannot map its ids or set up the loopback device.
	AppArmorRestrict string `json:"apparmor_restrict_unprivileged_userns,omitempty"`
}

// readUserNSSysctls reads them beneath procSys ("" = /proc/sys).
func readUserNSSysctls(procSys string) UserNSSysctls {
	if procSys == "" {
		procSys = "/proc/sys"
	}
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(procSys, name))
		if err != nil {
			return ""
		}
		return strings.TrimSpace(string(b))
	}
	return UserNSSysctls{
		MaxUserNamespaces: read("user/max_user_namespaces"),
		UnprivilegedClone: read("kernel/unprivileged_userns_clone"),
		AppArmorRestrict:  read("kernel/apparmor_restrict_unprivileged_userns"),
	}
}

// block names the sysctl that explains a refused user namespace. A sysctl
// that turns them off wins over AppArmor's restriction: a profile for bwrap
// would not help. AppArmor's restriction does not apply to root.
func (s UserNSSysctls) block(root bool) NamespaceBlock {
	switch {
	case s.MaxUserNamespaces == "0" || s.UnprivilegedClone == "0":
		return BlockUserNSDisabled
	case s.AppArmorRestrict == "1" && !root:
		return BlockAppArmor
	}
	return BlockUserNSRefused
}
