// Command classload puts a class on `loopforge class`: many students join
// and run loops at once against a fake model on loopback, while the
// instructor's socket follows the wall.
//
//	go run ./bench/classload [-students 40] [-runs 2] [-chunk-delay 10ms] [-executions 0] [-zygote off|on|both] [-rounds 1]
//
// It builds loopforge (and loopforge-shim beside it, as shipped; -shim=false
// leaves it out), serves a fake OpenAI-compatible model (a working
// program streamed in small chunks, -chunk-delay apart), starts `loopforge
// class` on a fresh LOOPFORGE_HOME whose only provider is that model, opens
// the instructor's websocket (subscribe_class; every run that appears on
// the wall is subscribed to), then lets -students join over HTTP and start
// -runs runs each, one after the other, all students at once. It reports,
// from the moment a student's POST /api/runs was sent: the time until the
// instructor's socket saw the run on the wall and its first token (p50,
// p99, max); the execution queue waits (between a run's first queued event
// and its ahead-0 event, server timestamps); how long each execution held
// its slot; the runs by status; the server's memory (VmHWM, VmRSS) and
// CPU over the burst, its own and its sandboxes' (from a cgroup of its own,
// cgroup_linux.go); then the same programs as bare python3 -I, as many at a time as the
// cores, and the burst's time as a ratio of theirs. Nothing is asserted:
// it prints numbers. -zygote both serves one burst with fresh sandboxes and
// one through the zygote (a class's default) per round, -rounds times, in
// alternating order, each on a fresh server and history, and ends with
// their medians side by side.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gorilla/websocket"
	"github.com/loopforge/loopforge/bench/internal/chatstream"
)

func main() {
	var o options
	flag.IntVar(&o.students, "students", 40, "students joining the class")
	flag.IntVar(&o.runs, "runs", 2, "runs per student, one after the other")
	flag.DurationVar(&o.delay, "chunk-delay", 10*time.Millisecond, "the fake model's pause between chunks")
	flag.IntVar(&o.execs, "executions", 0, "the class's concurrent executions (0 = the server's default)")
	flag.IntVar(&o.tests, "tests", 0, "tests each run carries (IO tests the program passes): each is one more execution per iteration")
	flag.BoolVar(&o.shim, "shim", true, "build loopforge-shim next to loopforge, as make build and the releases do (false: the sandbox re-executes loopforge itself)")
	zygote := flag.String("zygote", "on", "how the server runs executions: on (forked from the sandbox's zygote, a class's default), off (fresh sandboxes: LOOPFORGE_ZYGOTE=0), or both (a burst of each per round)")
	flag.IntVar(&o.rounds, "rounds", 1, "bursts per mode, interleaved (the machine is shared: compare within a round)")
	flag.Parse()
	switch *zygote {
	case "off":
		o.modes = []string{modeFresh}
	case "on":
		o.modes = []string{modeZygote}
	case "both":
		o.modes = []string{modeFresh, modeZygote}
	default:
		fmt.Fprintln(os.Stderr, "classload: -zygote is off, on or both")
		os.Exit(2)
	}
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "classload:", err)
		os.Exit(1)
	}
}

// options are the command line's.
type options struct {
	students, runs, execs, tests, rounds int
	delay                                time.Duration
	shim                                 bool
	modes                                []string
}

// The server's execution paths (-zygote).
const (
	modeFresh  = "fresh"
	modeZygote = "zygote"
)

// burstResult is what one burst measured.
type burstResult struct {
	elapsed, bare    time.Duration // the burst; the mean of bare python before and after it
	cpuExec, cpuBare time.Duration // CPU an execution (server and sandboxes), a bare program; 0 when not counted
}

// cpuProfile: a file for a CPU profile of the server over the burst (pprof
// format). The server is then built with -tags cpuprofile (see
// cpuprofile_signal.go), which starts and stops the profile on SIGUSR1.
var cpuProfile = flag.String("cpuprofile", "", "write a CPU profile of the server over the burst to this file (Unix)")

type runTimes struct {
	sent, wall, token time.Time
	queued, served    time.Time     // server timestamps of the first queued and the ahead-0 events
	execStart         time.Time     // server timestamp of exec_started
	held              time.Duration // from the slot (served, else exec_started) to exec_finished
	program           time.Duration // exec_finished's duration_ms: the program itself
	finished          time.Time     // run_finished on the instructor's socket
	executions        int           // exec_finished events plus the tests each tested event ran
	status            string
	done              chan struct{}
}

