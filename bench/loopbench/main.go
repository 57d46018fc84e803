// Command loopbench times whole loops, side by side, against one fake
// model (bench/fakemodel): loopforge (one binary, or a baseline and a new
// one) and the same loop written with LangGraph.js (the peer).
//
//	go run ./bench/loopbench -model http://127.0.0.1:PORT -new NEW/loopforge [-old OLD/loopforge] [-peer DIR] [-n 15]
//
// bench/loop.sh builds the binaries, installs the peer, starts the model
// and runs this. Each round runs every scenario once per subject, the
// subjects in a rotating order, so that a machine whose speed drifts treats
// them alike; the table gives medians (min–max) and ratios of medians.
// Nothing here judges: it prints numbers.
//
// Scenarios (the model's script is a marker in the prompt, see fakemodel):
//
//   - one: the first program works: 1 iteration, 1 model call.
//   - five: four failing programs, then a working one (-n 5, reflection
//     on): 5 iterations, 9 model calls.
//   - compare (loopforge only): `loopforge compare` of scenario five on
//     three providers (the same fake model), against one `loopforge run`
//     of it alone.
//
// A run's overhead is its wall time (exec to exit) less the time the model
// spent answering it (the model's /_stats, from each request's arrival to
// its last byte): start-up, prompts, streaming, recording, the executions
// of the programs (their own run included) and the exit. The
// per-later-iteration overhead is (overhead of five − overhead of one) / 4;
// for loopforge also without the programs' own time (each execution's
// duration as its sandbox measured it, from the hand-over of the code to
// the program's exit: `run --json`'s exec_finished events), which leaves
// what loopforge adds around a program.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/loopforge/loopforge/bench/internal/medians"
)

