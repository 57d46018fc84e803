//go:build linux

package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

func doctor(h *Host) Report {
	r := &Runner{host: h, python: "", node: findNode("")}
	if p, err := findPython(""); err == nil {
		r.python = p
	}
	if self, err := os.Executable(); err == nil {
		r.self = self
	}
	r.plan(levelNamespace, true)
	var res Result
	var cg *runCgroup
	if r.cgroups != nil {
		cg = &runCgroup{}
		for _, c := range []struct {
			ok   bool
			name string
		}{{h.Cgroup.Pids, "pids"}, {h.Cgroup.Memory, "memory"}, {h.Cgroup.CPU, "cpu"}} {
			if c.ok {
				cg.limits = append(cg.limits, c.name)
			}
		}
	}
	r.layers(Request{}, interpreter{}, DefaultLimits(), os.TempDir(), "", cg, &res)
	rep := Report{
		Isolation:    res.Isolation,
		Protections:  res.Protections,
		Interpreters: map[string]string{"python": r.python, "sh": "/bin/sh", "node": r.node},
		Matplotlib:   matplotlibVersion(r.python, doctorEnv),
		Host:         h,
	}
	if r.noNamespace != "" {
		rep.Fallback = "not namespace: " + namespaceBlockWords(r.noNamespace) + "; see the bubblewrap line for the fix"
	}
	rep.Layers = append(rep.Layers, seccompLayer(h), landlockLayer(h), namespacesLayer(h), bwrapLayer(h), cgroupLayer(h))
	return rep
}

// matplotlibFix says how to make matplotlib importable.
const matplotlibFix = "sudo apt install python3-matplotlib (or pip install matplotlib for that interpreter)"

// doctorEnv is the environment of doctor's check of python, home tmp.
func doctorEnv(tmp string) []string {
	return []string{"PATH=" + systemPath, "HOME=" + tmp, "LANG=C.UTF-8"}
}

func seccompLayer(h *Host) Layer {
	l := Layer{Name: "seccomp", OK: h.Seccomp}
	if h.Seccomp {
		l.Detail = "system call filter: no internet sockets, io_uring, ptrace, keyrings, mounts or new namespaces for the code"
		return l
	}
	l.Detail = h.SeccompError
	l.Fix = "use a Linux kernel built with CONFIG_SECCOMP_FILTER (every mainstream distribution's is) on amd64 or arm64"
	return l
}

func landlockLayer(h *Host) Layer {
	l := Layer{Name: "landlock", OK: h.LandlockABI > 0}
	if !l.OK {
		l.Detail = h.LandlockError
		l.Fix = "use Linux 5.13 or newer with Landlock enabled (CONFIG_SECURITY_LANDLOCK=y and landlock in the lsm= boot parameter)"
		return l
	}
	parts := []string{"files read-only outside the run dir"}
	var missing []string
	if h.LandlockABI >= 4 {
		parts = append(parts, "no TCP")
	} else {
		missing = append(missing, "TCP rules need Linux 6.7+")
	}
	if h.LandlockABI >= 6 {
		parts = append(parts, "no signals to the app")
	} else {
		missing = append(missing, "signal scoping needs Linux 6.12+")
	}
	l.Detail = fmt.Sprintf("ABI %d: %s", h.LandlockABI, strings.Join(parts, ", "))
	if len(missing) > 0 {
		l.Fix = "upgrade the kernel (" + strings.Join(missing, "; ") + ")"
	}
	return l
}

func namespacesLayer(h *Host) Layer {
	l := Layer{Name: "namespaces", OK: h.Namespaces}
	if h.Namespaces {
		l.Detail = "unprivileged user, PID, network and mount namespaces can be created"
		return l
	}
	l.Detail = h.NamespacesError
	switch {
	case h.NamespacesBlock == h.BwrapBlock && !h.BwrapOK:
		l.Fix = "see the bubblewrap line"
	default:
		l.Fix = userNSFix(h.NamespacesBlock, h.Bwrap)
	}
	return l
}

func bwrapLayer(h *Host) Layer {
	l := Layer{Name: "bubblewrap", OK: h.BwrapOK}
	switch {
	case h.BwrapOK:
		l.Detail = fmt.Sprintf("%s %s: own network, PID and mount namespaces; only /usr, /etc (without credentials) and the run dir visible", h.Bwrap, h.BwrapVersion)
		if !h.BwrapSize {
			l.Detail += "; /tmp not size-capped (bwrap before 0.7)"
			l.Fix = "upgrade bubblewrap to 0.7 or newer for size-capped /tmp"
		}
	case h.BwrapBlock == BlockBwrapMissing || h.Bwrap == "":
		l.Detail = "not installed"
		l.Fix = "install bubblewrap: sudo apt install bubblewrap (Fedora: sudo dnf install bubblewrap; Arch: sudo pacman -S bubblewrap)"
	case h.BwrapBlock == BlockBwrapSetuid:
		l.Detail = h.BwrapError
		l.Fix = "remove the setuid bit (sudo chmod u-s " + h.Bwrap + ") where unprivileged user namespaces work"
	default:
		l.Detail = h.BwrapError
		if h.BwrapBlock != BlockBwrapFailed {
			l.Detail = "installed, but " + namespaceBlockWords(h.BwrapBlock) + ": " + h.BwrapError
		}
		l.Fix = userNSFix(h.BwrapBlock, h.Bwrap)
	}
	return l
}