type tracker struct {
	mu     sync.Mutex
	runs   map[string]*runTimes
	queued int // queued events seen (each one is written to the history)
}

func (t *tracker) get(id string) *runTimes {
	t.mu.Lock()
	defer t.mu.Unlock()
	r := t.runs[id]
	if r == nil {
		r = &runTimes{done: make(chan struct{})}
		t.runs[id] = r
	}
	return r
}

func run(o options) error {
	tmp, err := os.MkdirTemp("", "classload-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	bin := filepath.Join(tmp, "loopforge")
	if out, err := exec.Command("go", "build", "-tags", buildTags(), "-o", bin, ".").CombinedOutput(); err != nil {
		return fmt.Errorf("building loopforge: %w\n%s", err, out)
	}
	if o.shim {
		// As `make build` and the releases ship it: the small shim next to
		// loopforge, which the sandbox then starts instead of loopforge.
		out, err := exec.Command("go", "build", "-o", filepath.Join(tmp, "loopforge-shim"), "./backend/sandbox/cmd/loopforge-shim").CombinedOutput()
		if err != nil {
			return fmt.Errorf("building loopforge-shim: %w\n%s", err, out)
		}
	}
	model, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	go func() { _ = http.Serve(model, fakeModel(o.delay)) }()
	results := map[string][]burstResult{}
	for round := range o.rounds {
		modes := slices.Clone(o.modes)
		if round%2 == 1 {
			slices.Reverse(modes) // interleaved: neither mode always goes first
		}
		for _, mode := range modes {
			if len(o.modes) > 1 || o.rounds > 1 {
				fmt.Printf("\n== round %d of %d, %s executions\n", round+1, o.rounds, mode)
			}
			home := filepath.Join(tmp, fmt.Sprintf("home-%d-%s", round, mode))
			res, err := burst(o, bin, home, model.Addr().String(), mode == modeZygote)
			if err != nil {
				return fmt.Errorf("%s: %w", mode, err)
			}
			results[mode] = append(results[mode], res)
		}
	}
	if len(o.modes) > 1 || o.rounds > 1 {
		summary(o, results)
	}
	return nil
}

// classServer is a `loopforge class` the bench started.
type classServer struct {
	cmd               *exec.Cmd
	tree              *treeCPU
	base, token, code string
}

func (c *classServer) stop() {
	_ = c.cmd.Process.Signal(os.Interrupt)
	_ = c.cmd.Wait()
	c.tree.close()
}

// serveClass starts `loopforge class` in home against the fake model, with
// the zygote when asked, and sets the execution slots (-executions).
func serveClass(o options, bin, home, model string, zygote bool) (*classServer, error) {
	if err := os.MkdirAll(home, 0o700); err != nil {
		return nil, err
	}
	yml := fmt.Sprintf("provider: fake\nmax_iterations: 3\nproviders:\n  fake:\n    kind: openai\n    model: m\n    base_url: http://%s/v1\n    api_key_env: \"\"\n", model)
	if err := os.WriteFile(filepath.Join(home, "loopforge.yml"), []byte(yml), 0o600); err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, "class", "--name", "classload", "--listen", "127.0.0.1:0")
	cmd.Dir, cmd.Env = home, []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "LOOPFORGE_HOME=" + home}
	if !zygote {
		cmd.Env = append(cmd.Env, "LOOPFORGE_ZYGOTE=0") // a class's runs are forked unless told not to
	}
	if *cpuProfile != "" {
		abs, err := filepath.Abs(*cpuProfile)
		if err != nil {
			return nil, err
		}
		cmd.Env = append(cmd.Env, "LOOPFORGE_CPUPROFILE="+abs)
	}
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = io.Discard
	tree, err := newTreeCPU(cmd)
	if err != nil {
		fmt.Fprintln(os.Stderr, "classload: the sandboxes' CPU will be undercounted:", err)
	}
	if err := cmd.Start(); err != nil {
		tree.close()
		return nil, err
	}
	srv := &classServer{cmd: cmd, tree: tree}
	if srv.base, srv.token, srv.code, err = readBanner(stdout); err != nil {
		srv.stop()
		return nil, err
	}
	if o.execs > 0 {
		if err := put(srv.base, srv.token, "/api/class/limits", fmt.Sprintf(`{"providers":[],"presets":[],"concurrent_executions":%d}`, o.execs)); err != nil {
			srv.stop()
			return nil, err
		}
	}
	return srv, nil
}

