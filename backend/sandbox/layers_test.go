//go:build linux

package sandbox

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// Fast checks of each layer for `make test`; the long per-level suite is
// hostile_test.go (LOOPFORGE_HOSTILE=1).

// seccompData is struct seccomp_data as the x/net/bpf VM reads it: it loads
// 32-bit words big-endian, so each word is stored that way (the kernel
// loads them in host order; the word values are what matter).
func seccompData(arch, nr uint32, args ...uint64) []byte {
	b := make([]byte, 64)
	binary.BigEndian.PutUint32(b[seccompOffNr:], nr)
	binary.BigEndian.PutUint32(b[seccompOffArch:], arch)
	for i, a := range args {
		binary.BigEndian.PutUint32(b[seccompOffArg0+8*i:], uint32(a))
	}
	return b
}

func TestSeccompProgram(t *testing.T) {
	if !seccompSupported {
		t.Skip("no seccomp filter for this architecture")
	}
	allow, eperm := seccompRetAllow, seccompRetErrno|int(unix.EPERM)
	eacces, enosys := seccompRetErrno|int(unix.EACCES), seccompRetErrno|int(unix.ENOSYS)
	type call struct {
		name string
		data []byte
		want int
	}
	a := uint32(seccompAuditArch)
	common := []call{
		{"read", seccompData(a, unix.SYS_READ), allow},
		{"other ABI", seccompData(a^1, unix.SYS_READ), seccompRetKillProcess},
		{"ptrace", seccompData(a, unix.SYS_PTRACE), eperm},
		{"io_uring_setup", seccompData(a, unix.SYS_IO_URING_SETUP), eperm},
		{"mount", seccompData(a, unix.SYS_MOUNT), eperm},
		{"unshare", seccompData(a, unix.SYS_UNSHARE, unix.CLONE_NEWUSER), eperm},
		{"clone3", seccompData(a, unix.SYS_CLONE3), enosys},
		{"clone thread", seccompData(a, unix.SYS_CLONE, unix.CLONE_VM|unix.CLONE_THREAD|unix.CLONE_SIGHAND), allow},
		{"clone newuser", seccompData(a, unix.SYS_CLONE, unix.CLONE_NEWUSER|uint64(unix.SIGCHLD)), eperm},
		{"clone newnet", seccompData(a, unix.SYS_CLONE, unix.CLONE_NEWNET), eperm},
		{"ioctl TIOCSTI", seccompData(a, unix.SYS_IOCTL, 0, unix.TIOCSTI), eperm},
		{"ioctl TIOCLINUX", seccompData(a, unix.SYS_IOCTL, 0, unix.TIOCLINUX), eperm},
		{"ioctl TCGETS", seccompData(a, unix.SYS_IOCTL, 0, unix.TCGETS), allow},
		{"socketpair", seccompData(a, unix.SYS_SOCKETPAIR, unix.AF_UNIX), allow},
		// No set-user-ID or set-group-ID files (Request.Dir keeps them).
		{"fchmodat 0755", seccompData(a, unix.SYS_FCHMODAT, 3, 0, 0o755), allow},
		{"fchmodat setuid", seccompData(a, unix.SYS_FCHMODAT, 3, 0, 0o4755), eperm},
		{"fchmodat2 setgid", seccompData(a, unix.SYS_FCHMODAT2, 3, 0, 0o2775, 0), eperm},
		{"fchmod setuid", seccompData(a, unix.SYS_FCHMOD, 3, 0o4700), eperm},
		{"fchmod sticky", seccompData(a, unix.SYS_FCHMOD, 3, 0o1777), allow},
		{"mknodat setuid file", seccompData(a, unix.SYS_MKNODAT, 3, 0, unix.S_IFREG|0o4755), eperm},
		{"openat create 0644", seccompData(a, unix.SYS_OPENAT, 3, 0, unix.O_CREAT|unix.O_WRONLY, 0o644), allow},
		{"openat create setuid", seccompData(a, unix.SYS_OPENAT, 3, 0, unix.O_CREAT|unix.O_WRONLY, 0o4755), eperm},
		{"openat tmpfile setgid", seccompData(a, unix.SYS_OPENAT, 3, 0, unix.O_TMPFILE|unix.O_RDWR, 0o2755), eperm},
		{"openat read, junk mode", seccompData(a, unix.SYS_OPENAT, 3, 0, unix.O_RDONLY|unix.O_DIRECTORY, 0o6000), allow},
		{"openat2", seccompData(a, unix.SYS_OPENAT2, 3, 0, 0, 24), enosys},
	}
	if seccompX32Bit != 0 {
		common = append(common, call{"x32 read", seccompData(a, seccompX32Bit|unix.SYS_READ), eperm})
	}
	for _, tc := range []struct {
		name  string
		spec  seccompSpec
		calls []call
	}{
		{"no socket rule", seccompSpec{}, []call{
			{"inet", seccompData(a, unix.SYS_SOCKET, unix.AF_INET), allow},
			{"packet", seccompData(a, unix.SYS_SOCKET, unix.AF_PACKET), allow},
		}},
		{"no sockets", seccompSpec{Sockets: []uint32{}}, []call{
			{"inet", seccompData(a, unix.SYS_SOCKET, unix.AF_INET), eacces},
			{"unix", seccompData(a, unix.SYS_SOCKET, unix.AF_UNIX), eacces},
		}},
		{"unix only", seccompSpec{Sockets: []uint32{unix.AF_UNIX}}, []call{
			{"unix", seccompData(a, unix.SYS_SOCKET, unix.AF_UNIX), allow},
			{"inet6", seccompData(a, unix.SYS_SOCKET, unix.AF_INET6), eacces},
			{"netlink", seccompData(a, unix.SYS_SOCKET, unix.AF_NETLINK), eacces},
		}},
		{"app protected", seccompSpec{AppPid: 4242, AppPgid: 4200}, []call{
			{"kill app", seccompData(a, unix.SYS_KILL, 4242, 9), eperm},
			{"kill everyone", seccompData(a, unix.SYS_KILL, uint64(^uint32(0)), 9), eperm},
			{"kill app group", seccompData(a, unix.SYS_KILL, uint64(uint32(0xffffffff-4200+1)), 9), eperm},
			{"kill own group", seccompData(a, unix.SYS_KILL, 0, 9), allow},
			{"kill child", seccompData(a, unix.SYS_KILL, 4243, 9), allow},
			{"tgkill app", seccompData(a, unix.SYS_TGKILL, 4242, 4250, 9), eperm},
			{"tgkill self", seccompData(a, unix.SYS_TGKILL, 77, 77, 6), allow},
			{"pidfd_open app", seccompData(a, unix.SYS_PIDFD_OPEN, 4242), eperm},
			{"pidfd_open child", seccompData(a, unix.SYS_PIDFD_OPEN, 99), allow},
			{"tkill", seccompData(a, unix.SYS_TKILL, 99, 9), eperm},
			{"pidfd_send_signal", seccompData(a, unix.SYS_PIDFD_SEND_SIGNAL, 3, 9), eperm},
		}},
		{"internet", seccompSpec{Sockets: []uint32{unix.AF_INET, unix.AF_INET6, unix.AF_NETLINK}}, []call{
			{"inet", seccompData(a, unix.SYS_SOCKET, unix.AF_INET), allow},
			{"inet6", seccompData(a, unix.SYS_SOCKET, unix.AF_INET6), allow},
			{"netlink", seccompData(a, unix.SYS_SOCKET, unix.AF_NETLINK), allow},
			{"unix", seccompData(a, unix.SYS_SOCKET, unix.AF_UNIX), eacces},
			{"packet", seccompData(a, unix.SYS_SOCKET, unix.AF_PACKET), eacces},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			vm, err := bpf.NewVM(seccompProgram(tc.spec))
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range append(slices.Clone(common), tc.calls...) {
				got, err := vm.Run(c.data)
				if err != nil || got != c.want {
					t.Errorf("%s: %#x, %v; want %#x", c.name, got, err, c.want)
				}
			}
		})
	}
}

