//go:build linux

package sandbox

// Cgroups: one cgroup per run, created next to (beneath) the app's own
// cgroup, so the app's own limits still bind the code. Two sources:
//
//   - cgroup v2: a writable directory under the app's v2 cgroup. cgroup.kill
//     (Linux 5.14+) kills every member at once, setsid escapees included; the
//     pids, memory and cpu controllers give limits when the app's cgroup
//     delegates them. The child is started inside it atomically
//     (clone3 CLONE_INTO_CGROUP), so nothing runs outside even for a moment.
//     Where a child born that way is killed at birth (the probe tries one;
//     seen on Linux 6.18 once cgroup.kill had been written to the app's
//     own cgroup, whose children then differ from it in their kill count),
//     or clone3 cannot do it, the shim joins the run's cgroup instead, as
//     for v1: it writes to cgroup.procs before it restricts itself and
//     execs, so the code still never runs outside.
//   - cgroup v1 (hybrid hosts, as root): pids, memory and cpu directories in
//     the v1 hierarchies. The shim joins them itself, before it restricts
//     itself and execs, so the code never runs outside them either.
//
// A v2 cgroup that holds processes cannot hand controllers to children ("no
// internal processes"). When the app is alone in its cgroup (a desktop app
// started in its own scope, or `systemd-run --user --scope -p Delegate=yes`),
// the probe moves the app into a leaf "loopforge-app" to free the controllers;
// otherwise it settles for cgroup.kill without limits.

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// CgroupHost describes the cgroups this process can create for runs.
type CgroupHost struct {
	// Version is "v2", "v1", "hybrid" (v1 controllers plus a v2 hierarchy)
	// or "" when no cgroup file system is mounted.
	Version string `json:"version"`
	// Kill: a run's cgroup can be killed completely (cgroup.kill, or
	// membership that the code cannot leave).
	Kill bool `json:"kill"`
	// Pids, Memory and CPU: limits a run's cgroup can enforce.
	Pids   bool `json:"pids"`
	Memory bool `json:"memory"`
	CPU    bool `json:"cpu"`
	// Where run cgroups are created, by controller ("v2" for the unified
	// hierarchy).
	Dirs map[string]string `json:"dirs,omitempty"`
	// V2Attach is how a run's processes enter their v2 cgroup: "clone"
	// (born inside it: clone3 CLONE_INTO_CGROUP) or "join" (the shim
	// writes itself into cgroup.procs before exec, where a child born
	// into a new cgroup is killed); "" without a v2 cgroup.
	V2Attach string `json:"v2_attach,omitempty"`
	// Problem explains why cgroups are unusable or partial.
	Problem string `json:"problem,omitempty"`
}

// How a run's processes enter their v2 cgroup (CgroupHost.V2Attach).
const (
	attachClone = "clone"
	attachJoin  = "join"
)

// Usable reports whether any cgroup feature can be used.
func (c CgroupHost) Usable() bool { return c.Kill || c.Pids || c.Memory || c.CPU }

// cgroupManager creates per-run cgroups according to a probed CgroupHost.
type cgroupManager struct {
	host   CgroupHost
	v2     string            // parent dir on the v2 hierarchy, "" if unused
	v2Ctrl map[string]bool   // controllers enabled for children of v2
	v1     map[string]string // v1 controller → parent dir
	prefix string            // run dir name prefix: "loopforge-<pid>-"
	seq    atomic.Uint64
	// v2Join, when set, says why runs join their v2 cgroup from the shim
	// instead of being born in it (set by the probe, or by the first run
	// killed at birth).
	v2Join atomic.Pointer[string]
}

// attach is CgroupHost.V2Attach as it is now.
func (m *cgroupManager) attach() string {
	switch {
	case m.v2 == "":
		return ""
	case m.v2Join.Load() != nil:
		return attachJoin
	}
	return attachClone
}

// report is the CgroupHost as it is now: a run may have switched to
// joining since the probe.
func (m *cgroupManager) report() CgroupHost {
	h := m.host
	h.V2Attach = m.attach()
	if why := m.v2Join.Load(); why != nil {
		h.Problem = strings.TrimPrefix(h.Problem+"; runs join their cgroup from the shim: "+*why, "; ")
	}
	return h
}