// burst serves one class in a fresh home and lets every student run; its
// figures are printed and returned.
func burst(o options, bin, home, model string, zygote bool) (burstResult, error) {
	nStudents, nRuns, nTests := o.students, o.runs, o.tests
	var out burstResult
	srv, err := serveClass(o, bin, home, model, zygote)
	if err != nil {
		return out, err
	}
	defer srv.stop()
	cmd, tree, base, token, code := srv.cmd, srv.tree, srv.base, srv.token, srv.code

	// Bare python right before the burst and right after it: the machine is
	// shared, so the burst is compared with the mean of the two.
	slots := runtime.NumCPU()
	bareBefore, err := barePython(nStudents*nRuns, slots)
	if err != nil {
		return out, err
	}

	tr := &tracker{runs: map[string]*runTimes{}}
	ws, err := instructorSocket(base, token, tr)
	if err != nil {
		return out, err
	}
	defer ws.Close()

	// CPU over the burst alone, not the server's start (the sandbox probe).
	own0, _ := cpu(cmd.Process.Pid)
	toggleProfile(cmd.Process)
	tree0, _ := tree.usage()
	start := time.Now()
	var wg sync.WaitGroup
	errs := make(chan error, nStudents)
	for i := range nStudents {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := student(base, code, fmt.Sprintf("Student %02d", i+1), nRuns, nTests, tr); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	toggleProfile(cmd.Process)
	close(errs)
	for err := range errs {
		return out, err
	}
	hwm, rss := memory(cmd.Process.Pid)
	executions := report(tr, nStudents, nRuns, nTests, elapsed, hwm, rss)
	own, children := cpu(cmd.Process.Pid)
	own -= own0
	bench, _ := cpu(os.Getpid())
	var burstCPU time.Duration // the server's and its sandboxes', when counted
	if all, ok := tree.usage(); ok {
		burstCPU = all - tree0
		// The cgroup holds every process the server started, those it
		// never waited for too (bwrap's namespace init, whose parent exits
		// first): what is not the server's own is its sandboxes'.
		sandboxes := max(all-tree0-own, 0)
		n := time.Duration(max(1, executions))
		fmt.Printf("CPU during the burst: the server %s itself (%s an execution), %s in its sandboxes (%s an execution; from its cgroup's cpu.stat); this bench (students, fake model) %s\n",
			own.Round(time.Millisecond), (own / n).Round(100*time.Microsecond), sandboxes.Round(time.Millisecond),
			(sandboxes / n).Round(100*time.Microsecond), bench.Round(time.Millisecond))
	} else {
		fmt.Printf("CPU during the burst: the server %s itself, %s in the sandboxes it waited for (undercounted: without a cgroup of its own, bwrap's namespace init is never waited for); this bench (students, fake model) %s\n",
			own.Round(time.Millisecond), children.Round(time.Millisecond), bench.Round(time.Millisecond))
	}
	// As many at a time as the cores: the machine's pace for bare
	// interpreters, whatever the class's execution slots.
	before := childrenCPU()
	bareAfter, err := barePython(nStudents*nRuns, slots)
	if err != nil {
		return out, err
	}
	bare := (bareBefore + bareAfter) / 2
	out.elapsed, out.bare = elapsed, bare
	bareCPU := childrenCPU() - before
	fmt.Printf("the same %d programs as bare python3 -I, %d at a time: %s before the burst, %s after (CPU %s, %s a program); the class's burst took %.2f× their mean\n",
		nStudents*nRuns, slots, bareBefore.Round(time.Millisecond), bareAfter.Round(time.Millisecond), bareCPU.Round(time.Millisecond),
		(bareCPU / time.Duration(max(1, nStudents*nRuns))).Round(100*time.Microsecond), elapsed.Seconds()/bare.Seconds())
	if burstCPU > 0 && bareCPU > 0 {
		// Steadier than the times on a shared machine: what the cores
		// had to do, whoever else ran.
		perExec := burstCPU / time.Duration(max(1, executions))
		perProgram := bareCPU / time.Duration(max(1, nStudents*nRuns))
		out.cpuExec, out.cpuBare = perExec, perProgram
		fmt.Printf("CPU an execution: the class %s (server and sandboxes), bare python %s: %.2f×\n",
			perExec.Round(100*time.Microsecond), perProgram.Round(100*time.Microsecond), perExec.Seconds()/perProgram.Seconds())
	}
	return out, nil
}

// summary compares the modes over the rounds: medians, each burst against
// the bare python runs beside it.
func summary(o options, results map[string][]burstResult) {
	fmt.Printf("\n== summary: %d students × %d runs, %d round(s), medians\n", o.students, o.runs, o.rounds)
	for _, mode := range o.modes {
		var ratios, cpuRatios []float64
		var elapsed, cpuExec, cpuBare []time.Duration
		for _, r := range results[mode] {
			elapsed = append(elapsed, r.elapsed)
			ratios = append(ratios, r.elapsed.Seconds()/r.bare.Seconds())
			if r.cpuExec > 0 && r.cpuBare > 0 {
				cpuExec, cpuBare = append(cpuExec, r.cpuExec), append(cpuBare, r.cpuBare)
				cpuRatios = append(cpuRatios, r.cpuExec.Seconds()/r.cpuBare.Seconds())
			}
		}
		fmt.Printf("%-6s burst %s = %.2f× bare python's time beside it (each: %s); CPU an execution %s vs bare %s = %.2f×\n",
			mode, median(elapsed).Round(time.Millisecond), medianF(ratios), ratioList(ratios),
			median(cpuExec).Round(100*time.Microsecond), median(cpuBare).Round(100*time.Microsecond), medianF(cpuRatios))
	}
}

func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

func medianF(fs []float64) float64 {
	if len(fs) == 0 {
		return 0
	}
	s := slices.Clone(fs)
	slices.Sort(s)
	return s[len(s)/2]
}

func ratioList(fs []float64) string {
	parts := make([]string, len(fs))
	for i, f := range fs {
		parts[i] = fmt.Sprintf("%.2f×", f)
	}
	return strings.Join(parts, " ")
}

// barePython runs the fake model's program n times as bare `python3 -I`
// (the sandbox's interpreter),
// slots at a time, right after the class on the same (loaded) cores: what
// the burst's executions cost without loopforge, models or sandbox.
func barePython(n, slots int) (time.Duration, error) {
	// The interpreter the sandbox runs on Linux: /usr/bin/python3 over a
	// PATH's (often a slow pyenv shim, see backend/sandbox/options.go).
	py := "/usr/bin/python3"
	if _, err := os.Stat(py); err != nil {
		if py, err = exec.LookPath("python3"); err != nil {
			return 0, err
		}
	}
	jobs := make(chan struct{}, n)
	for range n {
		jobs <- struct{}{}
	}
	close(jobs)
	errs := make(chan error, slots)
	start := time.Now()
	var wg sync.WaitGroup
	for range slots {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range jobs {
				if out, err := exec.Command(py, "-I", "-c", program).CombinedOutput(); err != nil {
					errs <- fmt.Errorf("bare python: %w\n%s", err, out)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		return 0, err
	}
	return time.Since(start), nil
}

var bannerURL = regexp.MustCompile(`instructor: (http://[^/]+)/\?token=([0-9a-f]+)`)
var bannerCode = regexp.MustCompile(`code: ([A-Z0-9-]+)`)

func readBanner(r io.Reader) (base, token, code string, err error) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		if m := bannerURL.FindStringSubmatch(sc.Text()); m != nil {
			base, token = m[1], m[2]
		}
		if m := bannerCode.FindStringSubmatch(sc.Text()); m != nil {
			code = m[1]
			go func() { _, _ = io.Copy(io.Discard, r) }()
			return base, token, code, nil
		}
	}
	return "", "", "", fmt.Errorf("loopforge class printed no join code")
}

func put(base, token, path, body string) error {
	req, _ := http.NewRequest("PUT", base+path, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("PUT %s: %d", path, resp.StatusCode)
	}
	return nil
}

// instructorSocket follows the class: each run that shows on the wall is
// subscribed to; its first token, queue events and end are recorded.
func instructorSocket(base, token string, tr *tracker) (*websocket.Conn, error) {
	h := http.Header{"Authorization": {"Bearer " + token}}
	ws, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(base, "http")+"/api/ws", h)
	if err != nil {
		return nil, err
	}
	if err := ws.WriteJSON(map[string]string{"op": "subscribe_class"}); err != nil {
		return nil, err
	}
	go func() {
		seen := map[string]bool{}
		for {
			var m wsMessage
			if err := ws.ReadJSON(&m); err != nil {
				return
			}
			now := time.Now()
			if m.Type != "wall" {
				tr.record(m, now)
				continue
			}
			var e struct {
				Current *struct {
					RunID string `json:"run_id"`
				} `json:"current"`
			}
			_ = json.Unmarshal(m.Payload, &e)
			if e.Current == nil || seen[e.Current.RunID] {
				continue
			}
			seen[e.Current.RunID] = true
			tr.update(e.Current.RunID, func(r *runTimes) { r.wall = now })
			_ = ws.WriteJSON(map[string]string{"op": "subscribe", "run_id": e.Current.RunID})
		}
	}()
	return ws, nil
}

