//go:build linux

package sandbox

// bubblewrap: the namespace level. The shim runs inside
//
//	bwrap --unshare-all --die-with-parent --new-session --cap-drop ALL
//	      <read-only system dirs> <masked secrets> --dev /dev --proc /proc
//	      --size N --tmpfs /tmp --size N --tmpfs /dev/shm --bind <run dir> …
//	      [--bind <Dir> <Dir>] --chdir <Dir or run dir> -- <self> __sbx_child
//
// so the code gets its own user, PID, network, IPC, UTS and cgroup
// namespaces, sees only /usr (and the merged-/usr symlinks), /etc without its
// credential files, the interpreter, the shim binary, its run dir and the
// project dir of a Request.Dir (read-write, at its own path); never the whole
// / and never the rest of $HOME. Killing bwrap kills the PID namespace and
// with it every process of the run, setsid daemons included.

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// systemDirs are mirrored read-only into the namespace (as symlinks where
// the host has symlinks, e.g. merged /usr) and readable under Landlock.
var systemDirs = []string{"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"}

// etcSecrets are hidden from the code even when the app runs as root (which
// otherwise reads /etc/shadow through any read-only view of /etc).
var etcSecrets = []string{
	"/etc/shadow", "/etc/shadow-", "/etc/gshadow", "/etc/gshadow-",
	"/etc/sudoers", "/etc/sudoers.d", "/etc/ssh", "/etc/ssl/private",
	"/etc/security/opasswd", "/etc/krb5.keytab", "/etc/wireguard",
	"/etc/NetworkManager/system-connections", "/etc/credstore", "/etc/credstore.encrypted",
}

// devRW and devRO are the device files the code may use.
var (
	devRW = []string{"/dev/null", "/dev/zero", "/dev/full"}
	devRO = []string{"/dev/random", "/dev/urandom"}
)

// isSystemPath reports whether p lies in a directory every level exposes.
func isSystemPath(p string) bool {
	for _, d := range systemDirs {
		if p == d || strings.HasPrefix(p, d+"/") {
			return true
		}
	}
	return false
}

// installRoot is the directory to expose for an interpreter outside the
// system dirs: the prefix above its bin/ (e.g. ~/.pyenv/versions/3.12.1),
// never more.
func installRoot(exe string) string {
	if real, err := filepath.EvalSymlinks(exe); err == nil {
		exe = real
	}
	if isSystemPath(exe) {
		return ""
	}
	dir := filepath.Dir(exe)
	if filepath.Base(dir) == "bin" {
		dir = filepath.Dir(dir)
	}
	if dir == "/" || dir == "" {
		return exe
	}
	if home, err := os.UserHomeDir(); err == nil && (dir == home || dir == filepath.Dir(home)) {
		return exe // never the whole home
	}
	return dir
}

// bwrapPlan is the part of the command line that is the same for every run.
type bwrapPlan struct {
	path    string
	size    bool // bwrap knows --size (0.7+); without it tmpfs is bounded by the cgroup only
	base    []string
	extraRO []string // bound after the tmpfs mounts: they may live under /tmp
}

// newBwrapPlan builds the static arguments. extraRO are read-only binds
// outside the system dirs (interpreter prefixes, the shim binary).
func newBwrapPlan(path string, root, size bool, extraRO []string) bwrapPlan {
	// --info-fd: bwrap names its namespace's init, which Run waits for
	// (nsinit.go).
	a := []string{"--unshare-all", "--die-with-parent", "--new-session", "--cap-drop", "ALL", "--info-fd", strconv.Itoa(infoFD)}
	if root {
		// Not root inside: the code must not think it is, and root's
		// owner rights on /etc files are hidden behind an unmapped uid.
		a = append(a, "--uid", "65534", "--gid", "65534")
	}
	a = append(a, "--hostname", "sandbox")
	for _, d := range systemDirs {
		fi, err := os.Lstat(d)
		switch {
		case err != nil:
		case fi.Mode()&os.ModeSymlink != 0:
			if target, err := os.Readlink(d); err == nil {
				a = append(a, "--symlink", target, d)
			}
		case fi.IsDir():
			a = append(a, "--ro-bind", d, d)
		}
	}
	a = append(a, "--ro-bind", "/etc", "/etc")
	for _, s := range etcSecrets {
		fi, err := os.Lstat(s)
		switch {
		case err != nil:
		case fi.IsDir():
			a = append(a, "--tmpfs", s, "--remount-ro", s)
		default:
			a = append(a, "--ro-bind", "/dev/null", s)
		}
	}
	a = append(a, "--dev", "/dev", "--proc", "/proc")
	return bwrapPlan{path: path, size: size, base: a, extraRO: extraRO}
}