// switchToJoin makes later runs join their v2 cgroup from the shim, for
// the reason err; true when this call made the switch.
func (m *cgroupManager) switchToJoin(err error) bool {
	why := err.Error()
	return m.v2 != "" && m.v2Join.CompareAndSwap(nil, &why)
}

// v1Controllers are the v1 hierarchies we use, by the name in /proc/self/cgroup.
var v1Controllers = []string{"pids", "memory", "cpu"}

type cgMount struct {
	dir  string // mount point
	root string // mount root within the hierarchy
	opts []string
	v2   bool
}

// probeCgroups inspects /proc/self/{mountinfo,cgroup} and tries to create
// (and remove) a directory where run cgroups would go.
func probeCgroups() (*cgroupManager, CgroupHost) {
	mounts, err := cgroupMounts()
	if err != nil {
		return cgroupProbeFailed(err)
	}
	own, err := ownCgroups()
	if err != nil {
		return cgroupProbeFailed(err)
	}
	return probeCgroupsFrom(mounts, own)
}

func newCgroupManager() *cgroupManager {
	return &cgroupManager{v1: map[string]string{}, v2Ctrl: map[string]bool{}, prefix: fmt.Sprintf("loopforge-%d-", os.Getpid())}
}

func cgroupProbeFailed(err error) (*cgroupManager, CgroupHost) {
	m := newCgroupManager()
	m.host = CgroupHost{Dirs: map[string]string{}, Problem: err.Error()}
	return m, m.host
}

// probeCgroupsFrom picks where run cgroups go, given the cgroup mounts and
// this process's cgroup paths ("" = the v2 path) as /proc/self/mountinfo
// and /proc/self/cgroup show them. The tests call it with a private cgroup2
// mount and a made-up own path to exercise the pure cgroup v2 layout.
func probeCgroupsFrom(mounts []cgMount, own map[string]string) (*cgroupManager, CgroupHost) {
	p := &cgProbe{m: newCgroupManager(), h: CgroupHost{Dirs: map[string]string{}}}
	for _, mt := range mounts {
		if mt.v2 {
			p.hasV2 = true
			if p.m.v2 == "" {
				p.tryV2(mt, own[""])
			}
			continue
		}
		p.tryV1(mt, own)
	}
	m := p.m
	// A v2 controller wins over the same v1 one (a controller lives in one
	// hierarchy only, so both cannot be present; this is for clarity).
	for c := range m.v2Ctrl {
		delete(m.v1, c)
		delete(p.h.Dirs, c)
	}
	m.host = p.host()
	m.cleanStale()
	return m, m.report()
}

// cgProbe is what probeCgroupsFrom has found so far.
type cgProbe struct {
	m            *cgroupManager
	h            CgroupHost
	problems     []string
	denied       int      // problems that are permission errors
	v2Avail      []string // the v2 parent's cgroup.controllers
	hasV1, hasV2 bool
}

// tryMkdir says whether runs can have cgroups beneath dir; what stops them
// is a problem (what names the hierarchy).
func (p *cgProbe) tryMkdir(dir, what string) bool {
	err := tryMkdir(dir, p.m.prefix+"probe")
	if err == nil {
		return true
	}
	p.problems = append(p.problems, fmt.Sprintf("%s: %v", what, err))
	if errors.Is(err, os.ErrPermission) {
		p.denied++
	}
	return false
}