// wsMessage is an event on the instructor's socket.
type wsMessage struct {
	Type    string          `json:"type"`
	RunID   string          `json:"run_id"`
	TS      time.Time       `json:"ts"`
	Payload json.RawMessage `json:"payload"`
}

// update changes the times of run id under the tracker's lock.
func (tr *tracker) update(id string, f func(r *runTimes)) {
	r := tr.get(id)
	tr.mu.Lock()
	defer tr.mu.Unlock()
	f(r)
}

// record notes what a run's event m, seen at now, says of the run.
func (tr *tracker) record(m wsMessage, now time.Time) {
	switch m.Type {
	case "token":
		tr.update(m.RunID, func(r *runTimes) {
			if r.token.IsZero() {
				r.token = now
			}
		})
	case "queued":
		p := payloadOf[struct {
			Ahead int `json:"ahead"`
		}](m)
		tr.update(m.RunID, func(r *runTimes) {
			tr.queued++
			if p.Ahead > 0 && r.queued.IsZero() {
				r.queued = m.TS
			} else if p.Ahead == 0 {
				r.served = m.TS
			}
		})
	case "exec_started":
		tr.update(m.RunID, func(r *runTimes) { r.execStart = m.TS })
	case "exec_finished":
		p := payloadOf[struct {
			DurationMS int64 `json:"duration_ms"`
		}](m)
		tr.update(m.RunID, func(r *runTimes) {
			from := r.execStart
			if !r.served.IsZero() {
				from = r.served
			}
			r.held, r.program = m.TS.Sub(from), time.Duration(p.DurationMS)*time.Millisecond
			r.executions++
		})
	case "tested":
		p := payloadOf[struct {
			Total int `json:"total"`
		}](m)
		tr.update(m.RunID, func(r *runTimes) { r.executions += p.Total })
	case "run_finished":
		p := payloadOf[struct {
			Status string `json:"status"`
		}](m)
		tr.update(m.RunID, func(r *runTimes) {
			r.status, r.finished = p.Status, now
			close(r.done)
		})
	}
}

