//go:build linux

package sandbox

// Restricted hosts, simulated without touching this machine's settings:
//
//   - Ubuntu 24.04+'s AppArmor restriction of unprivileged user namespaces,
//     by a bwrap that fails the way the restricted one does and sysctl files
//     of the test's own (featureProbe);
//   - user namespaces turned off, by the real bwrap in a child user
//     namespace whose user.max_user_namespaces is 0 (root only);
//   - a kernel that kills a process born into a new cgroup, by an app
//     cgroup on a private cgroup2 mount that has had cgroup.kill written
//     (cgroupv2_test.go's fixture; root only).

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/loopforge/loopforge/backend/event"
	"github.com/loopforge/loopforge/backend/procgroup"
)

// fakeBwrap writes a bwrap that answers --version and --help like bubblewrap
// 0.9 and fails every sandbox with stderr.
func fakeBwrap(t *testing.T, stderr string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "bwrap")
	script := fmt.Sprintf(`#!/bin/sh
case "$1" in
--version) echo "bubblewrap 0.9.0"; exit 0 ;;
--help) echo "    --size BYTES                 Set size of next tmpfs"; exit 0 ;;
esac
echo %q >&2
exit 1
`, stderr)
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// fakeProcSys writes the user namespace sysctls ("" = no such file).
func fakeProcSys(t *testing.T, s UserNSSysctls) string {
	t.Helper()
	dir := t.TempDir()
	for name, v := range map[string]string{
		"user/max_user_namespaces":                     s.MaxUserNamespaces,
		"kernel/unprivileged_userns_clone":             s.UnprivilegedClone,
		"kernel/apparmor_restrict_unprivileged_userns": s.AppArmorRestrict,
	} {
		if v == "" {
			continue
		}
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(v+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// restrictedHost probes with bwrap and the sysctls replaced, as an
// unprivileged user (AppArmor's restriction spares root), with this
// process's real cgroups.
func restrictedHost(t *testing.T, bwrapStderr string, s UserNSSysctls) *Host {
	t.Helper()
	real := Probe()
	h := newHost()
	h.Root = false
	h.cgroups, h.Cgroup = real.cgroups, real.Cgroup
	probeFeatures(h, featureProbe{bwrap: fakeBwrap(t, bwrapStderr), procSys: fakeProcSys(t, s)})
	return h
}

const (
	uidMapDenied   = "bwrap: setting up uid map: Permission denied"
	loopbackDenied = "bwrap: loopback: Failed RTM_NEWADDR: Operation not permitted"
	noPermission   = "bwrap: No permissions to create new namespace, likely because the kernel does not allow non-privileged user namespaces. On e.g. debian this can be enabled with 'sysctl kernel.unprivileged_userns_clone=1'."
)

var (
	ubuntu2404 = UserNSSysctls{MaxUserNamespaces: "63432", UnprivilegedClone: "1", AppArmorRestrict: "1"}
	openUserNS = UserNSSysctls{MaxUserNamespaces: "63432", UnprivilegedClone: "1", AppArmorRestrict: "0"}
)

// TestProbeClassifiesBwrapFailure: what bwrap says, with the sysctls,
// becomes a typed cause, and only the failures of bwrap's user namespace
// are blamed on a sysctl.
func TestProbeClassifiesBwrapFailure(t *testing.T) {
	for _, tc := range []struct {
		name   string
		stderr string
		sys    UserNSSysctls
		want   NamespaceBlock
	}{
		{"uid map under AppArmor", uidMapDenied, ubuntu2404, BlockAppArmor},
		{"loopback under AppArmor", loopbackDenied, ubuntu2404, BlockAppArmor},
		{"no permission under AppArmor", noPermission, ubuntu2404, BlockAppArmor},
		{"uid map, no restriction", uidMapDenied, openUserNS, BlockUserNSRefused},
		{"uid map, no such sysctls", uidMapDenied, UserNSSysctls{}, BlockUserNSRefused},
		{"turned off (Debian)", noPermission, UserNSSysctls{UnprivilegedClone: "0", AppArmorRestrict: "1"}, BlockUserNSDisabled},
		{"no namespaces left", "bwrap: Creating new namespace failed: nesting depth or /proc/sys/user/max_*_namespaces exceeded (ENOSPC)", UserNSSysctls{MaxUserNamespaces: "0"}, BlockUserNSDisabled},
		{"something else", "bwrap: Can't mount proc on /newroot/proc: Device or resource busy", ubuntu2404, BlockBwrapFailed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := restrictedHost(t, tc.stderr, tc.sys)
			if h.BwrapOK || h.BwrapBlock != tc.want || !strings.Contains(h.BwrapError, tc.stderr) || h.UserNS != tc.sys {
				t.Errorf("bwrap ok %v block %q (want %q) error %q userns %+v", h.BwrapOK, h.BwrapBlock, tc.want, h.BwrapError, h.UserNS)
			}
			if h.Bwrap == "" || h.BwrapVersion != "0.9.0" {
				t.Errorf("bwrap %q version %q: the fake was not the one probed", h.Bwrap, h.BwrapVersion)
			}
		})
	}
	t.Run("root", func(t *testing.T) {
		// AppArmor's restriction does not apply to root: another cause.
		h := newHost()
		h.Root = true
		probeFeatures(h, featureProbe{bwrap: fakeBwrap(t, uidMapDenied), procSys: fakeProcSys(t, ubuntu2404)})
		if h.BwrapBlock != BlockUserNSRefused {
			t.Errorf("root: block %q, want %q", h.BwrapBlock, BlockUserNSRefused)
		}
	})
	t.Run("missing", func(t *testing.T) {
		h := newHost()
		probeFeatures(h, featureProbe{bwrap: filepath.Join(t.TempDir(), "bwrap"), procSys: fakeProcSys(t, ubuntu2404)})
		if h.BwrapOK || h.BwrapBlock != BlockBwrapFailed {
			// An explicit path that does not exist is a failure to run it.
			t.Errorf("block %q, want %q (error %q)", h.BwrapBlock, BlockBwrapFailed, h.BwrapError)
		}
	})
}

// TestAppArmorRestrictedHost: on a host where AppArmor keeps bwrap from
// its user namespace (Ubuntu 24.04+), runs fall back to the strongest level
// that works, and the probe, every run and the doctor say why, with the
// fixes.
func TestAppArmorRestrictedHost(t *testing.T) {
	for _, stderr := range []string{uidMapDenied, loopbackDenied} {
		t.Run(stderr, func(t *testing.T) {
			h := restrictedHost(t, stderr, ubuntu2404)
			if h.LandlockABI == 0 {
				t.Skip("no Landlock here: the fallback would be the basic level")
			}
			r, err := newRunner(Options{TempRoot: t.TempDir()}, h)
			if err != nil {
				t.Fatal(err)
			}
			wantLevel := IsolationLandlock
			if r.cgroups != nil {
				wantLevel += CgroupSuffix
			}
			if r.Isolation() != wantLevel || r.bwrap != nil {
				t.Fatalf("isolation %q (bwrap %v), want %s", r.Isolation(), r.bwrap != nil, wantLevel)
			}

			res, m := runOn(t, r, context.Background(), Request{Code: "print('ran')"})
			wantStatus(t, res, StatusOK)
			wantNoSurvivors(t, m)
			if res.Isolation != wantLevel || !res.Protections.Files {
				t.Errorf("isolation %q protections %+v", res.Isolation, res.Protections)
			}
			i := slices.IndexFunc(res.Notes, func(n event.ExecNote) bool { return n.Code == string(event.NoteNoNamespace) })
			if i < 0 || res.Notes[i].Params["reason"] != string(BlockAppArmor) || res.Notes[i].Params["level"] != IsolationLandlock {
				t.Errorf("notes %+v: want no_namespace, reason apparmor, level landlock", res.Notes)
			}
			if !slices.ContainsFunc(res.Warnings, func(w string) bool {
				return strings.Contains(w, "AppArmor restricts unprivileged user namespaces") && strings.Contains(w, "landlock level")
			}) {
				t.Errorf("warnings %q: want the AppArmor restriction named", res.Warnings)
			}
			wantDirEmpty(t, r)

			// A level capped below namespace by the options is not a
			// fallback: nothing to say.
			capped, err := newRunner(Options{TempRoot: t.TempDir(), Isolation: IsolationLandlock}, h)
			if err != nil {
				t.Fatal(err)
			}
			res, _ = runOn(t, capped, context.Background(), Request{Code: "print('ran')"})
			if slices.ContainsFunc(res.Notes, func(n event.ExecNote) bool { return n.Code == string(event.NoteNoNamespace) }) {
				t.Errorf("a run capped at landlock by the options says %q", res.Warnings)
			}
			capped.Wait()

			rep := doctor(h)
			text := rep.Text()
			t.Logf("\n%s", text)
			if rep.Isolation != wantLevel || !strings.Contains(rep.Fallback, "AppArmor") {
				t.Errorf("doctor isolation %q fallback %q", rep.Isolation, rep.Fallback)
			}
			l := rep.Layers[slices.IndexFunc(rep.Layers, func(l Layer) bool { return l.Name == "bubblewrap" })]
			if l.OK || !strings.Contains(l.Detail, stderr) {
				t.Errorf("bubblewrap layer %+v", l)
			}
			for _, want := range []string{
				"abi <abi/4.0>,", "include <tunables/global>", "profile bwrap " + h.Bwrap + " flags=(unconfined) {", "userns,",
				"include if exists <local/bwrap>", "/etc/apparmor.d/bwrap-userns", "sudo apparmor_parser -r /etc/apparmor.d/bwrap-userns",
				"sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0", "Trade-off:", "loopforge doctor --fresh",
			} {
				if !strings.Contains(l.Fix, want) || !strings.Contains(text, want) {
					t.Errorf("the doctor's fix lacks %q:\n%s", want, text)
				}
			}
		})
	}
}

// TestUserNSDisabledHost runs the real bwrap, as an unprivileged user, in a
// child user namespace where user.max_user_namespaces is 0: the probe and
// the doctor name the sysctl and the level falls back.
func TestUserNSDisabledHost(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("mapping a range of ids into a child user namespace needs root")
	}
	if findBwrap("") == "" {
		t.Skip("no bwrap")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), usernsHelperEnv+"=1")
	ids := []syscall.SysProcIDMap{{ContainerID: 0, HostID: 0, Size: 65536}}
	cmd.SysProcAttr = &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWUSER, UidMappings: ids, GidMappings: ids, GidMappingsEnableSetgroups: true}
	out, err := cmd.Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("helper: %v\n%s%s", err, out, stderr)
	}
	var got usernsHelperReport
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	h := got.Host
	t.Logf("\n%s", got.Doctor)
	if h.UserNS.MaxUserNamespaces != "0" {
		t.Fatalf("the helper's user.max_user_namespaces is %q", h.UserNS.MaxUserNamespaces)
	}
	if h.Namespaces || h.NamespacesBlock != BlockUserNSDisabled {
		t.Errorf("namespaces %v block %q (%s)", h.Namespaces, h.NamespacesBlock, h.NamespacesError)
	}
	if h.BwrapOK || h.BwrapBlock != BlockUserNSDisabled {
		t.Errorf("bwrap ok %v block %q (%s)", h.BwrapOK, h.BwrapBlock, h.BwrapError)
	}
	if !strings.Contains(got.Doctor, "sudo sysctl -w user.max_user_namespaces=") || !strings.Contains(got.Doctor, "turned off") {
		t.Errorf("the doctor does not name the sysctl")
	}
	if h.LandlockABI > 0 && !strings.HasPrefix(got.Doctor, "Isolation for generated code: landlock\n") {
		t.Errorf("the doctor does not fall back to landlock")
	}
}