// tryV2 takes the cgroup v2 mount mt, where this process is at own.
func (p *cgProbe) tryV2(mt cgMount, own string) {
	m := p.m
	dir, ok := cgroupDir(mt, own)
	if !ok || !p.tryMkdir(dir, "cgroup v2 "+dir) {
		return
	}
	m.v2 = dir
	p.h.Dirs["v2"] = dir
	p.v2Avail = strings.Fields(readTrim(filepath.Join(dir, "cgroup.controllers")))
	// cgroup.kill (5.14+) kills at once; on older kernels killing each
	// member until none is left still reaches every process.
	p.h.Kill = true
	for _, c := range m.enableV2Controllers(dir, &p.problems) {
		m.v2Ctrl[c] = true
	}
	// After enableV2Controllers, which may have moved this process: the
	// child is tried from where runs start.
	if err := bornInCgroup(dir, m.prefix+"probe"); err != nil {
		m.switchToJoin(err)
		slog.Info("sandbox: runs cannot be born in their cgroup; the shim joins it instead", "dir", dir, "err", err)
	}
}

// tryV1 takes the controllers of the cgroup v1 mount mt that no other
// hierarchy gave yet.
func (p *cgProbe) tryV1(mt cgMount, own map[string]string) {
	m := p.m
	for _, c := range v1Controllers {
		if !slices.Contains(mt.opts, c) {
			continue
		}
		p.hasV1 = true
		if _, done := m.v1[c]; done || m.v2Ctrl[c] {
			continue
		}
		dir, ok := cgroupDir(mt, own[c])
		if !ok || !p.tryMkdir(dir, "cgroup v1 "+c) {
			continue
		}
		m.v1[c] = dir
		p.h.Dirs[c] = dir
	}
}

// host is the probe's report: the version, the limits runs get, and why
// any is missing.
func (p *cgProbe) host() CgroupHost {
	m, h := p.m, p.h
	switch {
	case p.hasV1 && p.hasV2:
		h.Version = "hybrid"
	case p.hasV2:
		h.Version = "v2"
	case p.hasV1:
		h.Version = "v1"
	}
	p.absentV2()
	h.Pids = m.v2Ctrl["pids"] || m.v1["pids"] != ""
	h.Memory = m.v2Ctrl["memory"] || m.v1["memory"] != ""
	h.CPU = m.v2Ctrl["cpu"] || m.v1["cpu"] != ""
	// v1 membership also allows a complete kill: the code cannot leave.
	h.Kill = h.Kill || len(m.v1) > 0
	if !h.Usable() && len(p.problems) == 0 && h.Version == "" {
		p.problems = append(p.problems, "no cgroup file system mounted")
	}
	h.Problem = strings.Join(p.problems, "; ")
	if len(p.problems) > 0 && p.denied == len(p.problems) && !h.Usable() {
		h.Problem = "cgroup directories are not writable by this user"
	}
	return h
}

// absentV2 says why a limit is missing when the v2 parent does not even
// offer the controller (bound to a v1 hierarchy, or not delegated by the
// parent's parent); a refused delegation is reported by
// enableV2Controllers.
func (p *cgProbe) absentV2() {
	m := p.m
	if m.v2 == "" {
		return
	}
	var absent []string
	for _, c := range v1Controllers {
		if !slices.Contains(p.v2Avail, c) && m.v1[c] == "" {
			absent = append(absent, c)
		}
	}
	if len(absent) > 0 {
		have := strings.Join(p.v2Avail, " ")
		if have == "" {
			have = "none"
		}
		p.problems = append(p.problems, fmt.Sprintf("cgroup v2 %s has no %s controller (cgroup.controllers: %s)", m.v2, strings.Join(absent, ", "), have))
	}
}

// enableV2Controllers makes pids, memory and cpu available to run cgroups
// under dir, and returns those that are.
func (m *cgroupManager) enableV2Controllers(dir string, problems *[]string) []string {
	avail := strings.Fields(readTrim(filepath.Join(dir, "cgroup.controllers")))
	var want []string
	for _, c := range v1Controllers {
		if slices.Contains(avail, c) {
			want = append(want, c)
		}
	}
	if len(want) == 0 {
		return nil
	}
	enabled := func() []string {
		on := strings.Fields(readTrim(filepath.Join(dir, "cgroup.subtree_control")))
		var got []string
		for _, c := range want {
			if slices.Contains(on, c) {
				got = append(got, c)
			}
		}
		return got
	}
	write := func() error {
		var b strings.Builder
		for _, c := range want {
			b.WriteString("+" + c + " ")
		}
		return os.WriteFile(filepath.Join(dir, "cgroup.subtree_control"), []byte(strings.TrimSpace(b.String())), 0)
	}
	if got := enabled(); len(got) == len(want) {
		return got
	}
	err := write()
	if errors.Is(err, unix.EBUSY) && m.moveSelfToLeaf(dir) {
		err = write()
	}
	if err != nil {
		*problems = append(*problems, fmt.Sprintf("cgroup v2 controllers %v not delegated to %s: %v (run loopforge in its own scope: systemd-run --user --scope -p Delegate=yes loopforge)", want, dir, err))
	}
	return enabled()
}