// payloadOf decodes m's payload; one that does not decode is the zero value.
func payloadOf[T any](m wsMessage) T {
	var v T
	_ = json.Unmarshal(m.Payload, &v)
	return v
}

// student joins and runs nRuns runs, each after the previous ended.
func student(base, code, name string, nRuns, nTests int, tr *tracker) error {
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, Timeout: 5 * time.Minute}
	body, _ := json.Marshal(map[string]string{"code": code, "name": name})
	resp, err := c.Post(base+"/api/class/join", "application/json", bytes.NewReader(body))
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: join: %d", name, resp.StatusCode)
	}
	for i := range nRuns {
		sent := time.Now()
		req := map[string]string{"prompt": fmt.Sprintf("classload %s run %d", name, i)}
		if nTests > 0 {
			req["tests"] = "tests:\n" + strings.Repeat("  - {expected: \"45\"}\n", nTests)
		}
		body, _ := json.Marshal(req)
		resp, err := c.Post(base+"/api/runs", "application/json", bytes.NewReader(body))
		if err != nil {
			return err
		}
		var info struct {
			RunID string `json:"run_id"`
		}
		err = json.NewDecoder(resp.Body).Decode(&info)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusCreated {
			return fmt.Errorf("%s: start run: %d %v", name, resp.StatusCode, err)
		}
		r := tr.get(info.RunID)
		tr.mu.Lock()
		r.sent = sent
		tr.mu.Unlock()
		select {
		case <-r.done:
		case <-time.After(5 * time.Minute):
			return fmt.Errorf("%s: run %s did not end", name, info.RunID)
		}
	}
	return nil
}

