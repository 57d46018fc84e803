//go:build linux

package sandbox

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Request.Dir (a command in the user's project) and Request.Stdin, at each
// isolation level this host offers. The hostile Dir cases are in
// hostile_test.go (41-45).

// forEachLevel runs f in parallel subtests, one per level this host
// offers, each with its own Runner and temp root (default cgroup choice).
func forEachLevel(t *testing.T, f func(t *testing.T, level string, r *Runner)) {
	for _, level := range []string{IsolationBasic, IsolationLandlock, IsolationNamespace} {
		t.Run(level, func(t *testing.T) {
			t.Parallel()
			r, err := NewRunner(Options{Isolation: level, TempRoot: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			if r.isolation != level {
				t.Skipf("%s is not available here", level)
			}
			f(t, level, r)
		})
	}
}

// project is a project dir with a sibling holding a canary, both in a
// parent of their own.
type project struct {
	parent, dir, sibling, canary string
}

func newProject(t *testing.T) project {
	t.Helper()
	parent := t.TempDir()
	p := project{parent: parent, dir: filepath.Join(parent, "proj"), sibling: filepath.Join(parent, "sibling")}
	p.canary = filepath.Join(p.sibling, "canary.txt")
	for _, d := range []string{filepath.Join(p.dir, "sub"), p.sibling} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for name, content := range map[string]string{
		filepath.Join(p.dir, "file"):         "project file\n",
		filepath.Join(p.dir, "sub", "x.txt"): "nested\n",
		p.canary:                             canaryContent,
	} {
		if err := os.WriteFile(name, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return p
}

func (p project) canaryIntact() bool {
	b, err := os.ReadFile(p.canary)
	return err == nil && string(b) == canaryContent
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Errorf("%v", err)
	}
	return string(b)
}

// TestDirProject: the command sees the project, what it writes there stays,
// HOME and TMPDIR are still the private run dir, which is removed.
func TestDirProject(t *testing.T) {
	forEachLevel(t, func(t *testing.T, level string, r *Runner) {
		p := newProject(t)
		code := `cat file
cat sub/x.txt
echo made > created.txt
mkdir -p newdir && echo deep > newdir/deep.txt
pwd
echo "$HOME"
echo "$TMPDIR"
echo tmp > "$TMPDIR/scratch"
`
		res, m := runOn(t, r, context.Background(), Request{Language: "sh", Code: code, Dir: p.dir})
		wantStatus(t, res, StatusOK)
		wantNoSurvivors(t, m)
		wantDirEmpty(t, r)
		lines := strings.Split(strings.TrimSuffix(res.Stdout, "\n"), "\n")
		if len(lines) != 5 || lines[0] != "project file" || lines[1] != "nested" || lines[2] != p.dir {
			t.Fatalf("stdout %q (stderr %q)", res.Stdout, res.Stderr)
		}
		home := lines[3]
		if home != lines[4] || filepath.Dir(home) != r.tempRoot || !strings.HasPrefix(filepath.Base(home), "loopforge-run-") {
			t.Errorf("HOME %q TMPDIR %q: want the private run dir under %s", home, lines[4], r.tempRoot)
		}
		r.Wait()
		if fileExists(home) {
			t.Errorf("run dir %s still exists", home)
		}
		if got := readFile(t, filepath.Join(p.dir, "created.txt")); got != "made\n" {
			t.Errorf("created.txt = %q", got)
		}
		if got := readFile(t, filepath.Join(p.dir, "newdir", "deep.txt")); got != "deep\n" {
			t.Errorf("newdir/deep.txt = %q", got)
		}
		entries, _ := os.ReadDir(p.dir)
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		if want := []string{"created.txt", "file", "newdir", "sub"}; !slices.Equal(names, want) {
			t.Errorf("project holds %v, want %v (the program must not be written there)", names, want)
		}
		// The ticks mean the same as without Dir.
		if res.Protections.Files != (level != IsolationBasic) {
			t.Errorf("files tick %v at %s", res.Protections.Files, level)
		}
		plain, _ := runOn(t, r, context.Background(), Request{Language: "sh", Code: "true"})
		if res.Protections != plain.Protections || !slices.Equal(res.Warnings, plain.Warnings) {
			t.Errorf("Dir run: %+v %v; plain run: %+v %v", res.Protections, res.Warnings, plain.Protections, plain.Warnings)
		}
	})
}

// TestDirConfinement: only Dir and the run dir are writable; the rest of
// the user's files stay unreadable (landlock and namespace levels). The
// basic level has no file isolation: the test asserts that gap.
func TestDirConfinement(t *testing.T) {
	forEachLevel(t, func(t *testing.T, level string, r *Runner) {
		p := newProject(t)
		other := t.TempDir() // a temp dir of the test's, elsewhere
		home, _ := os.UserHomeDir()
		code := tryPrelude + `home = sys.argv[1] if len(sys.argv) > 1 else None
try_('write dir', lambda: open('ok.txt', 'w').write('x'))
try_('write run dir', lambda: open(os.environ['HOME'] + '/f', 'w').write('x'))
try_('write sibling', lambda: open('` + p.sibling + `/new.txt', 'w').write('x'))
try_('overwrite canary', lambda: open('` + p.canary + `', 'w').write('pwned'))
try_('write other temp dir', lambda: open('` + other + `/x', 'w').write('x'))
try_('write parent', lambda: open('../escaped.txt', 'w').write('x'))
try_('read canary', lambda: open('` + p.canary + `').read())
try_('list sibling', lambda: os.listdir('` + p.sibling + `'))
try_('list home', lambda: json.dumps(sorted(os.listdir('` + home + `'))))
done()
`
		res, m := runOn(t, r, context.Background(), Request{Code: code, Dir: p.dir})
		wantStatus(t, res, StatusOK)
		wantNoSurvivors(t, m)
		wantDirEmpty(t, r)
		rep := report(t, res)
		t.Logf("outcome[dir-confinement %s]: %v", level, rep)
		want(t, rep, "write dir", true)
		want(t, rep, "write run dir", true)
		files := level != IsolationBasic
		for _, k := range []string{"write sibling", "overwrite canary", "write other temp dir", "read canary", "list sibling"} {
			want(t, rep, k, !files) // basic: known gap
		}
		if level == IsolationLandlock {
			want(t, rep, "write parent", false)
		} // namespace: the parent is an empty skeleton in the private /tmp; only the host matters
		if got := fileExists(filepath.Join(p.dir, "ok.txt")); !got {
			t.Error("ok.txt did not reach the project")
		}
		for _, leaked := range []string{filepath.Join(p.sibling, "new.txt"), filepath.Join(other, "x"), filepath.Join(p.parent, "escaped.txt")} {
			if fileExists(leaked) == files {
				t.Errorf("%s exists: %v, at %s", leaked, fileExists(leaked), level)
			}
		}
		if p.canaryIntact() != files {
			t.Errorf("canary intact %v at %s", p.canaryIntact(), level)
		}
		checkHomeListing(t, r, level, home, rep["list home"])
	})
}

// checkHomeListing: reading the home dir is blocked as in script mode. In a
// namespace, the only entries of $HOME that can show are the paths bwrap
// binds there (the shim binary or an interpreter installed under $HOME).
func checkHomeListing(t *testing.T, r *Runner, level, home, got string) {
	t.Helper()
	if _, err := os.ReadDir(home); home == "" || err != nil {
		return // nothing to protect here
	}
	listed := strings.HasPrefix(got, "ok")
	switch level {
	case IsolationBasic:
		if !listed {
			t.Errorf("list home = %q, want the known gap (readable) at basic", got)
		}
	case IsolationLandlock:
		if listed {
			t.Errorf("list home = %q, want it refused", got)
		}
	case IsolationNamespace:
		if !listed {
			return
		}
		var names []string
		if err := json.Unmarshal([]byte(strings.TrimPrefix(got, "ok:")), &names); err != nil {
			t.Fatalf("list home = %q: %v", got, err)
		}
		for _, n := range names {
			if !slices.ContainsFunc(r.bwrap.extraRO, func(b string) bool { return within(b, filepath.Join(home, n)) }) {
				t.Errorf("the namespace shows %s in $HOME (%v)", n, names)
			}
		}
	}
}

// TestStdin: Request.Stdin reaches the program, with and without Dir.
func TestStdin(t *testing.T) {
	forEachLevel(t, func(t *testing.T, level string, r *Runner) {
		p := newProject(t)
		in := []byte("line one\nline two\n")
		for _, dir := range []string{"", p.dir} {
			for _, tc := range []struct{ lang, code, want string }{
				{"sh", "cat", string(in)},
				{"sh", "read first; echo \"got $first\"; cat", "got line one\nline two\n"},
				{"python", "import sys\ndata = sys.stdin.read()\nprint(len(data), data.upper(), end='')", "18 LINE ONE\nLINE TWO\n"},
				{"python", "print(input())\nprint(input())\ntry:\n    input()\nexcept EOFError:\n    print('eof')", "line one\nline two\neof\n"},
				{"node", "let s = ''; process.stdin.on('data', d => s += d).on('end', () => process.stdout.write(s.split('\\n').reverse().join('|')))", "|line two|line one"},
			} {
				if tc.lang == "node" && r.node == "" {
					continue
				}
				res, m := runOn(t, r, context.Background(), Request{Language: tc.lang, Code: tc.code, Dir: dir, Stdin: in})
				wantNoSurvivors(t, m)
				if res.Status != StatusOK || res.Stdout != tc.want {
					t.Errorf("%s %q in %q: %s, stdout %q, want %q; stderr %q", tc.lang, tc.code, dir, res.Status, res.Stdout, tc.want, res.Stderr)
				}
			}
		}
		// More than a pipe holds, and a program that never reads it.
		big := bytes.Repeat([]byte("0123456789abcdef"), 1<<16) // 1 MiB
		res, _ := runOn(t, r, context.Background(), Request{Language: "sh", Code: "wc -c", Stdin: big})
		if res.Status != StatusOK || strings.TrimSpace(res.Stdout) != "1048576" {
			t.Errorf("wc -c of 1 MiB: %s %q %q", res.Status, res.Stdout, res.Stderr)
		}
		res, m := runOn(t, r, context.Background(), Request{Code: "print('ignored it')", Stdin: big, Dir: p.dir})
		wantNoSurvivors(t, m)
		if res.Status != StatusOK || res.Stdout != "ignored it\n" {
			t.Errorf("unread stdin: %s %q %q", res.Status, res.Stdout, res.Stderr)
		}
		wantDirEmpty(t, r)
	})
}

// TestDirWithoutStdinGetsEOF: in Dir mode the program is a file, so a
// command that reads stdin sees EOF, not the rest of the script.
func TestDirWithoutStdinGetsEOF(t *testing.T) {
	t.Parallel()
	p := newProject(t)
	res := run(t, Request{Language: "sh", Code: "cat\necho after-cat\nread x || echo eof\n", Dir: p.dir})
	wantStatus(t, res, StatusOK)
	if res.Stdout != "after-cat\neof\n" {
		t.Errorf("stdout %q", res.Stdout)
	}
	res = run(t, Request{Code: "input()", Dir: p.dir})
	if res.Status != StatusError || !strings.Contains(res.Stderr, "EOFError") {
		t.Errorf("%s %q", res.Status, res.Stderr)
	}
}

// TestDirPaths: relative paths resolve in Dir and pwd prints it, also for
// a Dir given through a symlink (it prints the real path, as the host would
// after cd -P) and for an unclean path.
func TestDirPaths(t *testing.T) {
	forEachLevel(t, func(t *testing.T, level string, r *Runner) {
		p := newProject(t)
		link := filepath.Join(p.parent, "link")
		if err := os.Symlink(p.dir, link); err != nil {
			t.Fatal(err)
		}
		for _, dir := range []string{p.dir, link, p.dir + "/sub/..", p.dir + "/"} {
			res, m := runOn(t, r, context.Background(), Request{Language: "sh", Code: "pwd\ncat sub/x.txt\nls -d \"$PWD/file\"", Dir: dir})
			wantStatus(t, res, StatusOK)
			wantNoSurvivors(t, m)
			if want := p.dir + "\nnested\n" + p.dir + "/file\n"; res.Stdout != want {
				t.Errorf("Dir %q: stdout %q, want %q", dir, res.Stdout, want)
			}
		}
		res, _ := runOn(t, r, context.Background(), Request{Code: "import os\nprint(os.getcwd())\nprint(os.path.abspath('sub/x.txt'))", Dir: p.dir})
		if want := p.dir + "\n" + p.dir + "/sub/x.txt\n"; res.Stdout != want {
			t.Errorf("python: stdout %q, want %q (stderr %q)", res.Stdout, want, res.Stderr)
		}
		if r.node != "" {
			res, _ := runOn(t, r, context.Background(), Request{Language: "node", Code: "console.log(process.cwd())", Dir: p.dir})
			if res.Stdout != p.dir+"\n" {
				t.Errorf("node: stdout %q (stderr %q)", res.Stdout, res.Stderr)
			}
		}
		// A traceback names the program file in the run dir, not in Dir.
		res, _ = runOn(t, r, context.Background(), Request{Code: "raise ValueError('x')", Dir: p.dir})
		if res.Status != StatusError || strings.Contains(res.Stderr, p.dir) || !strings.Contains(res.Stderr, "loopforge-code.py") {
			t.Errorf("traceback %q", res.Stderr)
		}
	})
}

// TestDirValidation: refused dirs fail before anything starts.
func TestDirValidation(t *testing.T) {
	t.Parallel()
	parent := t.TempDir()
	tempRoot := filepath.Join(parent, "tmproot")
	if err := os.Mkdir(tempRoot, 0o700); err != nil {
		t.Fatal(err)
	}
	r, err := NewRunner(Options{TempRoot: tempRoot})
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(parent, "a-file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	dangling := filepath.Join(parent, "dangling")
	if err := os.Symlink(filepath.Join(parent, "nowhere"), dangling); err != nil {
		t.Fatal(err)
	}
	rootLink := filepath.Join(parent, "root-link")
	if err := os.Symlink("/", rootLink); err != nil {
		t.Fatal(err)
	}
	cases := map[string]struct{ dir, reason string }{
		"relative":        {"proj", "is not an absolute path"},
		"dot":             {".", "is not an absolute path"},
		"missing":         {filepath.Join(parent, "nope"), "does not exist"},
		"dangling link":   {dangling, "does not exist"},
		"a file":          {file, "is not a directory"},
		"root":            {"/", "is the root directory"},
		"root via link":   {rootLink, "is the root directory"},
		"root unclean":    {"/tmp/..", "is the root directory"},
		"etc":             {"/etc", "is a system directory"},
		"usr":             {"/usr", "is a system directory"},
		"tmp":             {"/tmp", "is a system directory"},
		"proc":            {"/proc/self", "is in a kernel file system"},
		"temp root":       {tempRoot, "contains the sandbox's temp root"},
		"temp root above": {parent, "contains the sandbox's temp root"},
	}
	if fi, err := os.Stat("/etc/ssl"); err == nil && fi.IsDir() && fileExists("/etc/ssl/private") {
		cases["credentials"] = struct{ dir, reason string }{"/etc/ssl", "holds system credentials"}
	}
	if home, err := os.UserHomeDir(); err == nil && fileExists(home) && home != "/" {
		cases["home"] = struct{ dir, reason string }{home, "is your home directory"}
		if up := filepath.Dir(home); up != "/" {
			// Or a system directory (/home, or /tmp for CI's HOME).
			cases["above home"] = struct{ dir, reason string }{up, "contains your home directory|is a system directory"}
		}
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			res, err := r.Run(context.Background(), Request{Language: "sh", Code: "touch pwned", Dir: tc.dir})
			var de *DirError
			if !errors.Is(err, ErrInvalidDir) || !errors.As(err, &de) || de.Dir != tc.dir {
				t.Fatalf("Dir %q: err %v, want a *DirError that %s", tc.dir, err, tc.reason)
			}
			i := slices.IndexFunc(strings.Split(tc.reason, "|"), func(r string) bool { return strings.HasPrefix(de.Reason, r) })
			if i < 0 {
				t.Fatalf("Dir %q: reason %q, want %q", tc.dir, de.Reason, tc.reason)
			}
			reason := strings.Split(tc.reason, "|")[i]
			if res.Status != StatusSandboxError || !strings.Contains(res.Description(), reason) {
				t.Errorf("status %q description %q", res.Status, res.Description())
			}
		})
	}
	t.Run("nothing started", func(t *testing.T) {
		wantDirEmpty(t, r)
		if fileExists(filepath.Join(parent, "pwned")) {
			t.Error("the command ran")
		}
	})
}

// TestDirKillsTree: a background process left in Dir dies with the run,
// and a timeout still kills the whole tree.
func TestDirKillsTree(t *testing.T) {
	forEachLevel(t, func(t *testing.T, level string, r *Runner) {
		p := newProject(t)
		code := "(while :; do date >> bg.log; sleep 0.05; done) &\nsleep 1000 &\necho started\n"
		res, m := runOn(t, r, context.Background(), Request{Language: "sh", Code: code, Dir: p.dir})
		wantStatus(t, res, StatusOK)
		wantNoSurvivors(t, m)

		code = "import subprocess, time\nsubprocess.Popen(['sleep', '1000'], cwd='sub')\nprint('waiting', flush=True)\ntime.sleep(1000)"
		res, m = runOn(t, r, context.Background(), Request{Code: code, Dir: p.dir, Limits: Limits{Timeout: printThenTimeout}})
		wantStatus(t, res, StatusTimeout)
		wantNoSurvivors(t, m)
		if res.Stdout != "waiting\n" {
			t.Errorf("stdout %q", res.Stdout)
		}
		wantDirEmpty(t, r)
	})
}

// TestDirContainingShim: a project that holds the shim binary (loopforge
// working on its own build). In a namespace the shim stays read-only over
// the writable Dir; without one nothing could protect it, so such a Dir is
// refused.
func TestDirContainingShim(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	exe, err := os.ReadFile(self)
	if err != nil {
		t.Fatal(err)
	}
	forEachLevel(t, func(t *testing.T, level string, _ *Runner) {
		p := newProject(t)
		shim := filepath.Join(p.dir, "build", "shim")
		if err := os.MkdirAll(filepath.Dir(shim), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(shim, exe, 0o755); err != nil {
			t.Fatal(err)
		}
		r, err := NewRunner(Options{Isolation: level, Self: shim, TempRoot: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		res, err := r.Run(context.Background(), Request{Language: "sh", Code: "touch build/new && echo made\necho pwned >> build/shim && echo rewrote", Dir: p.dir})
		if level != IsolationNamespace {
			var de *DirError
			if !errors.As(err, &de) || !strings.Contains(de.Reason, "own program") {
				t.Fatalf("err %v, want a *DirError for the shim", err)
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(res.Stdout, "made") || strings.Contains(res.Stdout, "rewrote") || !strings.Contains(res.Stderr, "Read-only") {
			t.Errorf("stdout %q stderr %q", res.Stdout, res.Stderr)
		}
		if b, _ := os.ReadFile(shim); !bytes.Equal(b, exe) {
			t.Error("the shim was changed")
		}
	})
}

func TestBwrapBindOrder(t *testing.T) {
	plan := bwrapPlan{path: "bwrap", extraRO: []string{"/p/proj/build/shim", "/opt/py"}}
	a := plan.args("/tmp/run-1", "/p/proj", nil, DefaultLimits(), false, nil, "/p/proj/build/shim")
	s := strings.Join(a, " ")
	for _, want := range []string{
		"--bind /p/proj /p/proj --bind /tmp/run-1 /tmp/run-1 --ro-bind /p/proj/build/shim /p/proj/build/shim",
		"--chdir /p/proj -- /p/proj/build/shim " + childArg,
	} {
		if !strings.Contains(s, want) {
			t.Errorf("args %q lack %q", s, want)
		}
	}
	if i, j := strings.Index(s, "--tmpfs /tmp"), strings.Index(s, "--bind /p/proj"); i < 0 || j < i {
		t.Errorf("the binds must follow the private /tmp: %q", s)
	}
	if s := strings.Join(plan.args("/tmp/run-1", "", nil, DefaultLimits(), false, nil, "x"), " "); !strings.Contains(s, "--chdir /tmp/run-1 --") || strings.Contains(s, "/p/proj /p/proj") {
		t.Errorf("script mode: %q", s)
	}
}
