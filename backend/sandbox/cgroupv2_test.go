//go:build linux

package sandbox

// The cgroup v2 path on a host whose memory, pids and cpu controllers are
// elsewhere. Desktop hosts are pure cgroup v2; this CI VM is hybrid (those
// controllers are bound to v1 hierarchies), so production runs here use v1
// for the limits and the v2 hierarchy only for cgroup.kill. These tests
// mount a cgroup2 file system on a temp dir, make a directory there the
// "app's cgroup", and probe as if the host were pure v2 with nothing
// delegated: runs get their own cgroup and its complete kill, and no limits,
// and must say so.
//
// A cgroup2 mount is not a private hierarchy: there is one v2 hierarchy per
// machine (per cgroup namespace), so what the tests create there also shows
// under /sys/fs/cgroup/unified. They work beneath one directory of their own
// and remove every cgroup they made before unmounting.
//
// Not covered here: pids, memory and cpu limits under v2 (no v2 hierarchy
// here has those controllers; see doc.go).

import (
	"context"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/loopforge/loopforge/backend/procgroup"
)

// cgroup2Fixture is a cgroup2 mount with a parent cgroup for the runs.
type cgroup2Fixture struct {
	mnt    string // mount point of the cgroup2 file system
	rel    string // the parent's path in the hierarchy, as /proc/<pid>/cgroup shows it
	parent string // mnt + rel: where the run cgroups must go
}

// mountCgroup2 mounts cgroup2 on a temp dir (root only) and makes the
// parent cgroup. Cleanup kills whatever is left in it, removes every cgroup
// beneath it and unmounts.
func mountCgroup2(t *testing.T) *cgroup2Fixture {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("mounting a cgroup2 file system needs root (CI runs this as root)")
	}
	mnt := t.TempDir()
	if err := unix.Mount("none", mnt, "cgroup2", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
		t.Skipf("cannot mount cgroup2 on %s: %v", mnt, err)
	}
	f := &cgroup2Fixture{mnt: mnt, rel: fmt.Sprintf("/loopforge-v2test-%d-%d", os.Getpid(), markerSeq.Add(1))}
	f.parent = filepath.Join(mnt, f.rel)
	// Registered after t.TempDir, so it runs before the temp dir's removal.
	t.Cleanup(func() {
		if left := removeCgroupTree(f.parent); len(left) > 0 {
			t.Errorf("cgroups not removable: %v", left)
		}
		if err := unix.Unmount(mnt, 0); err != nil {
			t.Errorf("unmount %s: %v (detaching)", mnt, err)
			_ = unix.Unmount(mnt, unix.MNT_DETACH)
		}
	})
	if err := os.Mkdir(f.parent, 0o755); err != nil {
		t.Fatalf("create the parent cgroup: %v", err)
	}
	return f
}

// removeCgroupTree kills the members of dir and every cgroup beneath it and
// removes them, deepest first. It returns what it could not remove.
func removeCgroupTree(dir string) []string {
	var dirs []string
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			dirs = append(dirs, p)
		}
		return nil
	})
	var left []string
	for _, d := range slices.Backward(dirs) {
		_ = os.WriteFile(filepath.Join(d, "cgroup.kill"), []byte("1"), 0)
		var err error
		for range 250 {
			if err = os.Remove(d); err == nil || os.IsNotExist(err) {
				err = nil
				break
			}
			time.Sleep(4 * time.Millisecond)
		}
		if err != nil {
			left = append(left, fmt.Sprintf("%s: %v", d, err))
		}
	}
	return left
}

// probe probes cgroups as on a pure v2 host whose app cgroup is f.parent:
// no v1 hierarchies, only this cgroup2 mount.
func (f *cgroup2Fixture) probe() (*cgroupManager, CgroupHost) {
	return probeCgroupsFrom([]cgMount{{dir: f.mnt, root: "/", v2: true}}, map[string]string{"": f.rel})
}