// program is what the fake model writes (and bare python runs beside it).
const program = "print(sum(range(10)))\n"

// fakeModel answers every chat completion with a working program, streamed
// three characters at a time, delay apart.
func fakeModel(delay time.Duration) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			ResponseFormat json.RawMessage `json:"response_format"`
		}
		_ = json.NewDecoder(r.Body).Decode(&req)
		chatstream.Stream(w, r, "c", chatstream.Answer(req.ResponseFormat, "", program), 3, delay)
	}
}

// cpu reads the CPU time (user + system) a process used itself and that
// of its children it waited for, from /proc (clock ticks of 10 ms).
func cpu(pid int) (own, children time.Duration) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, 0
	}
	// The fields after the command's closing parenthesis; utime is the 14th field of the line.
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+2:]))
	tick := func(i int) time.Duration {
		n, _ := strconv.ParseInt(f[i], 10, 64) // 0 when /proc's line is not what it should be
		return time.Duration(n) * 10 * time.Millisecond
	}
	return tick(11) + tick(12), tick(13) + tick(14)
}

// childrenCPU is the CPU time of this process's children it waited for.
func childrenCPU() time.Duration {
	_, children := cpu(os.Getpid())
	return children
}

// memory reads a process's peak and current resident set (kB).
func memory(pid int) (hwm, rss string) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return "?", "?"
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			hwm = strings.TrimSpace(v)
		}
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			rss = strings.TrimSpace(v)
		}
	}
	return hwm, rss
}

// report prints the class's figures and returns the executions it made.
func report(tr *tracker, nStudents, nRuns, nTests int, elapsed time.Duration, hwm, rss string) int {
	var wall, token, waits, held, program, whole []time.Duration
	executions := 0
	statuses := map[string]int{}
	queued := 0
	tr.mu.Lock()
	for _, r := range tr.runs {
		statuses[r.status]++
		if r.sent.IsZero() {
			continue
		}
		if !r.wall.IsZero() {
			wall = append(wall, r.wall.Sub(r.sent))
		}
		if !r.token.IsZero() {
			token = append(token, r.token.Sub(r.sent))
		}
		if !r.finished.IsZero() {
			whole = append(whole, r.finished.Sub(r.sent))
		}
		executions += r.executions
		if r.held > 0 {
			held = append(held, r.held)
			program = append(program, r.program)
		}
		if !r.queued.IsZero() && !r.served.IsZero() {
			queued++
			waits = append(waits, r.served.Sub(r.queued))
		}
	}
	tr.mu.Unlock()
	fmt.Printf("%d students × %d runs = %d runs in %s; statuses %v\n", nStudents, nRuns, nStudents*nRuns, elapsed.Round(time.Millisecond), statuses)
	fmt.Printf("tests per run: %d; executions: %d (%.1f a run)\n", nTests, executions, float64(executions)/float64(max(1, nStudents*nRuns)))
	fmt.Printf("run from the POST to run_finished:           %s\n", stats(whole))
	fmt.Printf("run on the instructor's wall after the POST: %s\n", stats(wall))
	fmt.Printf("first token on the instructor's socket:      %s\n", stats(token))
	fmt.Printf("executions that queued: %d of %d; queue wait: %s; queued events: %d\n", queued, nStudents*nRuns, stats(waits), tr.queued)
	fmt.Printf("execution slot held (to exec_finished): %s; sum %s\n", stats(held), sum(held).Round(time.Millisecond))
	fmt.Printf("the program itself (duration_ms):        %s\n", stats(program))
	fmt.Printf("server memory: VmHWM %s, VmRSS %s (after the class)\n", hwm, rss)
	return executions
}

func sum(ds []time.Duration) time.Duration {
	var t time.Duration
	for _, d := range ds {
		t += d
	}
	return t
}

func stats(ds []time.Duration) string {
	if len(ds) == 0 {
		return "none"
	}
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	pct := func(p float64) time.Duration { return ds[min(len(ds)-1, int(p*float64(len(ds))))] }
	return fmt.Sprintf("p50 %s, p99 %s, max %s (n=%d)", pct(0.5).Round(time.Millisecond), pct(0.99).Round(time.Millisecond),
		ds[len(ds)-1].Round(time.Millisecond), len(ds))
}
