package main

// Several loopforge processes on one history, as in a classroom: a terminal
// `loopforge run`, another one that gets killed, and `loopforge sessions`
// in between. Each run belongs to the process executing it; only a killed
// process's run becomes interrupted.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// gatedOpenAI streams a working program, but holds each answer after its
// first chunk until the test opens the gate, so a run stays "running" for as
// long as the test needs. started receives the prompt of each request once
// its first chunk is out.
type gatedOpenAI struct {
	gate    chan struct{}
	started chan string
}

func newGatedOpenAI() *gatedOpenAI {
	return &gatedOpenAI{gate: make(chan struct{}), started: make(chan string, 64)}
}

func (f *gatedOpenAI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req chatReq
	body, _ := io.ReadAll(r.Body)
	if err := json.Unmarshal(body, &req); err != nil || len(req.Messages) == 0 {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	chunk := func(v string) {
		delta, _ := json.Marshal(v)
		fmt.Fprintf(w, "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"gpt-test\",\"choices\":[{\"index\":0,\"delta\":{\"content\":%s},\"finish_reason\":null}]}\n\n", delta)
		w.(http.Flusher).Flush()
	}
	code := program(len(req.ResponseFormat) > 0, "print('ok')")
	chunk(code[:1])
	f.started <- req.Messages[len(req.Messages)-1].Content
	select {
	case <-f.gate:
	case <-r.Context().Done(): // the client was killed
		return
	}
	for i := 1; i < len(code); i += 7 {
		chunk(code[i:min(i+7, len(code))])
	}
	fmt.Fprint(w, "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"gpt-test\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
}

// waitStarted waits until the fake server is answering a request whose
// prompt contains want.
func (f *gatedOpenAI) waitStarted(t *testing.T, want string) {
	t.Helper()
	deadline := time.After(2 * time.Minute)
	for {
		select {
		case p := <-f.started:
			if strings.Contains(p, want) {
				return
			}
		case <-deadline:
			t.Fatalf("the model was never asked %q", want)
		}
	}
}

// bgRun is a `loopforge run` in the background.
type bgRun struct {
	cmd      *exec.Cmd
	out, err bytes.Buffer
	done     chan struct{}
	code     int
}

func startRun(t *testing.T, home, url, prompt string) *bgRun {
	t.Helper()
	b := &bgRun{done: make(chan struct{})}
	b.cmd = exec.Command(binary, "run", "-p", "openai", "--base-url", url+"/v1", prompt)
	b.cmd.Dir = t.TempDir()
	b.cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "LOOPFORGE_HOME=" + home, "OPENAI_API_KEY=sk-test"}
	b.cmd.Stdout, b.cmd.Stderr = &b.out, &b.err
	if err := b.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		_ = b.cmd.Wait()
		b.code = b.cmd.ProcessState.ExitCode()
		close(b.done)
	}()
	t.Cleanup(func() { _ = b.cmd.Process.Kill(); <-b.done })
	return b
}

func (b *bgRun) wait(t *testing.T) {
	t.Helper()
	select {
	case <-b.done:
	case <-time.After(3 * time.Minute):
		t.Fatalf("run did not end\nstderr:\n%s", b.err.String())
	}
}

type storedRun struct {
	ID     string `json:"id"`
	Status string `json:"status"`
}