func main() {
	model := flag.String("model", "", "the fake model's base URL (http://127.0.0.1:PORT)")
	newBin := flag.String("new", "", "the loopforge binary to measure")
	oldBin := flag.String("old", "", "a baseline loopforge binary (optional)")
	peer := flag.String("peer", "", "the LangGraph.js peer's directory, its node_modules installed (optional)")
	python := flag.String("python", "/usr/bin/python3", "the interpreter both loops use (its directory goes first on PATH)")
	n := flag.Int("n", 15, "rounds")
	flag.Parse()
	if *model == "" || *newBin == "" {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(*model, *oldBin, *newBin, *peer, *python, *n); err != nil {
		fmt.Fprintln(os.Stderr, "loopbench:", err)
		os.Exit(1)
	}
}

const prompt = "Write a Python program that prints RESULT=<answer>."

// subject is one implementation under test.
type subject struct {
	name string
	bin  string // loopforge binary; "" for the peer
	dir  string // the peer's directory, or loopforge's home
	env  []string
}

type scenario struct {
	name       string
	fails      int // failing answers before a working one
	iterations int
	calls      int // model calls per run
	compare    bool
}

var scenarios = []scenario{
	{name: "one", fails: 0, iterations: 1, calls: 1},
	{name: "five", fails: 4, iterations: 5, calls: 9},
	{name: "compare", fails: 4, iterations: 5, calls: 27, compare: true},
}

// sample is one timed run.
type sample struct {
	wall, model float64 // ms
	// prog is the programs' own time, as loopforge's sandbox measured
	// each execution (exec_finished duration_ms in --json); 0 for the peer.
	prog float64
}

func run(model, oldBin, newBin, peerDir, python string, n int) error {
	tmp, err := os.MkdirTemp("", "loopforge-loopbench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	path := filepath.Dir(python) + ":/usr/local/bin:/usr/bin:/bin"
	if node, err := exec.LookPath("node"); err == nil {
		path += ":" + filepath.Dir(node)
	}
	var subjects []subject
	for _, b := range []struct{ name, bin string }{{"old", oldBin}, {"new", newBin}} {
		if b.bin == "" {
			continue
		}
		home := filepath.Join(tmp, b.name)
		if err := os.Mkdir(home, 0o700); err != nil {
			return err
		}
		var yml strings.Builder
		yml.WriteString("provider: a\nproviders:\n")
		for _, p := range []string{"a", "b", "c"} {
			fmt.Fprintf(&yml, "  %s:\n    kind: openai\n    model: fake-%s\n    base_url: %s/v1\n    api_key_env: \"\"\n", p, p, model)
		}
		if err := os.WriteFile(filepath.Join(home, "loopforge.yml"), []byte(yml.String()), 0o600); err != nil {
			return err
		}
		subjects = append(subjects, subject{name: b.name, bin: b.bin, dir: home,
			env: []string{"PATH=" + path, "HOME=" + home, "LOOPFORGE_HOME=" + home, "LANG=C.UTF-8"}})
	}
	if peerDir != "" {
		subjects = append(subjects, subject{name: "peer", dir: peerDir,
			env: []string{"PATH=" + path, "HOME=" + tmp, "LANG=C.UTF-8", "LOOP_PYTHON=" + python}})
	}

	// samples[scenario][subject]
	samples := make([][][]sample, len(scenarios))
	for i := range samples {
		samples[i] = make([][]sample, len(subjects))
	}
	for round := -1; round < n; round++ { // round -1 warms caches (history, probe, page cache), not counted
		for si, sc := range scenarios {
			for k := range subjects {
				j := (k + max(round, 0) + si) % len(subjects)
				s := subjects[j]
				if sc.compare && s.bin == "" {
					continue
				}
				got, err := timedRun(model, s, sc)
				if err != nil {
					return err
				}
				if round >= 0 {
					samples[si][j] = append(samples[si][j], got)
				}
			}
		}
		if round >= 0 {
			fmt.Fprintf(os.Stderr, "\rround %d/%d", round+1, n)
		}
	}
	fmt.Fprintln(os.Stderr)
	report(subjects, samples, n)
	return nil
}

// timedRun runs scenario sc on s once and checks it went as scripted.
func timedRun(model string, s subject, sc scenario) (sample, error) {
	p := fmt.Sprintf("%s [fail:%d]", prompt, sc.fails)
	var cmd *exec.Cmd
	switch {
	case s.bin == "":
		cmd = exec.Command("node", "loop.mjs", "--base-url", model+"/v1", "--model", "fake",
			"--max-iterations", fmt.Sprint(sc.iterations), p)
	case sc.compare:
		cmd = exec.Command(s.bin, "compare", "-p", "a", "-p", "b", "-p", "c", "-n", fmt.Sprint(sc.iterations), p)
	default:
		cmd = exec.Command(s.bin, "run", "--json", "-p", "a", "-n", fmt.Sprint(sc.iterations), p)
	}
	cmd.Dir, cmd.Env = s.dir, s.env
	var out, stdout strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &out
	before, err := stats(model)
	if err != nil {
		return sample{}, err
	}
	start := time.Now()
	err = cmd.Run()
	wall := time.Since(start)
	out.WriteString(stdout.String())
	if err != nil {
		return sample{}, fmt.Errorf("%s, scenario %s: %v\n%s", s.name, sc.name, err, out.String())
	}
	after, err := stats(model)
	if err != nil {
		return sample{}, err
	}
	if calls := after.Requests - before.Requests; calls != sc.calls {
		return sample{}, fmt.Errorf("%s, scenario %s: %d model calls, want %d\n%s", s.name, sc.name, calls, sc.calls, out.String())
	}
	got := sample{wall: ms(wall), model: after.BusyMS - before.BusyMS}
	if s.bin != "" && !sc.compare {
		got.prog = programsMS(stdout.String())
	}
	return got, nil
}

// programsMS adds up the executions' durations in a --json event stream.
func programsMS(events string) float64 {
	var total float64
	for line := range strings.Lines(events) {
		var e struct {
			Type    string `json:"type"`
			Payload struct {
				DurationMS float64 `json:"duration_ms"`
			} `json:"payload"`
		}
		if json.Unmarshal([]byte(line), &e) == nil && e.Type == "exec_finished" {
			total += e.Payload.DurationMS
		}
	}
	return total
}

type modelStats struct {
	Requests int     `json:"requests"`
	BusyMS   float64 `json:"busy_ms"`
}

func stats(model string) (modelStats, error) {
	var st modelStats
	resp, err := http.Get(model + "/_stats")
	if err != nil {
		return st, fmt.Errorf("the fake model: %w", err)
	}
	defer resp.Body.Close()
	return st, json.NewDecoder(resp.Body).Decode(&st)
}

// table prints the report's rows: one column per subject, then the ratios
// new/old and peer/new when those subjects ran.
type table struct {
	subjects          []subject
	samples           [][][]sample // [scenario][subject]
	oldI, newI, peerI int          // -1: not run
}

func report(subjects []subject, samples [][][]sample, n int) {
	fmt.Printf("%d rounds, interleaved; medians (min–max), ms\n", n)
	for _, s := range subjects {
		what := s.bin
		if what == "" {
			what = s.dir + " (LangGraph.js)"
		}
		fmt.Printf("  %s: %s\n", s.name, what)
	}
	fmt.Println()
	idx := func(name string) int {
		return slices.IndexFunc(subjects, func(s subject) bool { return s.name == name })
	}
	t := table{subjects: subjects, samples: samples, oldI: idx("old"), newI: idx("new"), peerI: idx("peer")}
	t.header()
	wall := func(sc int) func(int) []float64 { return t.values(sc, func(s sample) float64 { return s.wall }) }
	overhead := func(sc int) func(int) []float64 {
		return t.values(sc, func(s sample) float64 { return s.wall - s.model })
	}
	own := func(sc int) func(int) []float64 {
		return t.values(sc, func(s sample) float64 { return s.wall - s.model - s.prog })
	}
	t.row("one iteration: wall", wall(0), nil)
	t.row("one iteration: overhead (wall − model)", overhead(0), nil)
	t.row("five iterations: wall", wall(1), nil)
	t.row("five iterations: overhead", overhead(1), nil)
	t.row("per later iteration: (overhead five − one) / 4", overhead(1),
		func(j int) float64 { return (medians.Of(overhead(1)(j)) - medians.Of(overhead(0)(j))) / 4 })
	mine := func(j int) []float64 {
		if subjects[j].bin == "" {
			return nil
		}
		return own(1)(j)
	}
	t.row("per later iteration, less the programs' own time", mine,
		func(j int) float64 { return (medians.Of(own(1)(j)) - medians.Of(own(0)(j))) / 4 })
	t.row("compare, 3 providers × five: wall", wall(2), nil)
	t.row("compare wall / one run of five alone", wall(2),
		func(j int) float64 { return medians.Of(wall(2)(j)) / medians.Of(wall(1)(j)) })
}

func (t table) header() {
	head, line := "| measurement |", "|---|"
	for _, s := range t.subjects {
		head += " " + s.name + " |"
		line += "---|"
	}
	if t.oldI >= 0 {
		head, line = head+" new/old |", line+"---|"
	}
	if t.peerI >= 0 {
		head, line = head+" peer/new |", line+"---|"
	}
	fmt.Println(head)
	fmt.Println(line)
}

// values is f of each sample of scenario sc, for subject j.
func (t table) values(sc int, f func(sample) float64) func(j int) []float64 {
	return func(j int) []float64 {
		var v []float64
		for _, s := range t.samples[sc][j] {
			v = append(v, f(s))
		}
		return v
	}
}

// row prints the medians (with their spread) of vals, or value when given,
// per subject, and the ratios.
func (t table) row(name string, vals func(j int) []float64, value func(j int) float64) {
	r := "| " + name + " |"
	for j := range t.subjects {
		if v := vals(j); len(v) == 0 {
			r += " – |"
		} else if value != nil {
			r += fmt.Sprintf(" %.2f |", value(j))
		} else {
			r += " " + medians.Spread(v, "") + " |"
		}
	}
	get := func(j int) float64 {
		if value != nil {
			return value(j)
		}
		return medians.Of(vals(j))
	}
	if t.oldI >= 0 {
		r += fmt.Sprintf(" %s |", ratio(get(t.newI), get(t.oldI), len(vals(t.oldI)) > 0))
	}
	if t.peerI >= 0 {
		r += fmt.Sprintf(" %s |", ratio(get(t.peerI), get(t.newI), len(vals(t.peerI)) > 0))
	}
	fmt.Println(r)
}

func ratio(a, b float64, ok bool) string {
	if !ok || b == 0 {
		return "–"
	}
	return fmt.Sprintf("%.2f", a/b)
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
