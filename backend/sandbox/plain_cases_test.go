package sandbox

// The plain sandbox's tests (plain.go), on every OS: the engine with this
// OS's plainOS (newTestPlain: the shim on Linux and macOS, the job object
// on Windows) and the test binary as its "python" (testproc), so that they
// also run where no Python is installed (Windows under Wine).

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loopforge/loopforge/backend/event"
	"github.com/loopforge/loopforge/backend/procgroup"
	"github.com/loopforge/loopforge/backend/testwait"
)

func runPlain(t *testing.T, ctx context.Context, r *plainRunner, req Request) Result {
	t.Helper()
	res, err := r.run(ctx, req)
	if err != nil {
		t.Fatalf("run: %v\nstdout: %s\nstderr: %s", err, res.Stdout, res.Stderr)
	}
	return res
}

func wantPlainStatus(t *testing.T, res Result, want Status) {
	t.Helper()
	if res.Status != want {
		t.Fatalf("status %s, want %s (exit %d, signal %q)\nstdout: %s\nstderr: %s",
			res.Status, want, res.ExitCode, res.Signal, res.Stdout, res.Stderr)
	}
}

// pidsIn reads the "pid N" lines of out.
func pidLines(out string) []int {
	var pids []int
	for line := range strings.SplitSeq(out, "\n") {
		if n, ok := strings.CutPrefix(strings.TrimSpace(line), "pid "); ok {
			if pid, err := strconv.Atoi(n); err == nil {
				pids = append(pids, pid)
			}
		}
	}
	return pids
}

// wantAllDead: run returns only once every process of the run is gone.
func wantAllDead(t *testing.T, pids []int) {
	t.Helper()
	for _, pid := range pids {
		if procgroup.Alive(pid) {
			t.Errorf("process %d of the run outlived it", pid)
		}
	}
}

// wantNoRunDirs: the run's directories are removed once cleaned up.
func wantNoRunDirs(t *testing.T, r *plainRunner) {
	t.Helper()
	r.cleanup.wait()
	entries, err := os.ReadDir(r.tempRoot)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		t.Errorf("left behind in the temp root: %s", e.Name())
	}
}

// pidWatch is a live stdout that says when it has seen n pids.
type pidWatch struct {
	mu   sync.Mutex
	buf  strings.Builder
	n    int
	seen chan struct{}
}

func newPidWatch(n int) *pidWatch { return &pidWatch{n: n, seen: make(chan struct{})} }

func (w *pidWatch) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	before := len(pidLines(w.buf.String()))
	w.buf.Write(p)
	if now := len(pidLines(w.buf.String())); before < w.n && now >= w.n {
		close(w.seen)
	}
	return len(p), nil
}

func TestPlainOutputAndEnvironment(t *testing.T) {
	r := newTestPlain(t)
	code := "print héllo ✓\neprint oops\nenv LOOPFORGE_TEST_SECRET\nenv " + homeVar + "\ncwd\n"
	res := runPlain(t, context.Background(), r, Request{Code: code})
	wantPlainStatus(t, res, StatusOK)
	lines := strings.Split(strings.TrimSpace(strings.ReplaceAll(res.Stdout, "\r\n", "\n")), "\n")
	if len(lines) != 4 || lines[0] != "héllo ✓" || lines[1] != "LOOPFORGE_TEST_SECRET unset" {
		t.Fatalf("stdout %q", res.Stdout)
	}
	home, _ := strings.CutPrefix(lines[2], homeVar+"=")
	if home == "" || !samePath(filepath.Clean(home), filepath.Clean(lines[3])) || !beneath(home, r.tempRoot) {
		t.Errorf("home %q, cwd %q: want the private run dir in %s", lines[2], lines[3], r.tempRoot)
	}
	if strings.TrimSpace(res.Stderr) != "oops" {
		t.Errorf("stderr %q", res.Stderr)
	}
	if res.Isolation != r.sys.level() || res.ExitCode != 0 || res.Signal != "" {
		t.Errorf("isolation %q exit %d signal %q", res.Isolation, res.ExitCode, res.Signal)
	}
	wantPlainReport(t, res)
	var codes []string
	for _, n := range res.Notes {
		codes = append(codes, n.Code)
		if n.Params["os"] != osLabel() {
			t.Errorf("note %s names os %q", n.Code, n.Params["os"])
		}
	}
	if strings.Join(codes, ",") != string(event.NoteNoFiles)+","+string(event.NoteNoNetwork) || len(res.Warnings) != 2 {
		t.Errorf("notes %v, warnings %q", codes, res.Warnings)
	}
	wantNoRunDirs(t, r)
}

func TestPlainExitStatusKeepsOutput(t *testing.T) {
	r := newTestPlain(t)
	res := runPlain(t, context.Background(), r, Request{Code: "print partial\nexit 3"})
	wantPlainStatus(t, res, StatusError)
	if res.ExitCode != 3 || !strings.Contains(res.Stdout, "partial") || res.Description() != "exit 3" {
		t.Errorf("exit %d stdout %q description %q", res.ExitCode, res.Stdout, res.Description())
	}
}

func TestPlainMemoryError(t *testing.T) {
	r := newTestPlain(t)
	res := runPlain(t, context.Background(), r, Request{Code: "memerror"})
	wantPlainStatus(t, res, StatusMemory)
	if res.Description() != "memory limit exceeded: MemoryError" {
		t.Errorf("description %q", res.Description())
	}
}

func TestPlainTimeout(t *testing.T) {
	r := newTestPlain(t)
	res := runPlain(t, context.Background(), r, Request{Code: "pid\nsleep", Limits: Limits{Timeout: time.Second}})
	wantPlainStatus(t, res, StatusTimeout)
	if res.Signal != "killed" || res.ExitCode != -1 {
		t.Errorf("signal %q exit %d", res.Signal, res.ExitCode)
	}
	wantAllDead(t, pidLines(res.Stdout))
	wantNoRunDirs(t, r)
}