// host is the real host probe with the cgroups replaced by f's.
func (f *cgroup2Fixture) host() *Host {
	h := *Probe()
	h.cgroups, h.Cgroup = f.probe()
	return &h
}

func (f *cgroup2Fixture) runner(t *testing.T, level string) *Runner {
	t.Helper()
	r, err := newRunner(Options{Isolation: level, TempRoot: t.TempDir()}, f.host())
	if err != nil {
		t.Fatal(err)
	}
	if level != "" && r.isolation != level {
		t.Skipf("level %s is not available here", level)
	}
	if r.cgroups == nil || r.cgroups.v2 != f.parent {
		t.Fatalf("the runner does not use the v2 parent %s: %+v", f.parent, r.cgroups)
	}
	return r
}

// children lists the cgroups beneath the parent, at any depth.
func (f *cgroup2Fixture) children() []string {
	var out []string
	_ = filepath.WalkDir(f.parent, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() && p != f.parent {
			out = append(out, strings.TrimPrefix(p, f.parent+"/"))
		}
		return nil
	})
	return out
}

// wantNoChildren fails if cgroups are left under the parent once the
// runners' clean-up is done.
func (f *cgroup2Fixture) wantNoChildren(t *testing.T, rs ...*Runner) {
	t.Helper()
	for _, r := range rs {
		r.Wait()
	}
	if c := f.children(); len(c) > 0 {
		t.Errorf("cgroups left behind under %s: %v", f.parent, c)
	}
}

// v2Path is the cgroup v2 path of pid ("0::<path>" in /proc/<pid>/cgroup),
// "" when it cannot be read.
func v2Path(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cgroup", pid))
	if err != nil {
		return ""
	}
	for line := range strings.Lines(string(b)) {
		if p, ok := strings.CutPrefix(strings.TrimSpace(line), "0::"); ok {
			return p
		}
	}
	return ""
}

// pidsIn parses the numbers a program printed, one per line.
func pidsIn(t *testing.T, out string) []int {
	t.Helper()
	var pids []int
	for _, f := range strings.Fields(out) {
		n, err := strconv.Atoi(f)
		if err != nil {
			t.Fatalf("output %q: %v", out, err)
		}
		pids = append(pids, n)
	}
	return pids
}

var cgroupV2Levels = []string{IsolationBasic, IsolationNamespace}

// TestCgroupV2Probe: the probe and the doctor describe a v2 parent without
// controllers as kill-only, with the reason, and the probe leaves nothing.
func TestCgroupV2Probe(t *testing.T) {
	f := mountCgroup2(t)
	m, ch := f.probe()
	t.Logf("probe: %+v", ch)
	if ch.Version != "v2" || !ch.Kill || ch.Pids || ch.Memory || ch.CPU || !ch.Usable() {
		t.Errorf("probe %+v: want v2, kill only", ch)
	}
	if m.v2 != f.parent || len(m.v2Ctrl) != 0 || len(m.v1) != 0 || !maps.Equal(ch.Dirs, map[string]string{"v2": f.parent}) {
		t.Errorf("manager v2 %q ctrl %v v1 %v dirs %v", m.v2, m.v2Ctrl, m.v1, ch.Dirs)
	}
	if !strings.Contains(ch.Problem, "has no pids, memory, cpu controller") || !strings.Contains(ch.Problem, f.parent) {
		t.Errorf("problem %q: want the missing controllers named", ch.Problem)
	}
	f.wantNoChildren(t) // the probe's test directory is gone

	h := f.host()
	rep := doctor(h)
	t.Logf("\n%s", rep.Text())
	if !strings.HasSuffix(rep.Isolation, CgroupSuffix) || rep.Protections.Memory || rep.Protections.Processes != (h.BwrapOK && !h.Root) {
		t.Errorf("doctor isolation %q protections %+v", rep.Isolation, rep.Protections)
	}
	i := slices.IndexFunc(rep.Layers, func(l Layer) bool { return l.Name == "cgroup" })
	if i < 0 {
		t.Fatalf("no cgroup layer in %+v", rep.Layers)
	}
	l := rep.Layers[i]
	if !l.OK || !strings.HasPrefix(l.Detail, "cgroup v2: complete kill (") || l.Fix == "" {
		t.Errorf("cgroup layer %+v: want v2 with the complete kill only, the reason and a fix", l)
	}
	for _, claim := range []string{"process limit", "memory limit", "CPU limit"} {
		if strings.Contains(l.Detail, claim) {
			t.Errorf("cgroup layer claims a %s: %q", claim, l.Detail)
		}
	}
	if !strings.Contains(rep.Text(), "memory ✗") {
		t.Errorf("doctor text does not show the missing memory limit")
	}
}

