// Command killstorm checks that one history survives many loopforge
// processes being killed at random moments while others keep running.
//
//	go run ./bench/killstorm [-runs 30] [-kills 10] [-parallel 4] [-seed N]
//
// It builds loopforge, serves a fake OpenAI-compatible model on loopback that
// streams a working program slowly, and starts -runs `loopforge run`
// processes on one LOOPFORGE_HOME, -parallel at a time, with a `loopforge
// sessions` loop reading the history throughout. -kills of the runs, chosen
// at random, are SIGKILLed after a random delay. At the end it reads the
// database directly and reports: runs per stored status, runs still marked
// running after a last `sessions` (the recovery), runs missing or duplicated,
// runs whose events have gaps or no (or several) run_finished (a recovered
// run's end comes store.SeqGap after its last stored event: that hole is
// meant), and SQLite's integrity_check. It exits 1 when any of those is wrong.
package main

import (
	"database/sql"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/loopforge/loopforge/backend/store"
	"github.com/loopforge/loopforge/bench/internal/chatstream"
	_ "modernc.org/sqlite"
)

func main() {
	runs := flag.Int("runs", 30, "runs to start")
	kills := flag.Int("kills", 10, "runs to SIGKILL at a random moment")
	parallel := flag.Int("parallel", 4, "runs at once")
	seed := flag.Uint64("seed", uint64(time.Now().UnixNano()), "random seed")
	flag.Parse()
	if err := run(*runs, *kills, *parallel, *seed); err != nil {
		fmt.Fprintln(os.Stderr, "killstorm:", err)
		os.Exit(1)
	}
}

type outcome struct {
	prompt string
	killed bool
	exit   int
}

func run(nRuns, nKills, parallel int, seed uint64) error {
	tmp, err := os.MkdirTemp("", "killstorm-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	bin := filepath.Join(tmp, "loopforge")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		return fmt.Errorf("building loopforge: %w\n%s", err, out)
	}
	home := filepath.Join(tmp, "home")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	go func() { _ = http.Serve(ln, http.HandlerFunc(slowModel)) }()
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "LOOPFORGE_HOME=" + home, "OPENAI_API_KEY=sk-test"}
	base := "http://" + ln.Addr().String() + "/v1"

	rng := rand.New(rand.NewPCG(seed, 1))
	toKill := map[int]bool{}
	for _, i := range rng.Perm(nRuns)[:min(nKills, nRuns)] {
		toKill[i] = true
	}
	delays := make([]time.Duration, nRuns)
	for i := range delays {
		delays[i] = time.Duration(rng.IntN(2500)) * time.Millisecond
	}

	stopList := listAlongside(bin, env)

	start := time.Now()
	outcomes := make([]outcome, nRuns)
	sem := make(chan struct{}, parallel)
	var wg sync.WaitGroup
	for i := range nRuns {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			outcomes[i] = oneRun(bin, env, base, fmt.Sprintf("killstorm run %03d", i), toKill[i], delays[i])
		}()
	}
	wg.Wait()
	listRuns, listFails := stopList()
	elapsed := time.Since(start)

	// One more process opening the history recovers what the killed left.
	c := exec.Command(bin, "sessions")
	c.Env = env
	if out, err := c.CombinedOutput(); err != nil {
		return fmt.Errorf("final sessions: %w: %s", err, out)
	}
	fmt.Printf("seed %d: %d runs (%d killed at random moments, %d at once), %d `sessions` alongside (%d failed), %s\n",
		seed, nRuns, len(toKill), parallel, listRuns, listFails, elapsed.Round(time.Millisecond))
	bad, err := audit(filepath.Join(home, "history.db"), outcomes)
	if err != nil {
		return err
	}
	if bad > 0 || listFails > 0 {
		return fmt.Errorf("%d problems", bad+listFails)
	}
	fmt.Println("OK")
	return nil
}

// listAlongside runs `loopforge sessions` over and over until the
// returned stop is called, which says how many ran and how many failed.
func listAlongside(bin string, env []string) (stop func() (runs, fails int)) {
	done := make(chan struct{})
	var listRuns, listFails atomic.Int32
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			select {
			case <-done:
				return
			default:
			}
			c := exec.Command(bin, "sessions")
			c.Env = env
			if out, err := c.CombinedOutput(); err != nil {
				listFails.Add(1)
				fmt.Fprintf(os.Stderr, "sessions: %v: %s\n", err, out)
			}
			listRuns.Add(1)
		}
	})
	return func() (int, int) {
		close(done)
		wg.Wait()
		return int(listRuns.Load()), int(listFails.Load())
	}
}

