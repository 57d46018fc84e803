//go:build linux

package main

// Start-up: the CLI build links no GUI library and hands the window to the
// desktop build; the sandbox host probe is taken only by what may run code,
// and once per boot and binary.

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

func TestCLIBuildLinksNoGUI(t *testing.T) {
	deps := func(tags string) string {
		out, err := exec.Command("go", "list", "-deps", "-tags", tags, ".").CombinedOutput()
		if err != nil {
			t.Fatalf("go list -tags %q: %v\n%s", tags, err, out)
		}
		return string(out)
	}
	if d := deps(""); strings.Contains(d, "github.com/wailsapp/wails") {
		t.Error("the CLI build (no tags) imports Wails, and with it GTK and WebKit")
	}
	if d := deps("desktop,production"); !strings.Contains(d, "github.com/wailsapp/wails/v2/pkg/options") {
		t.Error("the desktop build does not import Wails")
	}
}

// The official provider SDKs initialise their whole API surface in every
// process that links them (issue 13): the HTTP providers speak their wire
// formats themselves.
func TestCLIBuildLinksNoProviderSDK(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, sdk := range []string{"github.com/openai/openai-go", "github.com/anthropics/anthropic-sdk-go",
		"google.golang.org/genai", "go.opentelemetry.io/", "google.golang.org/grpc"} {
		if strings.Contains(string(out), sdk) {
			t.Errorf("the CLI build links %s", sdk)
		}
	}
}

// besideDesktop puts the CLI binary in a directory of its own, next to a
// stand-in desktop build that reports how it was started.
func besideDesktop(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	cli := filepath.Join(dir, "loopforge")
	if err := os.Link(binary, cli); err != nil { // same file system, usually; else copy
		in, err := os.ReadFile(binary)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(cli, in, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	script := "#!/bin/sh\necho \"desktop pid=$$ args=$# exec=$LOOPFORGE_DESKTOP_EXEC display=$DISPLAY\"\n"
	if err := os.WriteFile(filepath.Join(dir, "loopforge-desktop"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return cli
}

func TestNoCommandRunsTheDesktopBuild(t *testing.T) {
	cli := besideDesktop(t)
	cmd := exec.Command(cli)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "DISPLAY=:42"}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	// The same process (exec, not a child), told it was started so.
	want := "args=0 exec=1 display=:42"
	if !strings.Contains(string(out), want) || !strings.Contains(string(out), "pid="+strconv.Itoa(cmd.Process.Pid)+" ") {
		t.Fatalf("output %q, want the desktop build as pid %d with %q", out, cmd.Process.Pid, want)
	}
}

// probeFile is the cached sandbox probe under home, "" when none.
func probeFile(t *testing.T, home string) string {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join(home, "cache", "sandbox-probe-*.json"))
	if len(m) > 1 {
		t.Fatalf("several probe caches for one binary: %v", m)
	}
	if len(m) == 0 {
		return ""
	}
	return m[0]
}

func inode(t *testing.T, path string) uint64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Sys().(*syscall.Stat_t).Ino
}

func TestOnlyCommandsThatRunCodeProbeTheSandbox(t *testing.T) {
	home := t.TempDir()
	for _, args := range [][]string{{"--version"}, {"--help"}, {"sessions"}, {"providers"}, {"stats"}} {
		if r := loopforge(t, home, nil, args...); r.code != 0 {
			t.Fatalf("%v: exit %d: %s", args, r.code, r.stderr)
		}
		if f := probeFile(t, home); f != "" {
			t.Fatalf("`loopforge %s` probed the sandbox (%s)", strings.Join(args, " "), f)
		}
	}

	srv := httptest.NewServer(&fakeOpenAI{})
	defer srv.Close()
	key := []string{"OPENAI_API_KEY=sk-test"}
	if r := loopforge(t, home, key, "run", "-p", "openai", "--base-url", srv.URL+"/v1", "x"); r.code != 0 {
		t.Fatalf("run: exit %d: %s", r.code, r.stderr)
	}
	f := probeFile(t, home)
	if f == "" {
		t.Fatal("run did not cache its sandbox probe")
	}
	ino := inode(t, f)
	// The second run uses the cache (a re-probe replaces the file).
	if r := loopforge(t, home, key, "run", "-p", "openai", "--base-url", srv.URL+"/v1", "x"); r.code != 0 {
		t.Fatalf("run: exit %d: %s", r.code, r.stderr)
	}
	if r := loopforge(t, home, nil, "doctor"); r.code != 0 || !strings.Contains(r.stdout, "doctor --fresh") {
		t.Fatalf("doctor: exit %d, should say its probe is cached:\n%s%s", r.code, r.stdout, r.stderr)
	}
	if inode(t, f) != ino {
		t.Fatal("a second run or doctor probed again instead of using the cache")
	}
	if r := loopforge(t, home, nil, "doctor", "--fresh"); r.code != 0 || strings.Contains(r.stdout, "doctor --fresh") {
		t.Fatalf("doctor --fresh: exit %d, should not say its probe is cached:\n%s%s", r.code, r.stdout, r.stderr)
	}
	if inode(t, f) == ino {
		t.Fatal("doctor --fresh did not probe again")
	}
}

// serve is ready (prints its URL) without probing; the run form's first
// question (the defaults, with the isolation level) probes.
func TestServeProbesOnFirstNeed(t *testing.T) {
	home := t.TempDir()
	base, token := startServe(t, home)
	get := func(path string) string {
		req, _ := http.NewRequest("GET", base+path, nil)
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 {
			t.Fatalf("%s: %d %s", path, resp.StatusCode, b)
		}
		return string(b)
	}
	get("/api/sessions")
	get("/api/providers")
	get("/api/health")
	if f := probeFile(t, home); f != "" {
		t.Fatalf("serve probed the sandbox before anything needed it (%s)", f)
	}
	if d := get("/api/defaults"); !strings.Contains(d, `"isolation":`) {
		t.Fatalf("defaults: %s", d)
	}
	if probeFile(t, home) == "" {
		t.Fatal("the defaults (isolation level) did not probe the sandbox")
	}
}
