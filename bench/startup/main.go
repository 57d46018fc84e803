//go:build linux

// Command startup times how two loopforge binaries start, side by side.
//
//	go run ./bench/startup -old OLD/loopforge -new NEW/loopforge [-n 21] [-idle 1s]
//
// bench/startup.sh builds the two (a base commit and the work tree) and runs
// this. Each round runs every measurement once on each binary, alternating
// which goes first, so that a machine whose speed drifts treats both alike;
// the table gives medians (and the new/old ratio of the medians). Nothing
// here judges: it prints numbers.
//
// Measurements, each in an empty LOOPFORGE_HOME (and HOME) of its own, no
// display, loopback only:
//
//   - --version: wall time from exec to exit, and CPU (user + system);
//   - sessions: the same, on a home with no history yet;
//   - doctor, 2nd call: the same, on a home where doctor already ran once
//     (a binary that caches the sandbox probe answers from its cache);
//   - serve ready: from exec until serve prints its URL;
//   - serve idle RSS: its resident memory -idle after that URL, all of it
//     (VmRSS) and its anonymous part (RssAnon: heap and stacks, without the
//     mapped pages of the binary and its libraries, whose count depends on
//     how the page cache holds those files);
//   - --version peak RSS: the largest resident set of the process.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/loopforge/loopforge/bench/internal/medians"
)

func main() {
	oldBin := flag.String("old", "", "the baseline binary")
	newBin := flag.String("new", "", "the binary to compare with it")
	n := flag.Int("n", 21, "rounds (each measures both binaries once)")
	idle := flag.Duration("idle", time.Second, "how long serve idles before its RSS is read")
	flag.Parse()
	if *oldBin == "" || *newBin == "" {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(*oldBin, *newBin, *n, *idle); err != nil {
		fmt.Fprintln(os.Stderr, "startup:", err)
		os.Exit(1)
	}
}

// metric is one row of the table: values[0] for old, values[1] for new.
type metric struct {
	name, unit string
	values     [2][]float64
}

func run(oldBin, newBin string, n int, idle time.Duration) error {
	bins := [2]string{oldBin, newBin}
	tmp, err := os.MkdirTemp("", "loopforge-startup-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	seq := 0
	home := func() string {
		seq++
		d := filepath.Join(tmp, strconv.Itoa(seq))
		if err := os.Mkdir(d, 0o700); err != nil {
			panic(err)
		}
		return d
	}
	// doctor's homes: one per binary, kept across rounds.
	var doctorHome [2]string
	for b := range bins {
		doctorHome[b] = home()
		if _, err := timed(bins[b], doctorHome[b], "doctor"); err != nil {
			return err
		}
	}

	all := []*metric{
		{name: "`--version` wall", unit: "ms"},
		{name: "`--version` CPU (user+sys)", unit: "ms"},
		{name: "`--version` peak RSS", unit: "MiB"},
		{name: "`sessions`, empty home, wall", unit: "ms"},
		{name: "`sessions`, empty home, CPU", unit: "ms"},
		{name: "`doctor`, 2nd call, wall", unit: "ms"},
		{name: "`serve` time to ready (URL printed)", unit: "ms"},
		{name: fmt.Sprintf("`serve` idle RSS (%v after ready)", idle), unit: "MiB"},
		{name: "`serve` idle RSS, anonymous part", unit: "MiB"},
	}
	for round := -1; round < n; round++ { // round -1 warms the page cache, not counted
		order := []int{0, 1}
		if round%2 != 0 {
			order = []int{1, 0}
		}
		for _, b := range order {
			vals, err := measure(bins[b], home, doctorHome[b], idle)
			if err != nil {
				return err
			}
			for i, v := range vals {
				if round >= 0 {
					all[i].values[b] = append(all[i].values[b], v)
				}
			}
		}
		if round >= 0 {
			fmt.Fprintf(os.Stderr, "\rround %d/%d", round+1, n)
		}
	}
	fmt.Fprintln(os.Stderr)

	fmt.Printf("old: %s\nnew: %s\n%d rounds, interleaved; medians (min–max)\n\n", oldBin, newBin, n)
	fmt.Println("| measurement | old | new | new/old |")
	fmt.Println("|---|---|---|---|")
	for _, m := range all {
		o, w := medians.Of(m.values[0]), medians.Of(m.values[1])
		fmt.Printf("| %s | %s | %s | %.2f |\n", m.name, medians.Spread(m.values[0], m.unit), medians.Spread(m.values[1], m.unit), w/o)
	}
	return nil
}

// measure runs one round with bin (home makes a fresh home) and returns a
// value per metric, in the table's order.
func measure(bin string, home func() string, doctorHome string, idle time.Duration) ([]float64, error) {
	r, err := timed(bin, home(), "--version")
	if err != nil {
		return nil, err
	}
	s, err := timed(bin, home(), "sessions")
	if err != nil {
		return nil, err
	}
	d, err := timed(bin, doctorHome, "doctor")
	if err != nil {
		return nil, err
	}
	t, m, err := serve(bin, home(), idle)
	if err != nil {
		return nil, err
	}
	return []float64{ms(r.wall), ms(r.cpu), r.peakMiB, ms(s.wall), ms(s.cpu), ms(d.wall), ms(t), m["VmRSS"], m["RssAnon"]}, nil
}

type result struct {
	wall, cpu time.Duration
	peakMiB   float64
}

// timed runs bin args to completion in home; it must exit 0.
func timed(bin, home string, args ...string) (result, error) {
	cmd := exec.Command(bin, args...)
	cmd.Env = envFor(home)
	cmd.Dir = home
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	if err != nil {
		return result{}, fmt.Errorf("%s %s: %v\n%s", bin, strings.Join(args, " "), err, out.String())
	}
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	return result{wall: wall, cpu: cpu, peakMiB: float64(ru.Maxrss) / 1024}, nil
}

// serve starts bin serve, returns the time until it printed its URL and its
// memory after idling, and stops it.
func serve(bin, home string, idle time.Duration) (time.Duration, map[string]float64, error) {
	cmd := exec.Command(bin, "serve", "--addr", "127.0.0.1:0")
	cmd.Env = envFor(home)
	cmd.Dir = home
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return 0, nil, err
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return 0, nil, err
	}
	defer func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	}()
	sc := bufio.NewScanner(stdout)
	var ready time.Duration
	for sc.Scan() {
		if strings.Contains(sc.Text(), "http://") {
			ready = time.Since(start)
			break
		}
	}
	if ready == 0 {
		return 0, nil, fmt.Errorf("%s serve printed no URL", bin)
	}
	go func() { // keep the pipe drained
		for sc.Scan() {
		}
	}()
	time.Sleep(idle)
	mem, err := memory(cmd.Process.Pid)
	return ready, mem, err
}

// memory reads a process's VmRSS and RssAnon, in MiB.
func memory(pid int) (map[string]float64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return nil, err
	}
	m := map[string]float64{}
	for _, line := range strings.Split(string(b), "\n") {
		name, rest, ok := strings.Cut(line, ":")
		if !ok || (name != "VmRSS" && name != "RssAnon") {
			continue
		}
		kb, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64)
		if err != nil {
			return nil, err
		}
		m[name] = kb / 1024
	}
	if len(m) != 2 {
		return nil, fmt.Errorf("no VmRSS or RssAnon for pid %d", pid)
	}
	return m, nil
}

func envFor(home string) []string {
	return []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "LOOPFORGE_HOME=" + home, "LANG=C.UTF-8"}
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
