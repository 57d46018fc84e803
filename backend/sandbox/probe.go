//go:build linux

package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
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

	Bwrap        string `json:"bwrap,omitempty"` // path, when found
	BwrapVersion string `json:"bwrap_version,omitempty"`
	BwrapOK      bool   `json:"bwrap_ok"`   // a test sandbox started
	BwrapSize    bool   `json:"bwrap_size"` // --size caps tmpfs mounts (bwrap 0.7+)
	BwrapError   string `json:"bwrap_error,omitempty"`

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

func probeHost(bwrapPath string) *Host {
	h := newHost()
	// The cgroups first, alone: on a pure v2 host the probe may move this
	// process into a leaf cgroup to free the controllers for runs, which it
	// does only while the process is alone in its cgroup, so not while the
	// probes below have children (sh, bwrap) in it.
	h.cgroups, h.Cgroup = probeCgroups()
	probeFeatures(h, bwrapPath)
	return h
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
func probeFeatures(h *Host, bwrapPath string) {
	h.ProbedAt = time.Now().UTC().Truncate(time.Second)
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
		} else {
			h.Namespaces = true
		}
	})
	wg.Go(func() {
		path, version, size, err := probeBwrap(bwrapPath, h.Root)
		h.Bwrap, h.BwrapVersion, h.BwrapSize = path, version, size
		if err != nil {
			h.BwrapError = err.Error()
		} else {
			h.BwrapOK = true
		}
	})
	wg.Wait()
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
		if errors.Is(err, syscall.EPERM) || errors.Is(err, syscall.EACCES) {
			return fmt.Errorf("unprivileged user namespaces are not allowed here (%v); on Ubuntu 23.10+ AppArmor restricts them (kernel.apparmor_restrict_unprivileged_userns)", err)
		}
		if errors.Is(err, syscall.ENOSPC) {
			return fmt.Errorf("user namespaces are disabled (user.max_user_namespaces = 0): %v", err)
		}
		return fmt.Errorf("cannot create namespaces: %v %s", err, bytes.TrimSpace(stderr.Bytes()))
	}
	return nil
}
