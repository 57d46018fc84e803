package main

// End-to-end: build the real binary and drive `loopforge run` against a local
// server that speaks the OpenAI chat-completions streaming format.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
)

var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "loopforge-e2e-")
	if err != nil {
		panic(err)
	}
	binary = filepath.Join(dir, "loopforge")
	out, err := exec.Command("go", "build", "-o", binary, ".").CombinedOutput()
	if err != nil {
		fmt.Fprintf(os.Stderr, "building loopforge: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// fakeOpenAI answers chat completions: a generation request gets buggy code
// until the conversation carries an error report, then working code; a
// reflection request gets a short analysis. alwaysFail keeps the code buggy.
type fakeOpenAI struct {
	alwaysFail bool
	status     int // non-zero: answer every request with this HTTP status
	requests   atomic.Int32
}

type chatReq struct {
	Model          string          `json:"model"`
	Stream         bool            `json:"stream"`
	ResponseFormat json.RawMessage `json:"response_format"`
	Messages       []struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	} `json:"messages"`
}

func (f *fakeOpenAI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.requests.Add(1)
	if f.status != 0 {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(f.status)
		fmt.Fprintf(w, `{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","code":"invalid_api_key"}}`)
		return
	}
	var req chatReq
	body, _ := io.ReadAll(r.Body)
	if err := json.Unmarshal(body, &req); err != nil || !req.Stream {
		http.Error(w, "bad request", 400)
		return
	}
	var answer string
	system, last := req.Messages[0].Content, req.Messages[len(req.Messages)-1].Content
	structured := len(req.ResponseFormat) > 0
	switch {
	case strings.Contains(system, "review"):
		answer = "The program divides by zero on purpose. Remove the division."
	case strings.Contains(last, "failed") && !f.alwaysFail:
		answer = program(structured, "print('fixed: hello')")
	default:
		answer = program(structured, "print('about to fail')\nprint(1/0)")
	}
	w.Header().Set("Content-Type", "text/event-stream")
	chunk := func(v string) { fmt.Fprintf(w, "data: %s\n\n", v); w.(http.Flusher).Flush() }
	for i := 0; i < len(answer); i += 5 {
		delta, _ := json.Marshal(answer[i:min(i+5, len(answer))])
		chunk(fmt.Sprintf(`{"id":"c1","object":"chat.completion.chunk","created":1,"model":"gpt-test","choices":[{"index":0,"delta":{"content":%s},"finish_reason":null}]}`, delta))
	}
	chunk(`{"id":"c1","object":"chat.completion.chunk","created":1,"model":"gpt-test","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`)
	chunk(`{"id":"c1","object":"chat.completion.chunk","created":1,"model":"gpt-test","choices":[],"usage":{"prompt_tokens":12,"completion_tokens":7,"total_tokens":19}}`)
	chunk("[DONE]")
}

func program(structured bool, code string) string {
	if structured {
		b, _ := json.Marshal(map[string]string{"explanation": "A small program.", "code": code})
		return string(b)
	}
	return "Here it is.\n```python\n" + code + "\n```\n"
}

type result struct {
	code           int
	stdout, stderr string
}

// loopforge runs the binary in an empty working directory with a private
// LOOPFORGE_HOME and only the given environment.
func loopforge(t *testing.T, home string, env []string, args ...string) result {
	t.Helper()
	wd := t.TempDir()
	cmd := exec.Command(binary, args...)
	cmd.Dir = wd
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "LOOPFORGE_HOME=" + home}, env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(wd); len(entries) != 0 {
		t.Errorf("loopforge %v created files in the current directory: %v", args, entries)
	}
	if strings.Contains(errb.String(), "goroutine ") || strings.Contains(errb.String(), "panic:") {
		t.Errorf("stack trace on stderr:\n%s", errb.String())
	}
	return result{code, out.String(), errb.String()}
}

