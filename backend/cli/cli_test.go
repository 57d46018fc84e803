package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"iter"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopforge/loopforge/backend/config"
	"github.com/loopforge/loopforge/backend/event"
	"github.com/loopforge/loopforge/backend/provider"
	"github.com/loopforge/loopforge/backend/sandbox"
	"github.com/loopforge/loopforge/backend/service"
	"github.com/loopforge/loopforge/backend/testproc"
)

func TestMain(m *testing.M) {
	sandbox.RunChildIfRequested() // the test binary is the sandbox shim
	testproc.Run()                // and a child of its own tests (proc_windows_test.go)
	os.Exit(m.Run())
}

// okModel answers every request with a program that prints ok.
type okModel struct{}

func (okModel) Name() string                        { return "fake" }
func (okModel) Capabilities() provider.Capabilities { return provider.Capabilities{} }
func (okModel) Stream(context.Context, provider.Request) iter.Seq2[provider.Delta, error] {
	return func(yield func(provider.Delta, error) bool) {
		text := "```python\nprint('ok')\n```\n"
		if yield(provider.Delta{Text: text}, nil) {
			yield(provider.Delta{Done: &provider.Response{Content: text}}, nil)
		}
	}
}

// cliRun runs the CLI in-process with its own LOOPFORGE_HOME, an OpenAI key
// in the environment and a "fake" profile answering with okModel.
func cliRun(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	return cliRunIn(t, "", args...)
}

// cliRunIn is cliRun with stdin as the command's standard input.
func cliRunIn(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	return cliRunHome(t, t.TempDir(), stdin, args...)
}

// cliRunHome is cliRunIn with home as LOOPFORGE_HOME.
func cliRunHome(t *testing.T, home, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	return cliRunModel(t, home, stdin, okModel{}, args...)
}

// cliRunModel is cliRunHome with m answering for the "fake" profile.
func cliRunModel(t *testing.T, home, stdin string, m provider.Provider, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	vars := map[string]string{"LOOPFORGE_HOME": home, "OPENAI_API_KEY": "sk-test"}
	var (
		out  bytes.Buffer
		errb lockedBuffer // the log (slog, from the service's goroutines) writes it too
	)
	e := &env{stdin: strings.NewReader(stdin), stdout: &out, stderr: &errb}
	e.newService = func(ctx context.Context, workdir string) (*service.Service, error) {
		cfg, err := config.Load(config.Options{Workdir: workdir, LookupEnv: func(k string) (string, bool) { v, ok := vars[k]; return v, ok }})
		if err != nil {
			return nil, err
		}
		cfg.Profiles["fake"] = provider.Profile{Name: "fake", Kind: "fake"}
		cfg.Order = append(cfg.Order, "fake")
		reg := service.DefaultRegistry()
		reg["fake"] = func(provider.Profile) (provider.Provider, error) { return m, nil }
		return service.New(ctx, service.Options{Config: cfg, Registry: reg})
	}
	code = e.main(context.Background(), args)
	return code, out.String(), errb.String()
}