// TestCgroupV2RunCgroup: every process of a run is in a cgroup of its own
// beneath the parent, and the cgroup is gone when Run returns.
func TestCgroupV2RunCgroup(t *testing.T) {
	f := mountCgroup2(t)
	for _, level := range cgroupV2Levels {
		t.Run(level, func(t *testing.T) {
			r := f.runner(t, level)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			m := newMarker()
			type outcome struct {
				res Result
				err error
			}
			done := make(chan outcome, 1)
			// The code prints its cgroup after starting the sleeper: the
			// cancel waits for that line as well as for the sleeper.
			printed := newLiveCopy("\n")
			go func() {
				code := "import subprocess, time\nsubprocess.Popen(['sleep', '1000'])\nprint([l for l in open('/proc/self/cgroup').read().split() if l.startswith('0::')][0], flush=True)\ntime.sleep(1000)"
				res, err := r.Run(withMarker(ctx, m), Request{Code: code, Limits: Limits{Timeout: 20 * time.Second}, LiveStdout: printed})
				done <- outcome{res, err}
			}()
			// Wait for the sleeper (python's child), then look at every
			// process of the run from the host's side.
			var procs []int
			var runCg string
			deadline := time.Now().Add(10 * time.Second)
			for {
				procs = markedProcs(m)
				kids := f.children()
				if len(kids) == 1 {
					runCg = filepath.Join(f.parent, kids[0])
				}
				if runCg != "" && len(procs) >= 2 && slices.ContainsFunc(procs, func(p int) bool {
					b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", p))
					return strings.HasPrefix(string(b), "sleep\x00")
				}) {
					break
				}
				if time.Now().After(deadline) {
					cancel()
					t.Fatalf("the run did not start: procs %v, cgroups %v", procs, f.children())
				}
				time.Sleep(10 * time.Millisecond)
			}
			if !strings.HasPrefix(filepath.Base(runCg), r.cgroups.prefix) {
				t.Errorf("run cgroup %s: want the prefix %s", runCg, r.cgroups.prefix)
			}
			want := strings.TrimPrefix(runCg, f.mnt)
			for _, p := range procs {
				if got := v2Path(p); got != want && procgroup.Alive(p) {
					t.Errorf("process %d is in %q, want the run's cgroup %q", p, got, want)
				}
			}
			members := pidsIn(t, readTrim(filepath.Join(runCg, "cgroup.procs")))
			for _, p := range procs {
				if !slices.Contains(members, p) && procgroup.Alive(p) {
					t.Errorf("process %d not listed in %s/cgroup.procs %v", p, runCg, members)
				}
			}
			waitSeen(t, printed, "the code's cgroup line")
			cancel()
			o := <-done
			if o.err != nil {
				t.Fatal(o.err)
			}
			wantStatus(t, o.res, StatusKilled)
			t.Logf("the code saw %q; run cgroup %s; %d processes", strings.TrimSpace(o.res.Stdout), want, len(procs))
			if level == IsolationBasic && strings.TrimSpace(o.res.Stdout) != "0::"+want {
				// bwrap gives the namespace level its own cgroup namespace.
				t.Errorf("the code saw its cgroup as %q, want 0::%s", o.res.Stdout, want)
			}
			wantNoSurvivors(t, m)
			r.Wait()
			if fileExists(runCg) {
				t.Errorf("%s still exists after Run", runCg)
			}
			f.wantNoChildren(t, r)
			wantDirEmpty(t, r)
		})
	}
}