// runsByPrompt reads the history through `loopforge sessions --json`, itself
// one more process opening the database.
func runsByPrompt(t *testing.T, home string) map[string]storedRun {
	t.Helper()
	r := loopforge(t, home, nil, "sessions", "--json")
	if r.code != 0 {
		t.Fatalf("sessions: exit %d\n%s", r.code, r.stderr)
	}
	var sessions []struct {
		Prompt string      `json:"prompt"`
		Runs   []storedRun `json:"runs"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &sessions); err != nil {
		t.Fatalf("sessions --json: %v\n%s", err, r.stdout)
	}
	out := map[string]storedRun{}
	for _, s := range sessions {
		for _, run := range s.Runs {
			out[s.Prompt] = run // one run per session here
		}
	}
	return out
}

func TestProcessesShareOneHistory(t *testing.T) {
	fake := newGatedOpenAI()
	srv := httptest.NewServer(fake)
	t.Cleanup(srv.Close) // after the runs' cleanups: a held answer ends when its client dies
	home := t.TempDir()

	live := startRun(t, home, srv.URL, "the live run")
	fake.waitStarted(t, "the live run")
	killed := startRun(t, home, srv.URL, "the killed run")
	fake.waitStarted(t, "the killed run")

	// Another process opening the history leaves both running runs alone.
	runs := runsByPrompt(t, home)
	if runs["the live run"].Status != "running" || runs["the killed run"].Status != "running" {
		t.Fatalf("a second process changed live runs: %+v", runs)
	}

	if err := killed.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	killed.wait(t)
	runs = runsByPrompt(t, home)
	if got := runs["the killed run"]; got.Status != "interrupted" {
		t.Fatalf("the killed process's run: %+v", got)
	}
	if got := runs["the live run"]; got.Status != "running" {
		t.Fatalf("the live run was touched when the killed one was recovered: %+v", got)
	}

	close(fake.gate)
	live.wait(t)
	if live.code != 0 || live.out.String() != "print('ok')\n" {
		t.Fatalf("the live run: exit %d stdout %q\nstderr:\n%s", live.code, live.out.String(), live.err.String())
	}
	if got := runsByPrompt(t, home)["the live run"]; got.Status != "success" {
		t.Fatalf("stored status %q, the CLI printed success", got.Status)
	}
}

// Ten runs at once plus a `sessions` loop on one history: every run ends as
// it would alone, and no process reports a locked database.
func TestManyProcessesOneHistory(t *testing.T) {
	fake := newGatedOpenAI()
	close(fake.gate) // no holding: answer at once
	srv := httptest.NewServer(fake)
	t.Cleanup(srv.Close) // after the runs' cleanups: a held answer ends when its client dies
	home := t.TempDir()
	const n = 10

	var runs []*bgRun
	for i := range n {
		runs = append(runs, startRun(t, home, srv.URL, fmt.Sprintf("concurrent run %d", i)))
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var listErrs []string
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			cmd := exec.Command(binary, "sessions")
			cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "LOOPFORGE_HOME=" + home}
			if out, err := cmd.CombinedOutput(); err != nil {
				listErrs = append(listErrs, fmt.Sprintf("%v: %s", err, out))
			}
		}
	}()
	for _, r := range runs {
		r.wait(t)
	}
	close(stop)
	wg.Wait()
	for i, r := range runs {
		if r.code != 0 || strings.Contains(r.err.String(), "locked") {
			t.Errorf("run %d: exit %d\n%s", i, r.code, r.err.String())
		}
	}
	for _, e := range listErrs {
		t.Errorf("sessions failed: %s", e)
	}
	stored := runsByPrompt(t, home)
	for i := range n {
		if got := stored[fmt.Sprintf("concurrent run %d", i)]; got.Status != "success" {
			t.Errorf("run %d stored as %+v", i, got)
		}
	}
}

// Ctrl-C on a terminal run: what the terminal says is what the history
// keeps, and the run is not left for another process to "recover".
func TestInterruptedRunStoredAsPrinted(t *testing.T) {
	fake := newGatedOpenAI() // never opened: the run waits for its answer
	srv := httptest.NewServer(fake)
	t.Cleanup(srv.Close)
	home := t.TempDir()

	r := startRun(t, home, srv.URL, "the stopped run")
	fake.waitStarted(t, "the stopped run")
	if err := r.cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	r.wait(t)
	lines := strings.Split(strings.TrimSpace(r.err.String()), "\n")
	last := lines[len(lines)-1]
	got := runsByPrompt(t, home)["the stopped run"]
	if got.Status != "cancelled" || !strings.HasPrefix(last, "cancelled") {
		t.Fatalf("stored %q, the terminal said %q (exit %d)", got.Status, last, r.code)
	}
	if r.code == 0 {
		t.Errorf("a cancelled run exited 0")
	}
}