// usernsHelperEnv makes the test binary probe, as uid 1000, in the child
// user namespace TestUserNSDisabledHost starts it in, after turning user
// namespaces off there (see TestMain).
const usernsHelperEnv = "LOOPFORGE_TEST_USERNS_HELPER"

type usernsHelperReport struct {
	Host   *Host
	Doctor string
}

func usernsHelperMain() int {
	// Per user namespace: this one and those beneath it only.
	if err := os.WriteFile("/proc/sys/user/max_user_namespaces", []byte("0"), 0); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	if err := syscall.Setresgid(1000, 1000, 1000); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	if err := syscall.Setresuid(1000, 1000, 1000); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	h := newHost()
	probeFeatures(h, featureProbe{})
	b, err := json.Marshal(usernsHelperReport{Host: h, Doctor: doctor(h).Text()})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	os.Stdout.Write(b)
	return 0
}

// killedCgroup makes f's parent a cgroup that has had cgroup.kill written
// and moves this process into it, as a loopforge started there would be;
// it moves back before the fixture removes the cgroups.
func killedCgroup(t *testing.T, f *cgroup2Fixture) {
	t.Helper()
	orig := v2Path(os.Getpid())
	if orig == "" {
		t.Skip("this process has no cgroup v2 path")
	}
	if err := os.WriteFile(filepath.Join(f.parent, "cgroup.kill"), []byte("1"), 0); err != nil {
		t.Skipf("no cgroup.kill here: %v", err)
	}
	t.Cleanup(func() {
		if err := os.WriteFile(filepath.Join(f.mnt, orig, "cgroup.procs"), []byte(strconv.Itoa(os.Getpid())), 0); err != nil {
			t.Errorf("move the test process back to %s: %v", orig, err)
		}
	})
	if err := os.WriteFile(filepath.Join(f.parent, "cgroup.procs"), []byte(strconv.Itoa(os.Getpid())), 0); err != nil {
		t.Fatalf("move the test process into %s: %v", f.parent, err)
	}
}