// moveSelfToLeaf moves this process into dir/loopforge-app when it is the
// only process in dir, so dir may enable controllers for its children.
func (m *cgroupManager) moveSelfToLeaf(dir string) bool {
	procs := strings.Fields(readTrim(filepath.Join(dir, "cgroup.procs")))
	if len(procs) != 1 || procs[0] != strconv.Itoa(os.Getpid()) {
		return false
	}
	leaf := filepath.Join(dir, "loopforge-app")
	if err := os.Mkdir(leaf, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
		return false
	}
	return os.WriteFile(filepath.Join(leaf, "cgroup.procs"), []byte(strconv.Itoa(os.Getpid())), 0) == nil
}

// cleanStale removes run cgroups left by loopforge processes that died
// (their directories are empty; rmdir fails harmlessly otherwise).
func (m *cgroupManager) cleanStale() {
	dirs := []string{m.v2}
	for _, d := range m.v1 {
		dirs = append(dirs, d)
	}
	for _, d := range dirs {
		if d == "" {
			continue
		}
		entries, _ := os.ReadDir(d)
		for _, e := range entries {
			rest, ok := strings.CutPrefix(e.Name(), "loopforge-")
			if !ok || !e.IsDir() {
				continue
			}
			pidStr, _, _ := strings.Cut(rest, "-")
			pid, err := strconv.Atoi(pidStr)
			if err != nil || pid == os.Getpid() || syscall.Kill(pid, 0) == nil {
				continue
			}
			_ = os.Remove(filepath.Join(d, e.Name()))
		}
	}
}

func tryMkdir(parent, name string) error {
	p := filepath.Join(parent, name)
	if err := os.Mkdir(p, 0o755); err != nil {
		if errors.Is(err, os.ErrExist) {
			return os.Remove(p)
		}
		return err
	}
	return os.Remove(p)
}

// errBornKilled: a process started inside a new cgroup (clone3
// CLONE_INTO_CGROUP) was SIGKILLed before it could do anything.
var errBornKilled = errors.New("a process born into a new cgroup beneath the app's is killed at birth")

// bornInCgroup starts /bin/sh, which exits at once, inside a new cgroup
// name beneath parent, the way runs start, and reports whether it lived.
// A kernel can kill such a child at birth: Linux 6.18 does once the
// cgroup of the process that clones has had cgroup.kill written while the
// new cgroup has not (it compares their kill counts), and a loopforge
// started in such a cgroup then saw every run fail with a shim that never
// spoke.
func bornInCgroup(parent, name string) error {
	dir := filepath.Join(parent, name)
	if err := os.Mkdir(dir, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
		return err
	}
	defer removeCgroupDir(dir)
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "/bin/sh", "-c", "exit 0")
	cmd.Env = []string{"PATH=" + systemPath}
	cmd.SysProcAttr = &syscall.SysProcAttr{UseCgroupFD: true, CgroupFD: fd}
	err = cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) && ctx.Err() == nil {
		if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL {
			return errBornKilled
		}
	}
	if err != nil {
		return fmt.Errorf("start a process inside a new cgroup (clone3 CLONE_INTO_CGROUP): %w", err)
	}
	return nil
}