// Cancelling the run kills the whole tree the code started.
func TestPlainCancelKillsTree(t *testing.T) {
	r := newTestPlain(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w := newPidWatch(3)
	go func() {
		select {
		case <-w.seen:
			cancel()
		case <-ctx.Done():
		}
	}()
	res := runPlain(t, ctx, r, Request{Code: "tree 2", LiveStdout: w, Limits: Limits{Timeout: time.Minute}})
	wantPlainStatus(t, res, StatusKilled)
	pids := pidLines(res.Stdout)
	if len(pids) != 3 {
		t.Fatalf("pids %v, want 3", pids)
	}
	wantAllDead(t, pids)
}

// What the program leaves running dies when it exits.
func TestPlainLeaderExitKillsTree(t *testing.T) {
	r := newTestPlain(t)
	res := runPlain(t, context.Background(), r, Request{Code: "orphans 2"})
	wantPlainStatus(t, res, StatusOK)
	pids := pidLines(res.Stdout)
	if len(pids) != 2 {
		t.Fatalf("pids %v, want 2", pids)
	}
	wantAllDead(t, pids)
}

func TestPlainOutputLimit(t *testing.T) {
	r := newTestPlain(t)
	lim := Limits{OutputHardCap: 256 * kib, OutputHead: 64 * kib, OutputTail: 16 * kib, Timeout: time.Minute}
	res := runPlain(t, context.Background(), r, Request{Code: "flood 4000000\nsleep", Limits: lim})
	wantPlainStatus(t, res, StatusOutputLimit)
	if !res.Truncated || res.StdoutBytes < lim.OutputHardCap || len(res.Stdout) > 100*kib {
		t.Errorf("truncated %v, %d bytes produced, %d kept", res.Truncated, res.StdoutBytes, len(res.Stdout))
	}
}

// The pictures a program leaves in its run dir come back; the figure
// hook's read-only directory goes with the run.
func TestPlainPictures(t *testing.T) {
	r := newTestPlain(t)
	res := runPlain(t, context.Background(), r, Request{Code: "png plot.png\nexists $PYTHONPATH/" + pyHookFile, Images: true})
	wantPlainStatus(t, res, StatusOK)
	if len(res.Images) != 1 || res.Images[0].Name != "plot.png" || res.Images[0].Width != 7 || res.Images[0].MIME != "image/png" {
		t.Fatalf("images %+v, notes %v", res.Images, res.ImageNotes)
	}
	if strings.TrimSpace(res.Stdout) != "exists yes" {
		t.Errorf("the code's PYTHONPATH has no figure hook: %q", res.Stdout)
	}
	wantNoRunDirs(t, r)
}

func TestPlainStdin(t *testing.T) {
	r := newTestPlain(t)
	res := runPlain(t, context.Background(), r, Request{Code: "stdin", Stdin: []byte("given input\n")})
	wantPlainStatus(t, res, StatusOK)
	if strings.TrimSpace(res.Stdout) != "given input" {
		t.Errorf("stdout %q", res.Stdout)
	}
}

func TestPlainDir(t *testing.T) {
	r := newTestPlain(t)
	dir := filepath.Join(t.TempDir(), "project")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	res := runPlain(t, context.Background(), r, Request{Code: "cwd", Dir: dir})
	wantPlainStatus(t, res, StatusOK)
	real, _ := filepath.EvalSymlinks(dir)
	if got := strings.TrimSpace(res.Stdout); !samePath(got, real) {
		t.Errorf("cwd %q, want %q", got, real)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 0 {
		t.Errorf("the program file was written into the project dir: %v", entries)
	}
}

func TestPlainRefusesDirs(t *testing.T) {
	r := newTestPlain(t)
	home, err := os.UserHomeDir()
	if err != nil {
		t.Skip("no home directory:", err)
	}
	root := filepath.VolumeName(home) + string(filepath.Separator)
	for _, dir := range []string{"relative", home, root, filepath.Dir(r.tempRoot), filepath.Join(home, "no-such-dir-loopforge")} {
		_, err := r.run(context.Background(), Request{Code: "print no", Dir: dir})
		var de *DirError
		if !errors.As(err, &de) || !errors.Is(err, ErrInvalidDir) {
			t.Errorf("Dir %q: err %v, want a *DirError", dir, err)
		}
	}
}

func TestPlainAlreadyCancelled(t *testing.T) {
	r := newTestPlain(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res := runPlain(t, ctx, r, Request{Code: "print no"})
	wantPlainStatus(t, res, StatusKilled)
	wantNoRunDirs(t, r)
}

func TestPlainUnsupportedLanguage(t *testing.T) {
	r := newTestPlain(t)
	_, err := r.run(context.Background(), Request{Code: "x", Language: "cobol"})
	if !errors.Is(err, ErrUnsupportedLanguage) {
		t.Errorf("err %v", err)
	}
}

// Runs in parallel do not disturb each other.
func TestPlainParallel(t *testing.T) {
	r := newTestPlain(t)
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Go(func() {
			res, err := r.run(context.Background(), Request{Code: "print run " + strconv.Itoa(i)})
			if err != nil || res.Status != StatusOK || strings.TrimSpace(res.Stdout) != "run "+strconv.Itoa(i) {
				t.Errorf("run %d: %v %s %q", i, err, res.Status, res.Stdout)
			}
		})
	}
	wg.Wait()
	testwait.Until(t, "the runs' clean-up", 10*time.Second, func() bool {
		entries, _ := os.ReadDir(r.tempRoot)
		return len(entries) == 0
	})
}