// wantKilledAtBirth skips the test unless a child born into a new cgroup
// beneath f's parent is killed at birth here (the kernel behaviour the
// tests simulate the host with; found on Linux 6.18), found by the test's
// own means.
func wantKilledAtBirth(t *testing.T, f *cgroup2Fixture) {
	t.Helper()
	dir := filepath.Join(f.parent, "born")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	defer removeCgroupTree(dir)
	fd, err := syscall.Open(dir, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(fd)
	cmd := exec.Command("/bin/true")
	cmd.SysProcAttr = &syscall.SysProcAttr{UseCgroupFD: true, CgroupFD: fd}
	err = cmd.Run()
	if ee, ok := err.(*exec.ExitError); !ok || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Skipf("a child born into a new cgroup lives here (kernel %s: %v): the condition cannot be simulated", newHost().Kernel, err)
	}
}

// wantJoinedRun runs code that prints its cgroup on r and checks that it
// ran in a cgroup of its own beneath the parent, and says how it got there.
func wantJoinedRun(t *testing.T, f *cgroup2Fixture, r *Runner) {
	t.Helper()
	res, m := runOn(t, r, context.Background(), Request{Code: "print([l for l in open('/proc/self/cgroup').read().split() if l.startswith('0::')][0])"})
	wantStatus(t, res, StatusOK)
	wantNoSurvivors(t, m)
	if !strings.HasSuffix(res.Isolation, CgroupSuffix) || !slices.Contains(res.Layers, "cgroup") {
		t.Errorf("isolation %q layers %v: the run had no cgroup", res.Isolation, res.Layers)
	}
	if r.bwrap == nil {
		// bwrap gives the namespace level a cgroup namespace of its own.
		if got, prefix := strings.TrimSpace(res.Stdout), "0::"+f.rel+"/"+r.cgroups.prefix; !strings.HasPrefix(got, prefix) {
			t.Errorf("the code ran in %q, want a run cgroup %s…", got, prefix)
		}
	}
	if !slices.ContainsFunc(res.Notes, func(n event.ExecNote) bool { return n.Code == string(event.NoteCgroupJoined) }) {
		t.Errorf("notes %+v: want cgroup_joined", res.Notes)
	}
	f.wantNoChildren(t, r)
}