// setsidDaemon forks a setsid() daemon (a double fork, so it is orphaned
// and in its own session and process group), prints its pid and exits.
// keepStdout leaves the daemon holding the output pipe.
func setsidDaemon(keepStdout bool) string {
	closeFds := "        for fd in (0, 1, 2): os.close(fd)\n"
	if keepStdout {
		closeFds = ""
	}
	return "import os, time\nr, w = os.pipe()\nif os.fork() == 0:\n    os.setsid()\n    pid = os.fork()\n    if pid == 0:\n" + closeFds +
		"        time.sleep(1000)\n        os._exit(0)\n    os.write(w, b'%d' % pid)\n    os._exit(0)\nos.close(w)\nos.wait()\nprint(os.read(r, 64).decode(), flush=True)\n"
}

// TestCgroupV2KillsSetsidDaemon: at the basic level only the cgroup can
// reach a setsid daemon (no PID namespace); cgroup.kill must. The control
// run without a cgroup shows the daemon would otherwise survive.
func TestCgroupV2KillsSetsidDaemon(t *testing.T) {
	f := mountCgroup2(t)
	r := f.runner(t, IsolationBasic)
	for _, keep := range []bool{false, true} {
		t.Run(fmt.Sprintf("keepStdout=%v", keep), func(t *testing.T) {
			start := time.Now()
			res, m := runOn(t, r, context.Background(), Request{Code: setsidDaemon(keep)})
			elapsed := time.Since(start)
			defer killMarked(m)
			wantStatus(t, res, StatusOK)
			daemon := firstInt(t, res.Stdout)
			if procgroup.Alive(daemon) {
				t.Errorf("the setsid daemon %d survived the run", daemon)
			}
			wantNoSurvivors(t, m)
			if after := elapsed - res.Duration; after > time.Second {
				t.Errorf("Run took %v after the code exited", after)
			}
			f.wantNoChildren(t, r)
		})
	}
	t.Run("control without cgroup", func(t *testing.T) {
		plain := *r
		plain.cgroups = nil
		res, m := runOn(t, &plain, context.Background(), Request{Code: setsidDaemon(false)})
		defer killMarked(m)
		wantStatus(t, res, StatusOK)
		if daemon := firstInt(t, res.Stdout); !procgroup.Alive(daemon) {
			t.Errorf("without a cgroup the daemon %d died too: the test above proves nothing", daemon)
		}
	})
}

// TestCgroupV2TimeoutKillsTree: on timeout, the child, the orphan and the
// setsid daemon die with the leader.
func TestCgroupV2TimeoutKillsTree(t *testing.T) {
	f := mountCgroup2(t)
	r := f.runner(t, IsolationBasic)
	code := `import os, subprocess, time
print(subprocess.Popen(['sleep', '1000']).pid, flush=True)
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        print(os.getpid(), flush=True)
        time.sleep(1000)
    os._exit(0)
os.wait()
time.sleep(1000)`
	res, m := runOn(t, r, context.Background(), Request{Code: code, Limits: Limits{Timeout: printThenTimeout}})
	defer killMarked(m)
	wantStatus(t, res, StatusTimeout)
	pids := pidsIn(t, res.Stdout)
	if len(pids) != 2 {
		t.Fatalf("stdout %q: want two pids", res.Stdout)
	}
	for _, p := range pids {
		if procgroup.Alive(p) {
			t.Errorf("process %d survived the timeout", p)
		}
	}
	wantNoSurvivors(t, m)
	f.wantNoChildren(t, r)
}

