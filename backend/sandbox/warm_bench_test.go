//go:build linux

package sandbox

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// firstWrite records when a live stream first carried its marker.
type firstWrite struct {
	once sync.Once
	at   chan time.Time
}

func newFirstWrite() *firstWrite { return &firstWrite{at: make(chan time.Time, 1)} }

func (f *firstWrite) Write(p []byte) (int, error) {
	if strings.Contains(string(p), "M") {
		now := time.Now()
		f.once.Do(func() { f.at <- now })
	}
	return len(p), nil
}

func medianMS(ds []time.Duration) float64 {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return float64(s[len(s)/2]) / float64(time.Millisecond)
}

// BenchmarkHandover: the time from "the code is handed over" to "the
// program is running" (it prints a marker first thing, seen on the live
// stdout), and from that marker to the result, cold (Run: the whole
// sandbox starts after the hand-over) and warm (Prepared.Run on a sandbox
// prepared beforehand, its interpreter waiting), interleaved in every
// round, side by side with the same program run by a bare interpreter
// (python3 -I, no sandbox: start to marker, marker to exit) as the
// reference for the program's own time. Medians in ms; nothing asserted.
//
//	go test -run '^$' -bench Handover -benchtime 40x ./backend/sandbox
func BenchmarkHandover(b *testing.B) {
	for _, level := range []string{IsolationNamespace, IsolationBasic} {
		b.Run(level, func(b *testing.B) {
			r, err := NewRunner(Options{Isolation: level, TempRoot: b.TempDir()})
			if err != nil {
				b.Fatal(err)
			}
			if r.isolation != level {
				b.Skipf("%s is not available here", level)
			}
			b.Logf("isolation %s", r.Isolation())
			const code = "print('M')"
			req := Request{Code: code}
			var bareStart, bareEnd, coldStart, coldEnd, warmStart, warmEnd []time.Duration
			for b.Loop() {
				// Reference: the interpreter alone.
				seen := newFirstWrite()
				cmd := exec.Command(r.python, "-I", "-u", "-c", code)
				cmd.Stdout = seen
				start := time.Now()
				if err := cmd.Run(); err != nil {
					b.Fatalf("bare python: %v", err)
				}
				end := time.Now()
				at := <-seen.at
				bareStart, bareEnd = append(bareStart, at.Sub(start)), append(bareEnd, end.Sub(at))

				// Cold.
				seen = newFirstWrite()
				req.LiveStdout = seen
				start = time.Now()
				res, err := r.Run(context.Background(), req)
				if err != nil || res.Status != StatusOK {
					b.Fatalf("cold: %v %s %q", err, res.Status, res.Stderr)
				}
				end = time.Now()
				at = <-seen.at
				coldStart, coldEnd = append(coldStart, at.Sub(start)), append(coldEnd, end.Sub(at))

				// Warm: prepared, then handed its code once the interpreter waits.
				m := newMarker()
				p, err := r.Prepare(withMarker(context.Background(), m), Request{})
				if err != nil {
					b.Fatal(err)
				}
				waitInterpreterReady(b, p, m)
				seen = newFirstWrite()
				req.LiveStdout = seen
				start = time.Now()
				res, err = p.Run(context.Background(), req)
				if err != nil || res.Status != StatusOK {
					b.Fatalf("warm: %v %s %q", err, res.Status, res.Stderr)
				}
				end = time.Now()
				at = <-seen.at
				warmStart, warmEnd = append(warmStart, at.Sub(start)), append(warmEnd, end.Sub(at))
			}
			b.ReportMetric(medianMS(bareStart), "bare-start-ms")
			b.ReportMetric(medianMS(bareEnd), "bare-end-ms")
			b.ReportMetric(medianMS(coldStart), "cold-handover-ms")
			b.ReportMetric(medianMS(coldEnd), "cold-end-ms")
			b.ReportMetric(medianMS(warmStart), "warm-handover-ms")
			b.ReportMetric(medianMS(warmEnd), "warm-end-ms")
		})
	}
}