func TestConfigurationMistakesExit2OnOneLine(t *testing.T) {
	bad := t.TempDir()
	if err := os.WriteFile(filepath.Join(bad, config.FileName), []byte("provider: fake\nmax_iteration: 3\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(t.TempDir(), "big.txt")
	if err := os.WriteFile(big, bytes.Repeat([]byte("x"), config.MaxStdinBytes+1), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"base_url without scheme", []string{"run", "-p", "openai", "--base-url", "localhost:8080/v1", "x"}, []string{"base_url", "http:// or https://"}},
		{"base_url without host", []string{"run", "-p", "openai", "--base-url", "https://", "x"}, []string{"base_url", "no host"}},
		{"unknown config key", []string{"run", "--workdir", bad, "x"}, []string{config.FileName, "line 2", `unknown key "max_iteration"`, "did you mean max_iterations?"}},
		{"iterations over the cap", []string{"run", "-p", "fake", "-n", "51", "x"}, []string{"--max-iterations must be at most 50 (got 51)"}},
		{"timeout over the cap", []string{"run", "-p", "fake", "--timeout", "48h", "x"}, []string{"--timeout must be at most 86400 (24h0m0s; got 172800)"}},
		{"unknown command", []string{"frobnicate"}, []string{`unknown command "frobnicate"`}},
		{"stdin file missing", []string{"run", "-p", "fake", "--stdin", filepath.Join(bad, "nope.txt"), "x"}, []string{"--stdin:", "nope.txt does not exist"}},
		{"stdin too long", []string{"run", "-p", "fake", "--stdin", big, "x"}, []string{"--stdin is too long: at most 64 KiB"}},
		{"stdin twice from stdin", []string{"run", "-p", "fake", "--stdin", "-", "--prompt-file", "-"}, []string{"cannot both read this command's stdin"}},
		{"stdin in workspace mode", []string{"run", "-p", "fake", "--mode", "workspace", "--stdin", "-", "x"}, []string{"--stdin is for script mode"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := cliRun(t, tt.args...)
			if code != ExitUsage {
				t.Fatalf("exit %d, want %d:\n%s", code, ExitUsage, stderr)
			}
			if strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
				t.Errorf("want one line:\n%s", stderr)
			}
			for _, w := range tt.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr does not contain %q:\n%s", w, stderr)
				}
			}
		})
	}
}

// TestDamagedHistoryIsOneLine: a history file that is not a database is
// refused with the store's own words on one line (no "opening the history:
// store: open …" before them), the file untouched, exit 1.
func TestDamagedHistoryIsOneLine(t *testing.T) {
	home := t.TempDir()
	path := filepath.Join(home, "history.db")
	garbage := bytes.Repeat([]byte("not a database "), 500)
	if err := os.WriteFile(path, garbage, 0o600); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := cliRunHome(t, home, "", "sessions")
	if code != ExitFailed {
		t.Errorf("exit %d, want %d", code, ExitFailed)
	}
	want := "loopforge: the history file " + path + " is not a loopforge history"
	if !strings.HasPrefix(stderr, want) || strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
		t.Errorf("stderr = %q, want one line starting %q", stderr, want)
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, garbage) {
		t.Error("the damaged history was modified")
	}
}

func TestRunHeaderNamesTheSandbox(t *testing.T) {
	r, err := sandbox.NewRunner(sandbox.Options{})
	if err != nil {
		t.Skipf("no sandbox on this machine: %v", err)
	}
	code, stdout, stderr := cliRun(t, "run", "-p", "fake", "-n", "1", "x")
	if code != ExitOK {
		t.Fatalf("exit %d:\n%s", code, stderr)
	}
	header, _, _ := strings.Cut(stderr, "\n")
	if !strings.HasPrefix(header, "loopforge: fake, up to 1 iteration, ") || !strings.Contains(header, ", sandbox "+r.Isolation()+", session ") {
		t.Fatalf("header %q should name the sandbox level %q", header, r.Isolation())
	}
	if stdout != "print('ok')\n" {
		t.Fatalf("stdout %q", stdout)
	}
}

func TestSandboxLabel(t *testing.T) {
	for _, tt := range []struct {
		d         service.Defaults
		workspace bool
		want      string
	}{
		{service.Defaults{Isolation: "namespace+cgroup", CommandsSandboxed: true}, false, "sandbox namespace+cgroup"},
		{service.Defaults{Isolation: "landlock", CommandsSandboxed: false}, false, "sandbox landlock"},
		{service.Defaults{Isolation: "landlock", CommandsSandboxed: false}, true, "commands unsandboxed"},
		{service.Defaults{Isolation: "", CommandsSandboxed: true}, false, "no sandbox"},
	} {
		if got := sandboxLabel(tt.d, tt.workspace); got != tt.want {
			t.Errorf("%+v workspace=%v: %q, want %q", tt.d, tt.workspace, got, tt.want)
		}
	}
}

