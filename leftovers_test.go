package main

// A loopforge process killed (SIGKILL) while generated code runs leaves its
// run's temp dirs behind; the next loopforge process on the same history
// removes them, and only them.

import (
	"bufio"
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
	"syscall"
	"testing"
	"time"
)

// sleeperOpenAI answers every prompt with a program that runs until killed.
func sleeperOpenAI(w http.ResponseWriter, r *http.Request) {
	var req chatReq
	body, _ := io.ReadAll(r.Body)
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	code := program(len(req.ResponseFormat) > 0, "import time\nprint('asleep', flush=True)\ntime.sleep(3600)")
	delta, _ := json.Marshal(code)
	w.Header().Set("Content-Type", "text/event-stream")
	fmt.Fprintf(w, "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"gpt-test\",\"choices\":[{\"index\":0,\"delta\":{\"content\":%s},\"finish_reason\":null}]}\n\n", delta)
	fmt.Fprint(w, "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"gpt-test\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
}

// ourTempDirs lists the run dirs loopforge made in tmp (sorted).
func ourTempDirs(t *testing.T, tmp string) []string {
	t.Helper()
	entries, err := os.ReadDir(tmp)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if n := e.Name(); strings.HasPrefix(n, "loopforge-run-") || strings.HasPrefix(n, "loopforge-pyhook-") {
			out = append(out, n)
		}
	}
	return out
}

// sleeper is a `loopforge run` whose generated code runs until killed.
type sleeper struct {
	cmd    *exec.Cmd
	stderr strings.Builder // read once done is closed
	done   chan struct{}
}

// startSleeper starts `loopforge run` with its own TMPDIR and waits until
// the code it runs is executing; it returns the temp dirs that appeared.
func startSleeper(t *testing.T, home, tmp, url string) (*sleeper, []string) {
	t.Helper()
	before := ourTempDirs(t, tmp)
	s := &sleeper{done: make(chan struct{})}
	s.cmd = exec.Command(binary, "run", "-p", "openai", "--base-url", url+"/v1", "--timeout", "1h", "--json", "sleep")
	s.cmd.Dir = t.TempDir()
	s.cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "LOOPFORGE_HOME=" + home, "OPENAI_API_KEY=sk-test", "TMPDIR=" + tmp}
	s.cmd.Stderr = &s.stderr
	out, err := s.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	asleep := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if l := sc.Text(); strings.Contains(l, `"exec_output"`) && strings.Contains(l, "asleep") {
				close(asleep)
				break
			}
		}
		_, _ = io.Copy(io.Discard, out)
		_ = s.cmd.Wait()
		close(s.done)
	}()
	t.Cleanup(func() { _ = s.cmd.Process.Kill(); <-s.done })
	select {
	case <-asleep:
	case <-s.done:
		t.Fatalf("loopforge run ended before its code ran\nstderr:\n%s", s.stderr.String())
	case <-time.After(2 * time.Minute):
		t.Fatal("the generated code never started")
	}
	var mine []string
	for _, d := range ourTempDirs(t, tmp) {
		if !slices.Contains(before, d) {
			mine = append(mine, d)
		}
	}
	if len(mine) == 0 {
		t.Fatal("the run made no temp dir in its TMPDIR")
	}
	return s, mine
}

func TestKilledProcessTempDirsAreRemoved(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(sleeperOpenAI))
	t.Cleanup(srv.Close)
	home, tmp := t.TempDir(), t.TempDir()

	live, liveDirs := startSleeper(t, home, tmp, srv.URL)
	killed, killedDirs := startSleeper(t, home, tmp, srv.URL)
	// Not ours to judge: an untagged dir (an older loopforge's), one of
	// another history (other LOOPFORGE_HOME), a file under a run dir's name.
	foreign := []string{"loopforge-run-123456789", "loopforge-pyhook-0badc0de-42-0123456789abcdef01234567-77"}
	for _, d := range foreign {
		if err := os.Mkdir(filepath.Join(tmp, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}

	if err := killed.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-killed.done
	// Whatever the killed process's sandbox was running dies with it; its
	// dirs stay, which is the bug this test is about.
	for _, d := range killedDirs {
		if _, err := os.Stat(filepath.Join(tmp, d)); err != nil {
			t.Fatalf("%s is gone before any other process started: the test shows nothing (%v)", d, err)
		}
	}

	// Any next process on the history cleans up (here: listing sessions).
	if r := loopforge(t, home, []string{"TMPDIR=" + tmp}, "sessions", "--json"); r.code != 0 {
		t.Fatalf("sessions: exit %d\n%s", r.code, r.stderr)
	}
	left := ourTempDirs(t, tmp)
	for _, d := range killedDirs {
		if slices.Contains(left, d) {
			t.Errorf("the killed process's %s is still there", d)
		}
	}
	for _, d := range append(liveDirs, foreign...) {
		if !slices.Contains(left, d) {
			t.Errorf("%s was removed: it is not a dead process's", d)
		}
	}
	select {
	case <-live.done:
		t.Fatalf("the live run ended while another process cleaned up\nstderr:\n%s", live.stderr.String())
	default:
	}
}