// args completes the command line for one run. dir is the project dir of a
// Request.Dir, "" for none; ro are read-only directories of this run (the
// figure hook); joins are the v1 cgroup.procs files the shim must reach
// inside.
func (b bwrapPlan) args(wd, dir string, ro []string, lim Limits, allowNet bool, joins []string, self string) []string {
	a := make([]string, 0, len(b.base)+24)
	a = append(a, b.base...)
	if allowNet {
		a = append(a, "--share-net")
	}
	for _, dir := range []string{"/dev/shm", "/tmp"} {
		if b.size {
			a = append(a, "--size", fmt.Sprint(lim.TmpBytes))
		}
		a = append(a, "--tmpfs", dir)
	}
	a = append(a, "--remount-ro", "/dev")
	// After /tmp: the run dir and a project dir usually live under it.
	// Parents before children, so each path gets its own mode even when
	// one lies inside another (the shim binary inside the project dir stays
	// read-only; a project dir inside an interpreter prefix stays writable).
	type bind struct{ flag, path string }
	var binds []bind
	for _, p := range slices.Concat(b.extraRO, ro) {
		binds = append(binds, bind{"--ro-bind", p})
	}
	for _, j := range joins {
		binds = append(binds, bind{"--bind", j})
	}
	if dir != "" {
		binds = append(binds, bind{"--bind", dir})
	}
	binds = append(binds, bind{"--bind", wd})
	slices.SortStableFunc(binds, func(x, y bind) int { return cmp.Compare(len(x.path), len(y.path)) })
	for _, m := range binds {
		a = append(a, m.flag, m.path, m.path)
	}
	return append(a, "--chdir", cmp.Or(dir, wd), "--", self, childArg)
}

// findBwrap is the bwrap the probe tries: explicit, else the first of the
// usual places, else bwrap on PATH ("" = none).
func findBwrap(explicit string) string {
	if explicit != "" {
		return explicit
	}
	for _, p := range []string{"/usr/bin/bwrap", "/bin/bwrap", "/usr/local/bin/bwrap"} {
		if isExecutable(p) {
			return p
		}
	}
	if p, err := exec.LookPath("bwrap"); err == nil {
		return p
	}
	return ""
}

// The typed causes of a failed bwrap probe (see probeFeatures).
var (
	errBwrapMissing = errors.New("bubblewrap (bwrap) is not installed")
	errBwrapSetuid  = errors.New("bwrap is setuid root; loopforge only uses an unprivileged bwrap (user namespaces)")
)

// bwrapUserNSFailures are what bwrap prints when the kernel refuses it the
// user namespace, or refuses what it needs inside one:
//
//   - "setting up uid map: Permission denied" (and gid map, setgroups):
//     AppArmor's unprivileged_userns profile (Ubuntu 24.04+);
//   - "loopback: Failed RTM_NEWADDR: Operation not permitted": the same
//     profile, met first by a sandbox with its own network namespace;
//   - "No permissions to create new namespace" (older bwrap: "to
//     creating"): unprivileged user namespaces are off;
//   - "Creating new namespace failed": a limit such as
//     user.max_user_namespaces = 0, or the nesting depth.
//
// bwrap's messages are the only account of its failure there is, so they
// are matched here, once; everything after works with the typed cause.
var bwrapUserNSFailures = []string{
	"setting up uid map", "setting up gid map", "setgroups",
	"RTM_NEWADDR", "loopback:",
	"No permissions to creat", "Creating new namespace failed",
}

// bwrapProbe is what probeBwrap found.
type bwrapProbe struct {
	path, version string
	size          bool // --size caps tmpfs mounts
	// err matches errBwrapMissing, errBwrapSetuid or errUserNSRefused
	// (errors.Is) when it is one of those.
	err error
}

// probeBwrap checks that bwrap exists and can build this sandbox here (it
// cannot, e.g., where AppArmor forbids unprivileged user namespaces).
func probeBwrap(explicit string, root bool) bwrapProbe {
	b := bwrapProbe{path: findBwrap(explicit)}
	if b.path == "" {
		b.err = errBwrapMissing
		return b
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	out, verr := exec.CommandContext(ctx, b.path, "--version").Output()
	if verr != nil {
		b.err = fmt.Errorf("%s --version: %w", b.path, verr)
		return b
	}
	help, _ := exec.CommandContext(ctx, b.path, "--help").CombinedOutput()
	b.size = strings.Contains(string(help), "--size")
	b.version = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(string(out)), "bubblewrap"))
	if fi, err := os.Stat(b.path); err == nil && fi.Mode()&os.ModeSetuid != 0 {
		b.err = errBwrapSetuid
		return b
	}
	wd, err := os.MkdirTemp("", "loopforge-probe-")
	if err != nil {
		b.err = err
		return b
	}
	defer os.RemoveAll(wd)
	plan := newBwrapPlan(b.path, root, b.size, nil)
	args := plan.args(wd, "", nil, DefaultLimits(), false, nil, "/bin/sh")
	args = append(args[:len(args)-1], "-c", "exit 0") // "/bin/sh -c 'exit 0'" instead of the shim
	cmd := exec.CommandContext(ctx, b.path, args...)
	cmd.Env = []string{"PATH=" + systemPath}
	// The info pipe at infoFD, as in a run (bwrap fails without it); what
	// bwrap writes fits in the pipe and is dropped with it.
	infoR, infoW, err := os.Pipe()
	if err != nil {
		b.err = err
		return b
	}
	defer infoR.Close()
	cmd.ExtraFiles = make([]*os.File, infoFD-2)
	cmd.ExtraFiles[infoFD-3] = infoW
	out, err = cmd.CombinedOutput()
	_ = infoW.Close()
	if err != nil {
		msg := strings.TrimSpace(string(out))
		if msg == "" {
			msg = err.Error()
		}
		b.err = fmt.Errorf("bwrap cannot create the sandbox here: %s", msg)
		if slices.ContainsFunc(bwrapUserNSFailures, func(s string) bool { return strings.Contains(msg, s) }) {
			b.err = fmt.Errorf("bwrap cannot create the sandbox here (%w): %s", errUserNSRefused, msg)
		}
	}
	return b
}
