package sandbox

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopforge/loopforge/backend/event"
	"github.com/loopforge/loopforge/backend/testproc"
)

// homeVar is the variable that names the code's home.
const homeVar = "USERPROFILE"

// newTestPlain is Windows's plain sandbox, the test binary as "python".
func newTestPlain(t *testing.T) *plainRunner {
	t.Helper()
	self := testproc.Self()
	r := &plainRunner{sys: newJobOS(self, ""), python: self, tempRoot: realTempDir(t), homes: homeDirs(),
		cleanup: newCleanups()}
	// Before the temp dir's own clean-up (cleanups run last-in first-out):
	// a run's directory is removed in the background, and on Windows only
	// once its killed processes are gone.
	t.Cleanup(r.cleanup.wait)
	return r
}

func wantPlainReport(t *testing.T, res Result) {
	t.Helper()
	want := Protections{Processes: true, Memory: true}
	if res.Protections != want || len(res.Layers) != 1 || res.Layers[0] != "job" {
		t.Errorf("protections %+v, layers %v", res.Protections, res.Layers)
	}
}

// skipOnWine skips a test of a limit Wine does not enforce (Wine 8.0's
// job objects ignore JOB_OBJECT_LIMIT_ACTIVE_PROCESS and _JOB_MEMORY; see
// the Wine harness's jobprobe), and only under Wine.
func skipOnWine(t *testing.T, what string) {
	if v := testproc.Wine(); v != "" {
		t.Skipf("Wine %s does not enforce a job object's %s (real Windows does)", v, what)
	}
}

// The environment is rebuilt: Windows's own variables, every per-user
// directory in the run dir, UTF-8 for Python, nothing of the app's.
func TestJobEnvironment(t *testing.T) {
	r := newTestPlain(t)
	names := []string{"SystemRoot", "TEMP", "TMP", "USERPROFILE", "APPDATA", "LOCALAPPDATA", "PYTHONUTF8",
		"PYTHONIOENCODING", "PATH", "LOOPFORGE_TEST_SECRET", "USERNAME"}
	code := "cwd\nenv " + strings.Join(names, "\nenv ")
	res := runPlain(t, context.Background(), r, Request{Code: code})
	wantPlainStatus(t, res, StatusOK)
	lines := strings.Split(strings.TrimSpace(strings.ReplaceAll(res.Stdout, "\r\n", "\n")), "\n")
	if len(lines) != len(names)+1 {
		t.Fatalf("stdout %q", res.Stdout)
	}
	wd := lines[0]
	got := map[string]string{}
	for _, l := range lines[1:] {
		if k, v, ok := strings.Cut(l, "="); ok {
			got[k] = v
		}
	}
	for _, k := range []string{"TEMP", "TMP", "USERPROFILE", "APPDATA", "LOCALAPPDATA"} {
		if !samePath(got[k], wd) {
			t.Errorf("%s=%q, want the run dir %s", k, got[k], wd)
		}
	}
	if got["PYTHONUTF8"] != "1" || got["PYTHONIOENCODING"] != "utf-8" || got["SystemRoot"] == "" {
		t.Errorf("environment %v", got)
	}
	if _, ok := got["LOOPFORGE_TEST_SECRET"]; ok {
		t.Error("the app's secret reached the code")
	}
	if _, ok := got["USERNAME"]; ok {
		t.Error("the app's environment reached the code (USERNAME)")
	}
	if !strings.HasPrefix(got["PATH"], filepath.Dir(testproc.Self())) {
		t.Errorf("PATH %q does not start with the interpreter's directory", got["PATH"])
	}
}

func TestJobShellRefused(t *testing.T) {
	r := newTestPlain(t)
	_, err := r.run(context.Background(), Request{Code: "echo hi", Language: "sh"})
	if !errors.Is(err, ErrUnsupportedLanguage) || !strings.Contains(err.Error(), "Windows has no POSIX shell") {
		t.Errorf("err %v", err)
	}
}

// The code's program is the file it was given, line endings and all.
func TestJobProgramFileAsGiven(t *testing.T) {
	r := newTestPlain(t)
	res := runPlain(t, context.Background(), r, Request{Code: "print a\r\nprint b\n"})
	wantPlainStatus(t, res, StatusOK)
	if got := strings.Fields(res.Stdout); strings.Join(got, ",") != "a,b" {
		t.Errorf("stdout %q", res.Stdout)
	}
}