// TestCgroupV2NoControllersReported: a run in a cgroup without the memory,
// pids and cpu controllers claims none of their limits, says so, and is
// not limited as a whole (the per-process rlimits still are).
func TestCgroupV2NoControllersReported(t *testing.T) {
	f := mountCgroup2(t)
	for _, level := range cgroupV2Levels {
		t.Run(level, func(t *testing.T) {
			r := f.runner(t, level)
			res, m := runOn(t, r, context.Background(), Request{Code: "print(1)"})
			wantStatus(t, res, StatusOK)
			wantNoSurvivors(t, m)
			p := res.Protections
			if p.Memory {
				t.Error("Protections.Memory claimed without a memory controller")
			}
			if p.Processes != r.nproc {
				t.Errorf("Protections.Processes %v; only RLIMIT_NPROC (%v) bounds processes here", p.Processes, r.nproc)
			}
			if !slices.Contains(res.Layers, "cgroup") || !strings.HasSuffix(res.Isolation, CgroupSuffix) {
				t.Errorf("layers %v isolation %q: the run had its own cgroup", res.Layers, res.Isolation)
			}
			if !slicesContainsPrefix(res.Warnings, "the run's cgroup has no pids, memory, cpu controller: ") ||
				!slices.ContainsFunc(res.Warnings, func(w string) bool { return strings.Contains(w, "memory is limited per process only") }) {
				t.Errorf("warnings %q: want the missing controllers reported", res.Warnings)
			}
			if !r.nproc && !slices.ContainsFunc(res.Warnings, func(w string) bool { return strings.Contains(w, "number of processes is not bounded") }) {
				t.Errorf("warnings %q: want the unbounded processes reported", res.Warnings)
			}
			t.Logf("isolation %s, protections %+v, warnings %q", res.Isolation, p, res.Warnings)

			// Three processes of 100 MiB each, each under the 192 MiB
			// per-process rlimit, together over it: nothing limits the sum.
			code := "import os, time\npids = []\nfor i in range(3):\n    p = os.fork()\n    if p == 0:\n        b = bytearray(100 << 20)\n        for j in range(0, len(b), 4096): b[j] = 1\n        time.sleep(0.5)\n        os._exit(0)\n    pids.append(p)\nprint(sum(1 for p in pids if os.waitpid(p, 0)[1] != 0))"
			res, m = runOn(t, r, context.Background(), Request{Code: code, Limits: Limits{MemoryBytes: 192 << 20, Timeout: 20 * time.Second}})
			wantStatus(t, res, StatusOK)
			wantNoSurvivors(t, m)
			if strings.TrimSpace(res.Stdout) != "0" {
				t.Errorf("%s children failed: %s", res.Stdout, res.Stderr)
			}
			res, _ = runOn(t, r, context.Background(), Request{Code: "x = bytearray(1 << 30)", Limits: Limits{MemoryBytes: 192 << 20}})
			wantStatus(t, res, StatusMemory) // RLIMIT_AS
			f.wantNoChildren(t, r)
		})
	}
}

// TestCgroupV2NestedCgroup: code that can write the cgroup file system (root
// at the basic level) moves itself into a cgroup of its own beneath the
// run's and leaves a daemon there. The kill must reach it and Run must
// remove both cgroups.
func TestCgroupV2NestedCgroup(t *testing.T) {
	f := mountCgroup2(t)
	r := f.runner(t, IsolationBasic)
	code := fmt.Sprintf(`import os, time
me = [l for l in open('/proc/self/cgroup').read().split() if l.startswith('0::')][0][3:]
sub = %q + me + '/escape'
os.mkdir(sub)
open(sub + '/cgroup.procs', 'w').write(str(os.getpid()))
`, f.mnt) + strings.TrimPrefix(setsidDaemon(false), "import os, time\n")
	res, m := runOn(t, r, context.Background(), Request{Code: code})
	defer killMarked(m)
	wantStatus(t, res, StatusOK)
	if daemon := firstInt(t, res.Stdout); procgroup.Alive(daemon) {
		t.Errorf("the daemon %d in a nested cgroup survived the run", daemon)
	}
	wantNoSurvivors(t, m)
	f.wantNoChildren(t, r)
}