func TestRunFixesCodeAndKeepsHistory(t *testing.T) {
	fake := &fakeOpenAI{}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	home := t.TempDir()
	tmp := t.TempDir() // the sandbox's run dirs go here
	key := []string{"OPENAI_API_KEY=sk-test", "TMPDIR=" + tmp}

	r := loopforge(t, home, key, "run", "-p", "openai", "--base-url", srv.URL+"/v1", "print hello")
	if r.code != 0 {
		t.Fatalf("exit %d\nstderr:\n%s", r.code, r.stderr)
	}
	// Removed in the background after each execution, and waited for
	// before the process exits.
	if entries, _ := os.ReadDir(tmp); len(entries) != 0 {
		t.Errorf("left in TMPDIR after loopforge exited: %v", entries)
	}
	if r.stdout != "print('fixed: hello')\n" {
		t.Fatalf("stdout should be exactly the final code, got %q", r.stdout)
	}
	for _, want := range []string{"iteration 1: error: exit 1: ZeroDivisionError", "iteration 2: success\n  │ fixed: hello\n", "success after 2 iterations"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	if n := fake.requests.Load(); n != 3 {
		t.Errorf("%d requests, want 3 (generate, reflect, generate)", n)
	}

	// The run is in the history.
	r = loopforge(t, home, nil, "sessions", "--json")
	var sessions []struct {
		ID   string `json:"id"`
		Runs []struct {
			Status     string `json:"status"`
			Iterations int    `json:"iterations"`
		} `json:"runs"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &sessions); err != nil || len(sessions) != 1 {
		t.Fatalf("sessions --json: %v\n%s", err, r.stdout)
	}
	if got := sessions[0].Runs; len(got) != 1 || got[0].Status != "success" || got[0].Iterations != 2 {
		t.Fatalf("stored runs: %+v", got)
	}
	r = loopforge(t, home, nil, "sessions", "show", sessions[0].ID)
	if r.code != 0 || !strings.Contains(r.stdout, "iteration 1: error") || !strings.Contains(r.stdout, "print('fixed: hello')") {
		t.Fatalf("sessions show: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}

	// Export the session as a script and as JSON, and import the JSON back.
	out := t.TempDir()
	r = loopforge(t, home, nil, "export", sessions[0].ID, "--format", "py", "--out", out)
	script, err := os.ReadFile(strings.TrimSpace(r.stdout))
	if r.code != 0 || err != nil || !strings.HasSuffix(string(script), "print('fixed: hello')\n") || !strings.Contains(string(script), "print hello") {
		t.Fatalf("export py: exit %d %v\n%s\n%s", r.code, err, r.stderr, script)
	}
	r = loopforge(t, home, nil, "export", sessions[0].ID, "-f", "json", "-o", out)
	jsonPath := strings.TrimSpace(r.stdout)
	if r.code != 0 {
		t.Fatalf("export json: exit %d %s", r.code, r.stderr)
	}
	if r = loopforge(t, home, nil, "export", sessions[0].ID, "-f", "json", "-o", out); r.code != 2 || !strings.Contains(r.stderr, "--out") {
		t.Fatalf("a second export into the same directory must not overwrite: exit %d %s", r.code, r.stderr)
	}
	if r = loopforge(t, home, nil, "export", sessions[0].ID, "-f", "docx"); r.code != 2 {
		t.Fatalf("unknown format: exit %d", r.code)
	}
	r = loopforge(t, home, nil, "export", sessions[0].ID, "-f", "md", "--lang", "pt", "-o", out)
	handout, err := os.ReadFile(strings.TrimSpace(r.stdout))
	if r.code != 0 || err != nil || !strings.Contains(string(handout), "## Comparação") || !strings.Contains(string(handout), "### Iteração 1") {
		t.Fatalf("export md --lang pt: exit %d %v\n%s\n%s", r.code, err, r.stderr, handout)
	}
	if r = loopforge(t, home, nil, "export", sessions[0].ID, "-f", "md", "--lang", "fr"); r.code != 2 {
		t.Fatalf("unknown language: exit %d", r.code)
	}
	r = loopforge(t, home, nil, "import", jsonPath)
	if r.code != 0 || strings.TrimSpace(r.stdout) == sessions[0].ID {
		t.Fatalf("import: exit %d %s", r.code, r.stderr)
	}
	r = loopforge(t, home, nil, "sessions", "show", strings.TrimSpace(r.stdout))
	if r.code != 0 || !strings.Contains(r.stdout, "print('fixed: hello')") {
		t.Fatalf("imported session: %s %s", r.stdout, r.stderr)
	}

	// A follow-up continues the thread.
	r = loopforge(t, home, key, "run", "-p", "openai", "--base-url", srv.URL+"/v1", "--session", sessions[0].ID, "now say hi")
	if r.code != 0 {
		t.Fatalf("follow-up: exit %d\n%s", r.code, r.stderr)
	}
}

func TestRunJSONLines(t *testing.T) {
	srv := httptest.NewServer(&fakeOpenAI{})
	defer srv.Close()
	r := loopforge(t, t.TempDir(), []string{"OPENAI_API_KEY=sk-test"}, "run", "--json", "--no-reflect", "-p", "openai", "--base-url", srv.URL+"/v1", "x")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var last int64
	var types []string
	for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		var e struct {
			Type string `json:"type"`
			Seq  int64  `json:"seq"`
		}
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("not JSON: %q", line)
		}
		if e.Seq != last+1 {
			t.Fatalf("seq %d after %d", e.Seq, last)
		}
		last = e.Seq
		if e.Type != "token" {
			types = append(types, e.Type)
		}
	}
	if types[0] != "run_started" || types[len(types)-1] != "run_finished" {
		t.Fatalf("event order: %v", types)
	}
	for _, ty := range types {
		if ty == "reflection" {
			t.Fatal("--no-reflect still reflected")
		}
	}
}

func TestRunExitCodes(t *testing.T) {
	ok := httptest.NewServer(&fakeOpenAI{})
	defer ok.Close()
	failing := httptest.NewServer(&fakeOpenAI{alwaysFail: true})
	defer failing.Close()
	unauthorized := &fakeOpenAI{status: 401}
	bad := httptest.NewServer(unauthorized)
	defer bad.Close()
	closed := httptest.NewServer(http.NotFoundHandler())
	closedURL := closed.URL
	closed.Close()
	key := []string{"OPENAI_API_KEY=sk-test"}
	missing := filepath.Join(t.TempDir(), "nope.txt")

	tests := []struct {
		name   string
		env    []string
		args   []string
		code   int
		stderr string
	}{
		{"limit reached", key, []string{"run", "-n", "2", "-p", "openai", "--base-url", failing.URL + "/v1", "x"}, 1, "limit reached: no working code after 2 iterations"},
		{"unknown provider", key, []string{"run", "-p", "skynet", "x"}, 2, `unknown provider "skynet"`},
		{"missing key", nil, []string{"run", "-p", "openai", "--base-url", ok.URL + "/v1", "x"}, 3, "OPENAI_API_KEY"},
		{"rejected key", key, []string{"run", "-p", "openai", "--base-url", bad.URL + "/v1", "x"}, 3, "OPENAI_API_KEY"},
		{"unreachable", key, []string{"run", "-p", "openai", "--base-url", closedURL + "/v1", "x"}, 3, "cannot reach"},
		{"prompt file missing", key, []string{"run", "-p", "openai", "--prompt-file", missing}, 2, "does not exist"},
		{"zero iterations", key, []string{"run", "-n", "0", "-p", "openai", "x"}, 2, "at least 1"},
		{"bad timeout", key, []string{"run", "--timeout", "soon", "-p", "openai", "x"}, 2, "not a duration"},
		{"unknown flag", key, []string{"run", "--frobnicate"}, 2, "unknown flag"},
		{"unknown command", key, []string{"frobnicate"}, 2, "unknown command"},
		{"no provider configured", nil, []string{"run", "x"}, 2, "no provider is configured"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := loopforge(t, t.TempDir(), tt.env, tt.args...)
			if r.code != tt.code || !strings.Contains(r.stderr, tt.stderr) {
				t.Fatalf("exit %d, want %d; stderr should contain %q:\n%s", r.code, tt.code, tt.stderr, r.stderr)
			}
			if lines := strings.Count(strings.TrimSpace(r.stderr), "\n"); tt.code == 2 && lines > 0 {
				t.Errorf("a usage error should be one line:\n%s", r.stderr)
			}
		})
	}
	if n := unauthorized.requests.Load(); n != 1 {
		t.Errorf("a 401 must not be retried: %d requests", n)
	}
}

// startServe starts `loopforge serve` on a free loopback port with home as
// LOOPFORGE_HOME and returns the base URL and token from its first line;
// the process is killed when the test ends.
func startServe(t *testing.T, home string) (base, token string) {
	t.Helper()
	cmd := exec.Command(binary, "serve", "--addr", "127.0.0.1:0")
	cmd.Dir = t.TempDir()
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "LOOPFORGE_HOME=" + home}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	line = strings.TrimSpace(line)
	const prefix = "loopforge is serving at "
	u, found := strings.CutPrefix(line, prefix)
	base, token, ok := strings.Cut(u, "/?token=")
	if !found || !ok {
		t.Fatalf("first line %q", line)
	}
	return base, token
}

func TestServePrintsTokenURLAndGuardsAPI(t *testing.T) {
	base, token := startServe(t, t.TempDir())
	if !strings.HasPrefix(base, "http://127.0.0.1:") || len(token) < 32 {
		t.Fatalf("URL %s token %q", base, token)
	}
	resp, err := http.Get(base + "/api/health")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("health without token: %d", resp.StatusCode)
	}
	req, _ := http.NewRequest("GET", base+"/api/health", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), `"version"`) {
		t.Fatalf("health with token: %d %s", resp.StatusCode, body)
	}
}

func TestServeRefusesNonLoopback(t *testing.T) {
	r := loopforge(t, t.TempDir(), nil, "serve", "--addr", "0.0.0.0:0")
	if r.code != 2 || !strings.Contains(r.stderr, "loopback only") {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
}

func TestProvidersJSON(t *testing.T) {
	r := loopforge(t, t.TempDir(), []string{"ANTHROPIC_API_KEY=sk-ant-test"}, "providers", "--json")
	var list []struct {
		Name      string `json:"name"`
		Available bool   `json:"available"`
		Default   bool   `json:"default"`
		Reason    string `json:"reason"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &list); err != nil || r.code != 0 {
		t.Fatalf("exit %d %v: %s", r.code, err, r.stdout)
	}
	got := map[string]bool{}
	for _, p := range list {
		got[p.Name] = p.Available
		if p.Name == "anthropic" && !p.Default {
			t.Error("the only profile with a key should be the default")
		}
		if p.Name == "openai" && !strings.Contains(p.Reason, "OPENAI_API_KEY") {
			t.Errorf("openai reason %q should name the key variable", p.Reason)
		}
	}
	if !got["anthropic"] || got["openai"] {
		t.Fatalf("availability %v", got)
	}
}

func TestCompareTable(t *testing.T) {
	good := httptest.NewServer(&fakeOpenAI{})
	defer good.Close()
	bad := httptest.NewServer(&fakeOpenAI{alwaysFail: true})
	defer bad.Close()
	home := t.TempDir()
	yml := fmt.Sprintf("providers:\n  good:\n    kind: openai\n    model: m-good\n    base_url: %s/v1\n    api_key_env: \"\"\n  bad:\n    kind: openai\n    model: m-bad\n    base_url: %s/v1\n    api_key_env: \"\"\n", good.URL, bad.URL)
	if err := os.WriteFile(filepath.Join(home, "loopforge.yml"), []byte(yml), 0o600); err != nil {
		t.Fatal(err)
	}
	r := loopforge(t, home, nil, "compare", "-p", "good", "-p", "bad", "-n", "2", "print hello")
	if r.code != 1 {
		t.Fatalf("exit %d (want 1: one provider failed)\n%s", r.code, r.stderr)
	}
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "PROVIDER") {
		t.Fatalf("table:\n%s", r.stdout)
	}
	if f := strings.Fields(lines[1]); f[0] != "good" || f[2] != "success" || f[3] != "2" {
		t.Errorf("good row: %q", lines[1])
	}
	if f := strings.Fields(lines[2]); f[0] != "bad" || f[2] != "limit_reached" || f[3] != "2" || f[len(f)-1] != "1" {
		t.Errorf("bad row: %q", lines[2])
	}
	for _, want := range []string{"[good] finished: success", "[bad] finished: limit_reached"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}

	r = loopforge(t, home, nil, "compare", "--json", "-p", "good", "-p", "bad", "-n", "1", "x")
	out := strings.Split(strings.TrimSpace(r.stdout), "\n")
	var last struct {
		Type    string `json:"type"`
		Payload []struct {
			Provider string `json:"provider"`
			Status   string `json:"status"`
		} `json:"payload"`
	}
	if err := json.Unmarshal([]byte(out[len(out)-1]), &last); err != nil || last.Type != "comparison" || len(last.Payload) != 2 {
		t.Fatalf("last JSON line: %s (%v)", out[len(out)-1], err)
	}
	if r := loopforge(t, home, nil, "compare", "-p", "good", "x"); r.code != 2 {
		t.Fatalf("one provider: exit %d", r.code)
	}
}