// removeCgroupDir removes an empty cgroup, waiting out the moment an exited
// member can keep it busy.
func removeCgroupDir(d string) {
	for i := 0; ; i++ {
		err := os.Remove(d)
		if err == nil || errors.Is(err, os.ErrNotExist) || i == 50 || !errors.Is(err, unix.EBUSY) {
			return
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// cgroupMounts lists cgroup (v1) and cgroup2 mounts from /proc/self/mountinfo.
func cgroupMounts() ([]cgMount, error) {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []cgMount
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*kib), mib)
	for sc.Scan() {
		// id parent maj:min root mountpoint opts [optional...] - fstype source superopts
		pre, post, ok := strings.Cut(sc.Text(), " - ")
		if !ok {
			continue
		}
		pf, qf := strings.Fields(pre), strings.Fields(post)
		if len(pf) < 5 || len(qf) < 3 {
			continue
		}
		switch qf[0] {
		case "cgroup2":
			out = append(out, cgMount{dir: unescapeMount(pf[4]), root: unescapeMount(pf[3]), v2: true})
		case "cgroup":
			out = append(out, cgMount{dir: unescapeMount(pf[4]), root: unescapeMount(pf[3]), opts: strings.Split(qf[2], ",")})
		}
	}
	return out, sc.Err()
}

func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	r := strings.NewReplacer(`\040`, " ", `\011`, "\t", `\012`, "\n", `\134`, `\`)
	return r.Replace(s)
}

// ownCgroups maps each controller of /proc/self/cgroup to this process's
// path in that hierarchy; "" is the v2 path.
func ownCgroups() (map[string]string, error) {
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return nil, err
	}
	own := map[string]string{}
	for line := range strings.Lines(string(b)) {
		parts := strings.SplitN(strings.TrimSpace(line), ":", 3)
		if len(parts) != 3 {
			continue
		}
		if parts[1] == "" {
			own[""] = parts[2]
			continue
		}
		for _, c := range strings.Split(parts[1], ",") {
			own[c] = parts[2]
		}
	}
	return own, nil
}

// cgroupDir is the directory of cgroup path p in mount mt, if the mount
// shows it.
func cgroupDir(mt cgMount, p string) (string, bool) {
	if p == "" {
		return "", false
	}
	rel, ok := strings.CutPrefix(p, mt.root)
	if !ok {
		return "", false
	}
	if mt.root != "/" && rel != "" && !strings.HasPrefix(rel, "/") {
		return "", false
	}
	dir := filepath.Join(mt.dir, rel)
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return "", false
	}
	return dir, true
}

// runCgroup is the cgroup (one directory per hierarchy) of one run.
type runCgroup struct {
	v2     string            // run dir on v2, "" if none
	v2fd   int               // open v2 dir for CLONE_INTO_CGROUP, -1 if none
	v1     map[string]string // controller → run dir
	limits []string          // what is enforced: "pids", "memory", "cpu"
	// joinedV2: the shim joins the v2 cgroup (its cgroup.procs is among
	// joinFiles) instead of being born in it (v2fd).
	joinedV2 bool
	// sealed: the code cannot reach the cgroup file system (bubblewrap
	// shows it none), so it cannot move itself between cgroups: it is in
	// the run's cgroup of every hierarchy, or gone.
	sealed bool
}

// create makes the cgroup of one run and writes its limits.
func (m *cgroupManager) create(lim Limits) (*runCgroup, error) {
	name := m.prefix + strconv.FormatUint(m.seq.Add(1), 10)
	cg := &runCgroup{v2fd: -1, v1: map[string]string{}}
	fail := func(err error) (*runCgroup, error) {
		cg.remove()
		return nil, err
	}
	memory := strconv.FormatInt(lim.MemoryBytes, 10)
	pids := strconv.Itoa(lim.Processes)
	const period = 100000
	quota := max(int(lim.CPUs*period), 1000)
	if m.v2 != "" {
		dir := filepath.Join(m.v2, name)
		if err := os.Mkdir(dir, 0o755); err != nil {
			return fail(fmt.Errorf("create cgroup: %w", err))
		}
		cg.v2 = dir
		writes := [][2]string{}
		if m.v2Ctrl["pids"] {
			writes = append(writes, [2]string{"pids.max", pids})
		}
		if m.v2Ctrl["memory"] {
			writes = append(writes, [2]string{"memory.max", memory}, [2]string{"memory.swap.max", "0"}, [2]string{"memory.oom.group", "1"})
		}
		if m.v2Ctrl["cpu"] {
			writes = append(writes, [2]string{"cpu.max", fmt.Sprintf("%d %d", quota, period)})
		}
		for _, w := range writes {
			err := os.WriteFile(filepath.Join(dir, w[0]), []byte(w[1]), 0)
			if err != nil && !(w[0] == "memory.swap.max" && errors.Is(err, os.ErrNotExist)) {
				return fail(fmt.Errorf("cgroup %s: %w", w[0], err))
			}
		}
		if m.v2Join.Load() != nil {
			cg.joinedV2 = true
		} else {
			fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
			if err != nil {
				return fail(fmt.Errorf("open cgroup: %w", err))
			}
			cg.v2fd = fd
		}
	}
	for _, c := range v1Controllers {
		parent := m.v1[c]
		if parent == "" {
			continue
		}
		dir := filepath.Join(parent, name)
		if err := os.Mkdir(dir, 0o755); err != nil {
			return fail(fmt.Errorf("create %s cgroup: %w", c, err))
		}
		cg.v1[c] = dir
		var writes [][2]string
		switch c {
		case "pids":
			writes = [][2]string{{"pids.max", pids}}
		case "memory":
			writes = [][2]string{{"memory.limit_in_bytes", memory}, {"memory.memsw.limit_in_bytes", memory}}
		case "cpu":
			writes = [][2]string{{"cpu.cfs_period_us", strconv.Itoa(period)}, {"cpu.cfs_quota_us", strconv.Itoa(quota)}}
		}
		for _, w := range writes {
			err := os.WriteFile(filepath.Join(dir, w[0]), []byte(w[1]), 0)
			// memsw exists only with swap accounting.
			if err != nil && !(w[0] == "memory.memsw.limit_in_bytes" && errors.Is(err, os.ErrNotExist)) {
				return fail(fmt.Errorf("cgroup %s: %w", w[0], err))
			}
		}
	}
	for _, c := range v1Controllers {
		if m.v2Ctrl[c] || cg.v1[c] != "" {
			cg.limits = append(cg.limits, c)
		}
	}
	return cg, nil
}

// joinFiles are the cgroup.procs files the shim writes "0" to: the v1
// ones, and the v2 one when the shim joins it.
func (cg *runCgroup) joinFiles() []string {
	var files []string
	if cg.joinedV2 {
		files = append(files, filepath.Join(cg.v2, "cgroup.procs"))
	}
	for _, c := range v1Controllers {
		if d := cg.v1[c]; d != "" {
			files = append(files, filepath.Join(d, "cgroup.procs"))
		}
	}
	return files
}

func (cg *runCgroup) has(limit string) bool { return slices.Contains(cg.limits, limit) }

// closeFD releases the directory handle once the child has started.
func (cg *runCgroup) closeFD() {
	if cg.v2fd >= 0 {
		unix.Close(cg.v2fd)
		cg.v2fd = -1
	}
}

// dirs lists the run's cgroup directories, one per hierarchy.
func (cg *runCgroup) dirs() []string {
	var out []string
	if cg.v2 != "" {
		out = append(out, cg.v2)
	}
	for _, c := range v1Controllers {
		if d := cg.v1[c]; d != "" {
			out = append(out, d)
		}
	}
	return out
}

// cgroupTree lists dir and the cgroups beneath it, parents first. Code that
// may write the cgroup file system (root at the basic level, or the owner
// of a delegated v2 subtree) can make cgroups inside its own and move into
// them: they are still the run's.
func cgroupTree(dir string) []string {
	out := []string{dir}
	for i := 0; i < len(out); i++ {
		entries, _ := os.ReadDir(out[i])
		for _, e := range entries {
			if e.IsDir() {
				out = append(out, filepath.Join(out[i], e.Name()))
			}
		}
	}
	return out
}

// members lists the pids in the run's cgroup (any hierarchy, nested
// cgroups included).
func (cg *runCgroup) members() []int {
	seen := map[int]bool{}
	var out []int
	var dirs []string
	for _, d := range cg.dirs() {
		dirs = append(dirs, cgroupTree(d)...)
	}
	for _, d := range dirs {
		b, _ := os.ReadFile(filepath.Join(d, "cgroup.procs"))
		for _, f := range bytes.Fields(b) {
			if pid, err := strconv.Atoi(string(f)); err == nil && !seen[pid] {
				seen[pid] = true
				out = append(out, pid)
			}
		}
	}
	return out
}

// kill SIGKILLs every member: cgroup.kill where the kernel has it, and
// each listed pid in any case (v1, or an old v2 kernel).
func (cg *runCgroup) kill() {
	if cg.v2 != "" {
		_ = os.WriteFile(filepath.Join(cg.v2, "cgroup.kill"), []byte("1"), 0)
	}
	for _, pid := range cg.members() {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
}

// knownEmpty reports a sealed cgroup with a v2 directory whose subtree v2
// says is not populated: one small read, where listing the members of
// every hierarchy cost a quarter of a millisecond at every run's end. False
// means "list them to know".
func (cg *runCgroup) knownEmpty() bool {
	if !cg.sealed || cg.v2 == "" {
		return false
	}
	n, ok := readKeyed(filepath.Join(cg.v2, "cgroup.events"), "populated")
	return ok && n == 0
}

// killAndWait kills until the cgroup is empty or within passes.
func (cg *runCgroup) killAndWait(within time.Duration) error {
	deadline := time.Now().Add(within)
	pause := 500 * time.Microsecond
	for {
		if cg.knownEmpty() {
			return nil
		}
		live := cg.members()
		if len(live) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("cgroup still holds %v after %v", live, within)
		}
		cg.kill()
		time.Sleep(pause)
		pause = min(pause*2, 20*time.Millisecond)
	}
}

// oomKilled reports whether the kernel's OOM killer struck in the cgroup.
func (cg *runCgroup) oomKilled() bool {
	if cg.v2 != "" {
		if n := keyedValue(filepath.Join(cg.v2, "memory.events"), "oom_kill"); n > 0 {
			return true
		}
	}
	if d := cg.v1["memory"]; d != "" {
		return keyedValue(filepath.Join(d, "memory.oom_control"), "oom_kill") > 0
	}
	return false
}

// pidsLimitHit reports whether a fork failed at pids.max.
func (cg *runCgroup) pidsLimitHit() bool {
	for _, d := range []string{cg.v2, cg.v1["pids"]} {
		if d != "" && keyedValue(filepath.Join(d, "pids.events"), "max") > 0 {
			return true
		}
	}
	return false
}

// remove deletes the run's directories, nested ones first; the cgroup must
// be empty.
func (cg *runCgroup) remove() {
	cg.closeFD()
	var dirs []string
	for _, d := range cg.dirs() {
		// Nearly always a leaf: one rmdir, no listing of its files.
		if err := os.Remove(d); err == nil || errors.Is(err, os.ErrNotExist) {
			continue
		}
		dirs = append(dirs, cgroupTree(d)...)
	}
	for _, d := range slices.Backward(dirs) {
		removeCgroupDir(d)
	}
}

// keyedValue reads "key N" from a flat-keyed cgroup file (0 if absent).
func keyedValue(file, key string) int64 {
	n, _ := readKeyed(file, key)
	return n
}

// readKeyed reads "key N" from a flat-keyed cgroup file; ok is false when
// the file cannot be read or has no such key.
func readKeyed(file, key string) (n int64, ok bool) {
	b, err := os.ReadFile(file)
	if err != nil {
		return 0, false
	}
	for line := range strings.Lines(string(b)) {
		k, v, found := strings.Cut(strings.TrimSpace(line), " ")
		if found && k == key {
			n, err := strconv.ParseInt(v, 10, 64)
			return n, err == nil
		}
	}
	return 0, false
}

func readTrim(p string) string {
	b, _ := os.ReadFile(p)
	return strings.TrimSpace(string(b))
}