// TestCgroupV2MoveSelfToLeaf: how the probe frees a v2 cgroup's controllers
// for runs (an app alone in its cgroup moves into a leaf, "no internal
// processes") works on a real v2 hierarchy, and is refused while another
// process shares the cgroup. The controllers themselves cannot be enabled
// here (see doc.go), so the probe never gets this far on this host.
func TestCgroupV2MoveSelfToLeaf(t *testing.T) {
	f := mountCgroup2(t)
	orig := v2Path(os.Getpid())
	if orig == "" {
		t.Skip("this process has no cgroup v2 path")
	}
	// Back where it was before the fixture removes the cgroups (cleanups
	// run last-registered first).
	t.Cleanup(func() {
		if err := os.WriteFile(filepath.Join(f.mnt, orig, "cgroup.procs"), []byte(strconv.Itoa(os.Getpid())), 0); err != nil {
			t.Errorf("move the test process back to %s: %v", orig, err)
		}
	})
	if err := os.WriteFile(filepath.Join(f.parent, "cgroup.procs"), []byte(strconv.Itoa(os.Getpid())), 0); err != nil {
		t.Fatalf("move the test process into %s: %v", f.parent, err)
	}
	m := newCgroupManager()

	sleeper := exec.Command("sleep", "1000") // born in the parent, next to this process
	if err := sleeper.Start(); err != nil {
		t.Fatal(err)
	}
	moved := m.moveSelfToLeaf(f.parent)
	_ = sleeper.Process.Kill()
	_ = sleeper.Wait()
	if moved || v2Path(os.Getpid()) != f.rel {
		t.Errorf("moved into a leaf (%v, now in %s) while sharing the cgroup with another process", moved, v2Path(os.Getpid()))
	}

	if !m.moveSelfToLeaf(f.parent) {
		t.Fatalf("not moved, though alone in %s (cgroup.procs %q)", f.parent, readTrim(filepath.Join(f.parent, "cgroup.procs")))
	}
	if got, want := v2Path(os.Getpid()), f.rel+"/loopforge-app"; got != want {
		t.Errorf("in %s after the move, want %s", got, want)
	}
	if procs := readTrim(filepath.Join(f.parent, "cgroup.procs")); procs != "" {
		t.Errorf("the parent still holds %q", procs)
	}
}

// TestCgroupNote: the note names exactly the controllers a run's cgroup
// lacks (desktops often delegate memory and pids but not cpu), as data, and
// its English says what that leaves unbounded.
func TestCgroupNote(t *testing.T) {
	for _, tc := range []struct {
		cg          *runCgroup
		nproc       bool
		controllers string
		want        string
	}{
		{nil, false, "", ""},
		{&runCgroup{limits: []string{"pids", "memory", "cpu"}}, false, "", ""},
		{&runCgroup{limits: []string{"pids", "memory"}}, false, "cpu", "the run's cgroup has no cpu controller: CPU use is not capped (the timeout still applies) (see loopforge doctor)"},
		{&runCgroup{}, false, "pids,memory,cpu", "the run's cgroup has no pids, memory, cpu controller: the number of processes is not bounded; memory is limited per process only; CPU use is not capped (the timeout still applies) (see loopforge doctor)"},
		{&runCgroup{limits: []string{"memory", "cpu"}}, true, "pids", "the run's cgroup has no pids controller: processes are bounded by RLIMIT_NPROC only (see loopforge doctor)"},
	} {
		n, ok := cgroupNote(tc.cg, tc.nproc)
		got := ""
		if ok {
			got = English(n)
		}
		if got != tc.want || ok != (tc.want != "") || n.Params["controllers"] != tc.controllers || (n.Params["nproc"] == "1") != (ok && tc.nproc) {
			t.Errorf("cgroupNote(%+v, %v) = %+v %q, want controllers %q, %q", tc.cg, tc.nproc, n, got, tc.controllers, tc.want)
		}
	}
}