// The job refuses the process past Limits.Processes.
func TestJobProcessLimit(t *testing.T) {
	skipOnWine(t, "active process limit")
	r := newTestPlain(t)
	res := runPlain(t, context.Background(), r, Request{Code: "procs 10", Limits: Limits{Processes: 4}})
	wantPlainStatus(t, res, StatusOK)
	if !strings.Contains(res.Stdout, "started 3") || !strings.Contains(res.Stdout, "refused:") {
		t.Errorf("stdout %q: want 3 children (4 with the program) and a refusal", res.Stdout)
	}
	var limited bool
	for _, n := range res.Notes {
		limited = limited || n.Code == string(event.NoteProcessLimit)
	}
	if !limited {
		t.Errorf("notes %v: no process_limit note", res.Notes)
	}
}

// A program that needs more than Limits.MemoryBytes (the Go runtime of the
// test binary aborts when Windows refuses its commit) ends as a memory
// error.
func TestJobMemoryLimit(t *testing.T) {
	skipOnWine(t, "job memory limit")
	r := newTestPlain(t)
	res := runPlain(t, context.Background(), r, Request{Code: "alloc 512", Limits: Limits{MemoryBytes: 128 << 20}})
	wantPlainStatus(t, res, StatusMemory)
	if strings.Contains(res.Stdout, "allocated") {
		t.Errorf("the program got its memory: %q", res.Stdout)
	}
}

// The Runner itself: NewRunner with this binary as its python.
func TestWindowsRunner(t *testing.T) {
	r, err := NewRunner(Options{Python: testproc.Self(), TempRoot: realTempDir(t)})
	if err != nil {
		t.Fatal(err)
	}
	if r.Isolation() != IsolationJob {
		t.Errorf("isolation %q", r.Isolation())
	}
	res, err := r.Run(context.Background(), Request{Code: "print ran"})
	if err != nil || res.Status != StatusOK || strings.TrimSpace(res.Stdout) != "ran" {
		t.Fatalf("%v %s %q %q", err, res.Status, res.Stdout, res.Stderr)
	}
	if _, err := r.Prepare(context.Background(), Request{}); !errors.Is(err, ErrNoWarmStart) {
		t.Errorf("Prepare: %v", err)
	}
	r.Wait()
	if _, err := NewRunner(Options{Isolation: IsolationNamespace, Python: testproc.Self()}); err == nil {
		t.Error("namespace isolation accepted on Windows")
	}
}

// A Microsoft Store stand-in first on PATH is passed over for the next
// python.exe.
func TestPythonOnPathSkipsStandIns(t *testing.T) {
	stubs, real := t.TempDir(), t.TempDir()
	for _, d := range []string{stubs, real} {
		if err := os.WriteFile(filepath.Join(d, "python.exe"), []byte("MZ"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", stubs+string(filepath.ListSeparator)+real)
	got := pythonOnPath("python", func(dir string) bool { return samePath(filepath.Clean(dir), stubs) })
	if !samePath(got, filepath.Join(real, "python.exe")) {
		t.Errorf("found %q", got)
	}
}

func TestFindPythonExplicitMissing(t *testing.T) {
	_, err := findPython(filepath.Join(t.TempDir(), "python.exe"))
	var ie *InterpreterError
	if !errors.As(err, &ie) || !errors.Is(err, ErrNoInterpreter) || !strings.Contains(err.Error(), "python.org") {
		t.Errorf("err %v", err)
	}
}

// Doctor says plainly what Windows does not give.
func TestWindowsDoctor(t *testing.T) {
	rep := Doctor()
	text := rep.Text()
	for _, want := range []string{"Isolation for generated code: job", "job object", "no file isolation on Windows",
		"no network isolation on Windows"} {
		if !strings.Contains(text, want) {
			t.Errorf("doctor lacks %q:\n%s", want, text)
		}
	}
	if rep.Protections.Files || rep.Protections.Network || rep.Protections.Signals {
		t.Errorf("protections %+v", rep.Protections)
	}
	if _, ok := rep.Interpreters["sh"]; ok {
		t.Error("doctor lists sh on Windows")
	}
}