// TestCompareWithTests: the built binary judges each provider's programs by
// --tests: one provider's second program passes, the other's never does,
// and the table has the tests passed.
func TestCompareWithTests(t *testing.T) {
	good := httptest.NewServer(&fakeOpenAI{})
	defer good.Close()
	bad := httptest.NewServer(&fakeOpenAI{alwaysFail: true})
	defer bad.Close()
	home := t.TempDir()
	yml := fmt.Sprintf("providers:\n  good:\n    kind: openai\n    model: m-good\n    base_url: %s/v1\n    api_key_env: \"\"\n  bad:\n    kind: openai\n    model: m-bad\n    base_url: %s/v1\n    api_key_env: \"\"\n", good.URL, bad.URL)
	tests := filepath.Join(home, "hello.yml")
	if err := os.WriteFile(filepath.Join(home, "loopforge.yml"), []byte(yml), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(tests, []byte("tests:\n  - {name: greets, expected: 'fixed: hello', match: exact}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := loopforge(t, home, nil, "compare", "-p", "good", "-p", "bad", "-n", "2", "--tests", tests, "print hello")
	if r.code != 1 {
		t.Fatalf("exit %d (want 1: one provider failed)\n%s", r.code, r.stderr)
	}
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if len(lines) != 3 || !strings.HasSuffix(lines[0], "TESTS") {
		t.Fatalf("table:\n%s", r.stdout)
	}
	if f := strings.Fields(lines[1]); f[0] != "good" || f[2] != "success" || f[len(f)-1] != "1/1" {
		t.Errorf("good row: %q", lines[1])
	}
	if f := strings.Fields(lines[2]); f[0] != "bad" || f[2] != "limit_reached" || f[len(f)-1] != "0/1" {
		t.Errorf("bad row: %q", lines[2])
	}
	for _, want := range []string{"[good] iteration 1: tests 0/1 passed", "[good] iteration 2: tests 1/1 passed", "[bad] iteration 2: tests 0/1 passed"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	r = loopforge(t, home, nil, "stats")
	if first, _, _ := strings.Cut(r.stdout, "\n"); r.code != 0 || !strings.HasSuffix(strings.TrimSpace(first), "TESTS") {
		t.Errorf("stats (exit %d):\n%s", r.code, r.stdout)
	}
}

// TestCompareRepeat: --repeat 2 --reflect-ab runs the comparison twice with
// reflection on and twice with it off, and summarises each provider and
// setting: the provider that fixes its program passes every repeat, the
// one that never does passes none.
func TestCompareRepeat(t *testing.T) {
	good := httptest.NewServer(&fakeOpenAI{})
	defer good.Close()
	bad := httptest.NewServer(&fakeOpenAI{alwaysFail: true})
	defer bad.Close()
	home := t.TempDir()
	yml := fmt.Sprintf("providers:\n  good:\n    kind: openai\n    model: m-good\n    base_url: %s/v1\n    api_key_env: \"\"\n  bad:\n    kind: openai\n    model: m-bad\n    base_url: %s/v1\n    api_key_env: \"\"\n", good.URL, bad.URL)
	if err := os.WriteFile(filepath.Join(home, "loopforge.yml"), []byte(yml), 0o600); err != nil {
		t.Fatal(err)
	}
	r := loopforge(t, home, nil, "compare", "-p", "good", "-p", "bad", "-n", "2", "--repeat", "2", "--reflect-ab", "print hello")
	if r.code != 1 {
		t.Fatalf("exit %d (want 1: bad never passes)\n%s", r.code, r.stderr)
	}
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	t.Logf("summary:\n%s", r.stdout)
	if len(lines) != 5 || !strings.HasPrefix(lines[0], "PROVIDER  REFLECT  PASS^2  PASS@1") {
		t.Fatalf("summary:\n%s", r.stdout)
	}
	want := [][]string{{"good", "on", "yes", "2/2", "2.0"}, {"bad", "on", "no", "0/2", "-"}, {"good", "off", "yes", "2/2", "2.0"}, {"bad", "off", "no", "0/2", "-"}}
	for i, w := range want {
		if f := strings.Fields(lines[i+1]); len(f) < 5 || !slices.Equal(f[:5], w) {
			t.Errorf("row %d: %q, want it to start %v", i+1, lines[i+1], w)
		}
	}
	if n := strings.Count(r.stderr, "[round "); n != 8 {
		t.Errorf("%d round lines (want 2 rounds × 2 settings × 2 providers):\n%s", n, r.stderr)
	}
	if r := loopforge(t, home, nil, "compare", "-p", "good", "-p", "bad", "--repeat", "0", "x"); r.code != 2 {
		t.Errorf("--repeat 0: exit %d", r.code)
	}
}