// BenchmarkZygote: one execution of a trivial program, whole (from Run's
// call to its return) and to its first output, fresh (Run: bubblewrap, the
// shim and python started for it), through the zygote (a fork of a waiting
// interpreter, Options.Zygote) and as bare python3 -I (no sandbox: the
// reference), interleaved in every round. Medians in ms; nothing asserted.
//
//	go test -run '^$' -bench Zygote -benchtime 40x ./backend/sandbox
func BenchmarkZygote(b *testing.B) {
	fresh, err := NewRunner(Options{TempRoot: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	zyg := zygoteRunner(b)
	b.Logf("isolation %s", zyg.Isolation())
	const code = "print('M')"
	run := func(r *Runner, name string) (first, whole time.Duration) {
		seen := newFirstWrite()
		start := time.Now()
		res, err := r.Run(context.Background(), Request{Code: code, LiveStdout: seen})
		if err != nil || res.Status != StatusOK {
			b.Fatalf("%s: %v %s %q", name, err, res.Status, res.Stderr)
		}
		end := time.Now()
		return (<-seen.at).Sub(start), end.Sub(start)
	}
	// The zygote starts on first need: not in the figures.
	run(zyg, "zygote")
	zpid := zygotePID(b, zyg)
	var bareFirst, bareWhole, freshFirst, freshWhole, zygFirst, zygWhole []time.Duration
	var zygCPU time.Duration
	n := 0
	for b.Loop() {
		n++
		seen := newFirstWrite()
		cmd := exec.Command(zyg.python, "-I", "-u", "-c", code)
		cmd.Stdout = seen
		start := time.Now()
		if err := cmd.Run(); err != nil {
			b.Fatalf("bare python: %v", err)
		}
		end := time.Now()
		bareFirst, bareWhole = append(bareFirst, (<-seen.at).Sub(start)), append(bareWhole, end.Sub(start))
		f, w := run(fresh, "fresh")
		freshFirst, freshWhole = append(freshFirst, f), append(freshWhole, w)
		// CPU of a zygote run: this process's (the Runner's side) and the
		// zygote's tree (it waits for all of it: its cumulative CPU in
		// /proc). Not for a fresh run: bubblewrap's namespace init is never
		// waited for, so no rusage here has its CPU (classload counts it
		// through a cgroup).
		self0, z0 := cpuSelf(), procCPU(zpid)
		f, w = run(zyg, "zygote")
		zygFirst, zygWhole = append(zygFirst, f), append(zygWhole, w)
		zyg.Wait()
		self1 := cpuSelf()
		wantZygoteIdle(b, zyg) // C1 reaped: its CPU is the zygote's
		zygCPU += self1 - self0 + procCPU(zpid) - z0
	}
	b.ReportMetric(float64(zygCPU)/float64(n)/float64(time.Millisecond), "zygote-cpu-ms")
	b.ReportMetric(medianMS(bareFirst), "bare-first-ms")
	b.ReportMetric(medianMS(bareWhole), "bare-ms")
	b.ReportMetric(medianMS(freshFirst), "fresh-first-ms")
	b.ReportMetric(medianMS(freshWhole), "fresh-ms")
	b.ReportMetric(medianMS(zygFirst), "zygote-first-ms")
	b.ReportMetric(medianMS(zygWhole), "zygote-ms")
}

// cpuSelf is this process's CPU time.
func cpuSelf() time.Duration {
	var ru unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// procCPU is a process's CPU time and that of the children it waited for,
// from /proc (clock ticks).
func procCPU(pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+2:]))
	var ticks int64
	for _, i := range []int{11, 12, 13, 14} { // utime stime cutime cstime
		n, _ := strconv.ParseInt(f[i], 10, 64)
		ticks += n
	}
	return time.Duration(ticks) * 10 * time.Millisecond
}

// zygotePID is the host PID of r's zygote (the python in its tree).
func zygotePID(t testing.TB, r *Runner) int {
	t.Helper()
	for _, pid := range zygoteTree(r) {
		cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		if bytes.Contains(cmdline, []byte(zygoteScriptName)) {
			return pid
		}
	}
	t.Fatal("no zygote process")
	return 0
}