// desktopEnv is an env whose executable is dir/loopforge and whose exec only
// records what it was asked to start.
func desktopEnv(t *testing.T, dir string) (*env, *bytes.Buffer, *[]string) {
	t.Helper()
	t.Setenv("DISPLAY", ":99")
	var errb bytes.Buffer
	var started []string
	e := &env{stdin: strings.NewReader(""), stdout: &bytes.Buffer{}, stderr: &errb,
		self: func() (string, error) { return filepath.Join(dir, "loopforge"), nil },
		exec: func(path string, argv, envv []string) error {
			started = append(append([]string{path}, argv...), envv[len(envv)-1])
			return nil
		}}
	e.newService = func(context.Context, string) (*service.Service, error) {
		t.Fatal("the CLI build opened the history before it started the desktop build")
		return nil, nil
	}
	return e, &errb, &started
}

func TestNoCommandExecutesTheDesktopBuild(t *testing.T) {
	dir := t.TempDir()
	desk := filepath.Join(dir, desktopFile)
	if err := os.WriteFile(desk, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	e, errb, started := desktopEnv(t, dir)
	if code := e.main(context.Background(), nil); code != ExitOK {
		t.Fatalf("exit %d: %s", code, errb)
	}
	want := []string{desk, desk, desktopExecVar + "=1"}
	if strings.Join(*started, " ") != strings.Join(want, " ") {
		t.Fatalf("started %q, want %q", *started, want)
	}
}

// TestNoCommandWithACLIBuildAsTheDesktopBuild: a loopforge-desktop that is
// the CLI build again (a broken install) says so instead of looping.
func TestNoCommandWithACLIBuildAsTheDesktopBuild(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, desktopFile), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	e, errb, started := desktopEnv(t, dir)
	e.execed = true
	if code := e.main(context.Background(), nil); code != ExitUsage {
		t.Fatalf("exit %d, want %d: %s", code, ExitUsage, errb)
	}
	if want := "has no desktop window (it is a CLI build)"; !strings.Contains(errb.String(), want) || len(*started) > 0 {
		t.Fatalf("stderr %q (want %q), started %q", errb, want, *started)
	}
}

// TestRunStdin: --stdin FILE and --stdin - give the generated code its
// input; the run records it (run_started in --json) and the header says so.
func TestRunStdin(t *testing.T) {
	if _, err := sandbox.NewRunner(sandbox.Options{}); err != nil {
		t.Skipf("no sandbox on this machine: %v", err)
	}
	file := filepath.Join(t.TempDir(), "answers.txt")
	if err := os.WriteFile(file, []byte("from a file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ arg, stdin, want string }{
		{file, "", "from a file\n"},
		{"-", "piped in\n", "piped in\n"},
	} {
		code, stdout, stderr := cliRunIn(t, tc.stdin, "run", "-p", "fake", "-n", "1", "--json", "--stdin", tc.arg, "x")
		if code != ExitOK {
			t.Fatalf("--stdin %s: exit %d:\n%s", tc.arg, code, stderr)
		}
		first, _, _ := strings.Cut(stdout, "\n")
		var e event.Event
		var p event.RunStartedPayload
		if err := json.Unmarshal([]byte(first), &e); err != nil || e.Decode(&p) != nil || p.Stdin != tc.want {
			t.Errorf("--stdin %s: run_started %s (%v)", tc.arg, first, err)
		}
	}
	code, _, stderr := cliRunIn(t, "Ada\n", "run", "-p", "fake", "-n", "1", "--stdin", "-", "x")
	if code != ExitOK || !strings.Contains(stderr, "\nthe code gets 4 bytes on its standard input\n") {
		t.Errorf("exit %d, header:\n%s", code, stderr)
	}
}

func TestVersionFlag(t *testing.T) {
	saved := [3]string{service.Version, service.Commit, service.Date}
	t.Cleanup(func() { service.Version, service.Commit, service.Date = saved[0], saved[1], saved[2] })
	service.Version, service.Commit, service.Date = "0.1.0", "52bb02b", "2026-11-27"
	code, stdout, stderr := cliRun(t, "--version")
	if want := "loopforge version 0.1.0 (commit 52bb02b, 2026-11-27)\n"; code != ExitOK || stdout != want {
		t.Errorf("--version: exit %d, stdout %q (stderr %q), want 0 and %q", code, stdout, stderr, want)
	}
}
