// Package clitest helps test the coding CLI providers: a fake CLI executable
// that records how it was started and replays captured output, an
// environment the test controls completely, checks that no process
// survived, and (modelserver.go) a fake model server speaking the three
// streaming APIs the real CLIs use. It is imported by tests only.
package clitest

import (
	_ "embed"
	"iter"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/loopforge/loopforge/backend/procgroup"
	"github.com/loopforge/loopforge/backend/provider"
)

//go:embed testdata/fakecli.sh
var fakeCLI []byte

// InstallFake writes the fake CLI (testdata/fakecli.sh; its header lists the
// FAKE_* variables it obeys) as dir/name and returns its path.
func InstallFake(t testing.TB, dir, name string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, fakeCLI, 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// IsolateEnv replaces the whole process environment with vars for the rest
// of the test, so the environment a CLI receives can be asserted exactly.
// Tests using it must not run in parallel.
func IsolateEnv(t testing.TB, vars map[string]string) {
	t.Helper()
	saved := os.Environ()
	os.Clearenv()
	for k, v := range vars {
		if err := os.Setenv(k, v); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		os.Clearenv()
		for _, kv := range saved {
			k, v, _ := strings.Cut(kv, "=")
			_ = os.Setenv(k, v)
		}
	})
}

// Record is what a fake CLI recorded about one start.
type Record struct {
	Name     string   // the name it was started under
	Args     []string // argv[1:]
	Env      []string // exactly as exec'd, sorted
	Cwd      string
	StdinSrc string // what fd 0 was: "/dev/null", "pipe:[...]"
	Stdin    string
	PID      int
}

// ReadRecord reads what the fake CLI started with FAKE_RECORD=prefix wrote.
func ReadRecord(t testing.TB, prefix string) Record {
	t.Helper()
	read := func(ext string) string {
		b, err := os.ReadFile(prefix + ext)
		if err != nil {
			t.Fatalf("the fake CLI left no record: %v", err)
		}
		return string(b)
	}
	r := Record{
		Name:     strings.TrimSpace(read(".name")),
		Args:     split0(read(".argv")),
		Env:      split0(read(".env")),
		Cwd:      strings.TrimSpace(read(".cwd")),
		StdinSrc: strings.TrimSpace(read(".stdin-src")),
		Stdin:    read(".stdin"),
	}
	r.PID, _ = strconv.Atoi(strings.TrimSpace(read(".pid")))
	slices.Sort(r.Env)
	return r
}

func split0(s string) []string {
	s = strings.TrimSuffix(s, "\x00")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\x00")
}

// ReadPID reads a pid written to file (FAKE_CHILD).
func ReadPID(t testing.TB, file string) int {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("no pid file: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatalf("bad pid file: %v", err)
	}
	return pid
}

// Collect drains a stream: its text deltas in order, the final Response
// (nil on error) and the error.
func Collect(seq iter.Seq2[provider.Delta, error]) (deltas []string, done *provider.Response, err error) {
	for d, e := range seq {
		if e != nil {
			return deltas, nil, e
		}
		if d.Text != "" {
			deltas = append(deltas, d.Text)
		}
		if d.Done != nil {
			done = d.Done
		}
	}
	return deltas, done, nil
}

// Fake is a directory of fake CLIs put first on PATH, in an environment the
// test controls (IsolateEnv).
type Fake struct {
	Dir    string // holds the fakes; first on PATH
	Record string // the FAKE_RECORD prefix
	Home   string // HOME
	tmp    string
}

// NewFake installs a fake CLI under each name and isolates the environment
// to PATH (the fakes, then /usr/bin:/bin for sh and coreutils), HOME, LANG
// and extra.
func NewFake(t testing.TB, names []string, extra map[string]string) *Fake {
	t.Helper()
	f := &Fake{Dir: t.TempDir(), Home: t.TempDir(), tmp: t.TempDir()}
	f.Record = filepath.Join(f.tmp, "rec")
	for _, n := range names {
		InstallFake(t, f.Dir, n)
	}
	vars := map[string]string{"PATH": f.Dir + ":/usr/bin:/bin", "HOME": f.Home, "LANG": "C.UTF-8"}
	for k, v := range extra {
		vars[k] = v
	}
	IsolateEnv(t, vars)
	return f
}

// Path is a fresh file name in the test's temp dir.
func (f *Fake) Path(name string) string { return filepath.Join(f.tmp, name) }

// Env is a profile env that makes the fake record itself and replay capture
// (a path; "" replays nothing), plus extra FAKE_* settings.
func (f *Fake) Env(capture string, extra map[string]string) map[string]string {
	m := map[string]string{"FAKE_RECORD": f.Record}
	if capture != "" {
		abs, _ := filepath.Abs(capture)
		m["FAKE_REPLAY"] = abs
	}
	for k, v := range extra {
		m[k] = v
	}
	return m
}

// RealCLIsEnv names the directory where `make test-clis` installed the real
// CLIs (node_modules/.bin below it). Tests that drive them skip without it.
const RealCLIsEnv = "LOOPFORGE_REAL_CLIS"

// RealCLI returns the path of the installed real CLI name, or skips the
// test when RealCLIsEnv is not set.
func RealCLI(t testing.TB, name string) string {
	t.Helper()
	dir := os.Getenv(RealCLIsEnv)
	if dir == "" {
		t.Skipf("set %s to the directory of the installed CLIs (make test-clis does)", RealCLIsEnv)
	}
	p := filepath.Join(dir, "node_modules", ".bin", name)
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return p
}

// ProcessesIn lists the live processes whose working directory is dir or
// below it: what a CLI started there and left running.
func ProcessesIn(dir string) []int {
	dir, _ = filepath.EvalSymlinks(dir)
	ents, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		cwd, err := os.Readlink("/proc/" + e.Name() + "/cwd")
		if err == nil && (cwd == dir || strings.HasPrefix(cwd, dir+"/")) && procgroup.Alive(pid) {
			out = append(out, pid)
		}
	}
	return out
}