// TestCgroupV2KilledAppCgroup: a loopforge started in a cgroup that has had
// cgroup.kill written (on this kernel a child born into a new cgroup
// beneath it is then killed at birth) finds so in its probe, and its runs
// join their cgroup from the shim; the doctor says so. Before, every run
// failed with a shim that never spoke while the doctor saw nothing wrong.
func TestCgroupV2KilledAppCgroup(t *testing.T) {
	f := mountCgroup2(t)
	Probe() // the process's own probe, from where it really is
	killedCgroup(t, f)
	wantKilledAtBirth(t, f)
	m, ch := f.probe()
	t.Logf("probe: %+v", ch)
	if ch.V2Attach != attachJoin || m.attach() != attachJoin || !strings.Contains(ch.Problem, "runs join their cgroup from the shim: "+errBornKilled.Error()) {
		t.Fatalf("the probe did not see children killed at birth: %+v", ch)
	}
	f.wantNoChildren(t) // the probe's test cgroup is gone
	for _, level := range cgroupV2Levels {
		t.Run(level, func(t *testing.T) {
			r := f.runner(t, level)
			wantJoinedRun(t, f, r)
			if level == IsolationBasic {
				// The complete kill still reaches a setsid daemon.
				res, marker := runOn(t, r, context.Background(), Request{Code: setsidDaemon(false)})
				defer killMarked(marker)
				wantStatus(t, res, StatusOK)
				if daemon := firstInt(t, res.Stdout); procgroup.Alive(daemon) {
					t.Errorf("the setsid daemon %d survived the run", daemon)
				}
				f.wantNoChildren(t, r)
			}
		})
	}
	h := f.host()
	text := doctor(h).Text()
	t.Logf("\n%s", text)
	for _, want := range []string{"runs join their cgroup from the shim", "killed at birth", "never killed"} {
		if !strings.Contains(text, want) {
			t.Errorf("the doctor does not say %q", want)
		}
	}
}

// TestCgroupV2KilledAfterProbe: when runs start being killed at birth after
// the probe found them fine, the first such run switches the Runner to
// joining and runs again (nothing of its code had started); the doctor
// reports the switch.
func TestCgroupV2KilledAfterProbe(t *testing.T) {
	f := mountCgroup2(t)
	Probe()
	r := f.runner(t, IsolationBasic)
	if a := r.cgroups.attach(); a != attachClone {
		t.Fatalf("attach %q before the kill, want clone", a)
	}
	killedCgroup(t, f)
	wantKilledAtBirth(t, f)
	wantJoinedRun(t, f, r)
	if a := r.cgroups.attach(); a != attachJoin {
		t.Errorf("attach %q after a run was killed at birth, want join", a)
	}
	wantJoinedRun(t, f, r) // the next run joins at once
	text := doctor(r.host).Text()
	if !strings.Contains(text, "runs join their cgroup from the shim: "+errBornKilled.Error()) {
		t.Errorf("the doctor does not report the switch:\n%s", text)
	}
}