// oneRun runs `loopforge run`, SIGKILLing it after delay when kill is set.
func oneRun(bin string, env []string, base, prompt string, kill bool, delay time.Duration) outcome {
	c := exec.Command(bin, "run", "-p", "openai", "--base-url", base, prompt)
	c.Env = env
	c.Stdout, c.Stderr = io.Discard, io.Discard
	if err := c.Start(); err != nil {
		return outcome{prompt: prompt, exit: -1}
	}
	if kill {
		t := time.AfterFunc(delay, func() { _ = c.Process.Signal(syscall.SIGKILL) })
		defer t.Stop()
	}
	_ = c.Wait()
	return outcome{prompt: prompt, killed: kill, exit: c.ProcessState.ExitCode()}
}

// stored is what the history holds of one run.
type stored struct {
	status                           string
	events, maxSeq, finals, finalSeq int
}

// audit reads the history and prints what it found; it returns the number
// of problems.
func audit(db string, outcomes []outcome) (int, error) {
	byPrompt, integrity, err := readHistory(db)
	if err != nil {
		return 0, err
	}
	bad := 0
	problem := func(f string, a ...any) { bad++; fmt.Printf("  PROBLEM: "+f+"\n", a...) }
	count := map[string]int{}
	gaps, stillRunning := 0, 0
	for _, o := range outcomes {
		s := byPrompt[o.prompt]
		if len(s) != 1 {
			if !(o.killed && len(s) == 0) { // killed before it created its run: fine
				problem("%s: %d runs stored", o.prompt, len(s))
			} else {
				count["killed before its run was created"]++
			}
			continue
		}
		r := s[0]
		key := r.status
		if o.killed {
			key = "killed → " + r.status
		}
		count[key]++
		if r.events != r.maxSeq || (r.finals == 1 && r.finalSeq != r.maxSeq+1 && r.finalSeq != r.maxSeq+store.SeqGap+1) {
			gaps++
			problem("%s: %d events, last seq %d, run_finished at %d", o.prompt, r.events, r.maxSeq, r.finalSeq)
		}
		if r.status == "running" {
			stillRunning++
			problem("%s: still running", o.prompt)
		} else if r.finals != 1 {
			problem("%s: %s with %d run_finished events", o.prompt, r.status, r.finals)
		}
		if !o.killed && (r.status != "success" || o.exit != 0) {
			problem("%s: not killed, exit %d, stored %s", o.prompt, o.exit, r.status)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(count)) {
		fmt.Printf("  %-40s %d\n", k, count[k])
	}
	fmt.Printf("  runs still running after recovery: %d; runs with event gaps: %d; integrity_check: %s\n",
		stillRunning, gaps, integrity)
	if integrity != "ok" {
		problem("integrity_check: %s", integrity)
	}
	return bad, nil
}

// readHistory reads each run's events and ending by prompt, and the
// database's integrity_check.
func readHistory(db string) (map[string][]stored, string, error) {
	d, err := sql.Open("sqlite", "file:"+db+"?mode=ro")
	if err != nil {
		return nil, "", err
	}
	defer d.Close()
	var integrity string
	if err := d.QueryRow("PRAGMA integrity_check").Scan(&integrity); err != nil {
		return nil, "", err
	}
	rows, err := d.Query(`SELECT s.prompt, r.status,
		(SELECT count(*) FROM events e WHERE e.run_id = r.id AND e.type != 'run_finished'),
		(SELECT coalesce(max(seq), 0) FROM events e WHERE e.run_id = r.id AND e.type != 'run_finished'),
		(SELECT count(*) FROM events e WHERE e.run_id = r.id AND e.type = 'run_finished'),
		(SELECT coalesce(max(seq), 0) FROM events e WHERE e.run_id = r.id AND e.type = 'run_finished')
		FROM runs r JOIN sessions s ON s.id = r.session_id`)
	if err != nil {
		return nil, "", err
	}
	defer rows.Close()
	byPrompt := map[string][]stored{}
	for rows.Next() {
		var p string
		var s stored
		if err := rows.Scan(&p, &s.status, &s.events, &s.maxSeq, &s.finals, &s.finalSeq); err != nil {
			return nil, "", err
		}
		byPrompt[p] = append(byPrompt[p], s)
	}
	return byPrompt, integrity, rows.Err()
}

// slowModel answers a chat completion with a working program, streamed in
// small chunks 20 ms apart (about half a second), so kills land mid-stream.
func slowModel(w http.ResponseWriter, r *http.Request) {
	var req struct {
		ResponseFormat json.RawMessage `json:"response_format"`
	}
	_ = json.NewDecoder(r.Body).Decode(&req)
	code := "import time\ntime.sleep(0.2)\nprint('ok')\n"
	chatstream.Stream(w, r, "c", chatstream.Answer(req.ResponseFormat, "", code), 3, 20*time.Millisecond)
}