func TestExpandExcept(t *testing.T) {
	dir := t.TempDir()
	for _, p := range []string{"a/x", "b/secret", "b/ok", "c"} {
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, p), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got := expandExcept(dir, []string{filepath.Join(dir, "b/secret"), filepath.Join(dir, "c")})
	want := []string{filepath.Join(dir, "a"), filepath.Join(dir, "b/ok")}
	if !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestInstallRoot(t *testing.T) {
	home, _ := os.UserHomeDir()
	for exe, want := range map[string]string{
		"/usr/bin/python3":                    "",
		"/opt/node/bin/node":                  "/opt/node",
		home + "/.pyenv/versions/3.12/bin/py": home + "/.pyenv/versions/3.12",
		home + "/bin/python3":                 home + "/bin/python3", // never the whole home
		"/srv/tools/python3":                  "/srv/tools",
	} {
		if got := installRoot(exe); got != want {
			t.Errorf("installRoot(%s) = %q, want %q", exe, got, want)
		}
	}
}

func TestProbe(t *testing.T) {
	h := Probe()
	if h != Probe() {
		t.Error("Probe is not cached")
	}
	if h.Kernel == "" || (h.BwrapOK && h.Bwrap == "") || (h.LandlockABI == 0 && h.LandlockError == "") {
		t.Errorf("inconsistent probe: %+v", h)
	}
	b, _ := json.Marshal(h)
	t.Logf("host: %s", b)
}

func TestDoctor(t *testing.T) {
	rep := Doctor()
	if len(rep.Layers) != 5 || rep.Isolation == "" {
		t.Fatalf("report %+v", rep)
	}
	text := rep.Text()
	for _, l := range rep.Layers {
		if !strings.Contains(text, l.Name) {
			t.Errorf("text lacks %s:\n%s", l.Name, text)
		}
		if !l.OK && l.Fix == "" {
			t.Errorf("layer %s is missing without a fix", l.Name)
		}
	}
	if r := testRunner(t); rep.Isolation != r.Isolation() {
		t.Errorf("doctor says %s, a default runner applies %s", rep.Isolation, r.Isolation())
	}
	if _, err := json.Marshal(rep); err != nil {
		t.Error(err)
	}
	// Pictures: whether the sandbox's python imports matplotlib.
	if have := matplotlibIn(rep.Interpreters["python"]); have != (rep.Matplotlib != "") || !strings.Contains(text, "\nPictures: ") {
		t.Errorf("matplotlib importable %v, report says %q:\n%s", have, rep.Matplotlib, text)
	}
	if rep.Matplotlib == "" && !strings.Contains(text, "python3-matplotlib") {
		t.Errorf("no matplotlib and no way to get it:\n%s", text)
	}
	t.Logf("\n%s", text)
}

// TestLevels runs one probe program at every level this host offers and
// checks the protections each level promises.
func TestLevels(t *testing.T) {
	for _, level := range []string{IsolationBasic, IsolationLandlock, IsolationNamespace} {
		t.Run(level, func(t *testing.T) {
			t.Parallel()
			canary := filepath.Join(t.TempDir(), "canary")
			if err := os.WriteFile(canary, []byte("intact"), 0o644); err != nil {
				t.Fatal(err)
			}
			code := tryPrelude + `try_('write outside', lambda: open('` + canary + `', 'w').write('x'))
try_('inet socket', lambda: socket.socket(socket.AF_INET, socket.SOCK_DGRAM))
try_('write run dir', lambda: open('f', 'w').write('x'))
try_('read /usr', lambda: open('/usr/lib/os-release').read(1))
done()`
			r, err := NewRunner(Options{Isolation: level, TempRoot: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			if r.isolation != level {
				t.Skipf("%s is not available here", level)
			}
			res, m := runOn(t, r, context.Background(), Request{Code: code, Limits: Limits{Timeout: 20 * time.Second}})
			wantStatus(t, res, StatusOK)
			wantNoSurvivors(t, m)
			wantDirEmpty(t, r)
			rep := report(t, res)
			want(t, rep, "write run dir", true)
			want(t, rep, "read /usr", true)
			want(t, rep, "write outside", !res.Protections.Files)
			want(t, rep, "inet socket", !res.Protections.Network)
			if level != IsolationBasic && !res.Protections.Files {
				t.Errorf("%s without file protection", level)
			}
			if b, _ := os.ReadFile(canary); (string(b) == "intact") != res.Protections.Files {
				t.Errorf("canary %q with file protection %v", b, res.Protections.Files)
			}
			if !strings.HasPrefix(res.Isolation, level) || len(res.Layers) == 0 {
				t.Errorf("isolation %q layers %v", res.Isolation, res.Layers)
			}
		})
	}
}

func TestAllowNetwork(t *testing.T) {
	t.Parallel()
	code := tryPrelude + "try_('inet socket', lambda: socket.socket(socket.AF_INET, socket.SOCK_DGRAM))\ndone()"
	res, _ := runOn(t, testRunner(t), context.Background(), Request{Code: code, AllowNetwork: true})
	wantStatus(t, res, StatusOK)
	want(t, report(t, res), "inet socket", true)
	if res.Protections.Network || !slices.ContainsFunc(res.Warnings, func(w string) bool { return strings.Contains(w, "network access allowed") }) {
		t.Errorf("protections %+v warnings %v", res.Protections, res.Warnings)
	}
}

func TestNode(t *testing.T) {
	t.Parallel()
	r := testRunner(t)
	if r.Node() == "" {
		t.Skip("no Node.js")
	}
	res, m := runOn(t, r, context.Background(), Request{Language: "node", Code: "console.log(6 * 7)"})
	wantStatus(t, res, StatusOK)
	wantNoSurvivors(t, m)
	if res.Stdout != "42\n" {
		t.Errorf("stdout %q stderr %q", res.Stdout, res.Stderr)
	}
	res, _ = runOn(t, r, context.Background(), Request{Language: "node", Code: "Buffer.alloc(2 ** 31)", Limits: Limits{MemoryBytes: 256 << 20}})
	wantStatus(t, res, StatusMemory)
}

// TestCgroupLifecycle: a run cgroup gets the limits and disappears after.
func TestCgroupLifecycle(t *testing.T) {
	r := testRunner(t)
	if r.cgroups == nil {
		t.Skip("no cgroups for runs here")
	}
	lim := Limits{MemoryBytes: 300 << 20, Processes: 42, CPUs: 0.5}.withDefaults()
	cg, err := r.cgroups.create(lim)
	if err != nil {
		t.Fatal(err)
	}
	dirs := []string{cg.v2}
	for _, d := range cg.v1 {
		dirs = append(dirs, d)
	}
	if d := cg.v1["pids"]; d != "" {
		if got := readTrim(filepath.Join(d, "pids.max")); got != "42" {
			t.Errorf("pids.max %q", got)
		}
	}
	if d := cg.v1["memory"]; d != "" {
		if got := readTrim(filepath.Join(d, "memory.limit_in_bytes")); got != "314572800" {
			t.Errorf("memory.limit_in_bytes %q", got)
		}
	}
	if d := cg.v1["cpu"]; d != "" {
		if got := readTrim(filepath.Join(d, "cpu.cfs_quota_us")); got != "50000" {
			t.Errorf("cpu.cfs_quota_us %q", got)
		}
	}
	if len(cg.members()) != 0 || cg.oomKilled() || cg.pidsLimitHit() {
		t.Error("a fresh cgroup reports members or events")
	}
	cg.remove()
	for _, d := range dirs {
		if d != "" && fileExists(d) {
			t.Errorf("%s left behind", d)
		}
	}
}

// TestStandaloneShim builds ./cmd/loopforge-shim and runs code through it,
// the fast path for the desktop app (see ShimName).
func TestStandaloneShim(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a binary")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	shim := filepath.Join(t.TempDir(), ShimName)
	build := exec.Command(goBin, "build", "-o", shim, "./cmd/loopforge-shim")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Skipf("cannot build the shim here: %v\n%s", err, out)
	}
	if !trustedShim(shim) {
		t.Fatalf("%s not trusted", shim)
	}
	if err := os.Chmod(shim, 0o777); err != nil {
		t.Fatal(err)
	}
	if trustedShim(shim) {
		t.Error("a world-writable shim is trusted")
	}
	if err := os.Chmod(shim, 0o755); err != nil {
		t.Fatal(err)
	}
	r, err := NewRunner(Options{Self: shim})
	if err != nil {
		t.Fatal(err)
	}
	res, m := runOn(t, r, context.Background(), Request{Code: "print('via the shim')"})
	wantStatus(t, res, StatusOK)
	wantNoSurvivors(t, m)
	if res.Stdout != "via the shim\n" || res.Isolation != testRunner(t).Isolation() {
		t.Errorf("stdout %q isolation %q", res.Stdout, res.Isolation)
	}
}

// TestShimRejectsUnknownSpec: a shim older than the app (a stale
// loopforge-shim) must fail rather than skip a layer it does not know.
func TestShimRejectsUnknownSpec(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for name, spec := range map[string]string{
		"unknown field": `{"v":3,"path":"/bin/true","args":["true"],"isolation":"basic","seccomp":{"sockets":[],"new_layer":1}}`,
		"old version":   `{"v":1,"path":"/bin/true","args":["true"],"isolation":"basic"}`,
	} {
		t.Run(name, func(t *testing.T) {
			r, w, _ := os.Pipe()
			cmd := exec.Command(self, childArg)
			cmd.Env = []string{specEnv + "=" + spec}
			cmd.ExtraFiles = []*os.File{w}
			out, err := cmd.CombinedOutput()
			w.Close()
			status := make([]byte, 512)
			n, _ := r.Read(status)
			r.Close()
			if cmd.ProcessState == nil || cmd.ProcessState.ExitCode() != childFailExit || n == 0 || status[0] != statusFail {
				t.Errorf("shim accepted %s: err %v, output %q, status %q", spec, err, out, status[:n])
			}
		})
	}
}