// userNSFix says how to let bwrap (at path) create its namespaces.
func userNSFix(b NamespaceBlock, path string) string {
	switch b {
	case BlockAppArmor:
		return appArmorFix(path)
	case BlockUserNSDisabled:
		return "enable unprivileged user namespaces: sudo sysctl -w user.max_user_namespaces=15000 (and, on Debian kernels, sudo sysctl -w kernel.unprivileged_userns_clone=1); persist them in /etc/sysctl.d/, then: loopforge doctor --fresh"
	case BlockUserNSRefused:
		return "the kernel refuses user namespaces to this process: inside a container, allow them (e.g. a seccomp profile that permits unshare and clone with CLONE_NEWUSER), or run loopforge on the host"
	}
	return "bubblewrap is installed but cannot build the sandbox here (its message is above); runs use the strongest level without it"
}

// appArmorFix is how to let bwrap past Ubuntu's restriction of unprivileged
// user namespaces (kernel.apparmor_restrict_unprivileged_userns = 1): a
// profile that allows bwrap alone to create them (the form Ubuntu documents
// for programs that need them), or, at a cost for every other program, the
// sysctl.
func appArmorFix(bwrap string) string {
	if real, err := filepath.EvalSymlinks(bwrap); err == nil {
		bwrap = real // AppArmor attaches profiles to the real path
	}
	return `allow bwrap alone to create user namespaces with an AppArmor profile: create /etc/apparmor.d/bwrap-userns
(sudoedit /etc/apparmor.d/bwrap-userns) with

  abi <abi/4.0>,
  include <tunables/global>

  profile bwrap ` + bwrap + ` flags=(unconfined) {
    userns,

    include if exists <local/bwrap>
  }

and load it: sudo apparmor_parser -r /etc/apparmor.d/bwrap-userns
(Ubuntu's own profile for bwrap, which also keeps capabilities from bwrap's children, does the same: from the
apparmor-profiles package, /usr/share/apparmor/extra-profiles/bwrap-userns-restrict, copied to /etc/apparmor.d/ and
loaded with apparmor_parser -r; use one of the two, both are named bwrap.)
Or lift the restriction for every program: sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0 (until the
next boot; a file in /etc/sysctl.d/ keeps it). Trade-off: every program, an exploit included, may then create user
namespaces again, which open kernel interfaces otherwise reserved to root and are a common step of privilege escalation.
Then: loopforge doctor --fresh`
}

func cgroupLayer(h *Host) Layer {
	c := h.Cgroup
	if h.cgroups != nil {
		c = h.cgroups.report() // a run may have switched to joining since
	}
	l := Layer{Name: "cgroup", OK: c.Usable()}
	var have []string
	if c.Kill {
		have = append(have, "complete kill")
	}
	for _, x := range []struct {
		ok   bool
		name string
	}{{c.Pids, "process limit"}, {c.Memory, "memory limit"}, {c.CPU, "CPU limit"}} {
		if x.ok {
			have = append(have, x.name)
		}
	}
	version := c.Version
	if version == "" {
		version = "none"
	}
	if len(have) > 0 {
		l.Detail = fmt.Sprintf("cgroup %s: %s", version, strings.Join(have, ", "))
	} else {
		l.Detail = fmt.Sprintf("cgroup %s: no writable cgroup for runs", version)
	}
	if c.Problem != "" {
		l.Detail += " (" + c.Problem + ")"
	}

	if c.Pids && c.Memory && c.CPU && c.Kill {
		if c.V2Attach == attachJoin {
			l.Fix = joinFix
		}
		return l
	}
	switch c.Version {
	case "v1", "hybrid":
		l.Fix = "cgroup v1 limits need root; boot with systemd.unified_cgroup_hierarchy=1 (cgroup v2) and run loopforge in a delegated scope: systemd-run --user --scope -p Delegate=yes loopforge"
	default:
		l.Fix = "run loopforge in a delegated scope so it can give each run its own limits: systemd-run --user --scope -p Delegate=yes loopforge"
	}
	if c.V2Attach == attachJoin {
		l.Fix += "\n" + joinFix
	}
	return l
}

// joinFix is the way back to runs born in their cgroup: the app's own
// cgroup has been killed once (cgroup.kill), which is what makes the kernel
// kill a child born into a new cgroup.
const joinFix = "runs are as isolated either way; to have them born in their cgroup again, start loopforge in a cgroup that was never killed (cgroup.kill), e.g. a new scope: systemd-run --user --scope -p Delegate=yes loopforge"
