//go:build linux

package sandbox

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/loopforge/loopforge/backend/procgroup"
)

// Every test run carries a unique marker in its environment (testMarkerKey),
// so the tests can find every process it started, in any namespace and
// whatever process group or session it moved to. Zombies have no
// environment, so they count as dead: this VM's PID 1 does not reap.

var markerSeq atomic.Uint64

func newMarker() string {
	return fmt.Sprintf("LOOPFORGE_TEST_RUN=%d.%d", os.Getpid(), markerSeq.Add(1))
}

func withMarker(ctx context.Context, marker string) context.Context {
	return context.WithValue(ctx, testMarkerKey{}, marker)
}

// runOn runs req on r and fails the test on a sandbox error. It returns the
// marker for survivor checks.
func runOn(t testing.TB, r *Runner, ctx context.Context, req Request) (Result, string) {
	t.Helper()
	m := newMarker()
	res, err := r.Run(withMarker(ctx, m), req)
	if err != nil {
		t.Fatalf("Run: %v\nstderr: %s", err, res.Stderr)
	}
	return res, m
}

// markedProcs lists live processes whose initial environment holds marker.
func markedProcs(marker string) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	needle := append([]byte(marker), 0)
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		env, err := os.ReadFile("/proc/" + e.Name() + "/environ")
		if err != nil || !bytes.Contains(env, needle) {
			continue
		}
		if procgroup.Alive(pid) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// wantNoSurvivors fails unless no process of the run is alive. Run already
// waited for that, so the short poll only absorbs /proc latency.
func wantNoSurvivors(t testing.TB, marker string) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Second)
	for {
		live := markedProcs(marker)
		if len(live) == 0 {
			return
		}
		if time.Now().After(deadline) {
			killMarked(marker)
			t.Fatalf("processes %v of the run survived it", live)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// killMarked kills what a run left behind (the known gaps of the weaker
// levels), so one test cannot disturb the next.
func killMarked(marker string) {
	for range 50 {
		live := markedProcs(marker)
		if len(live) == 0 {
			return
		}
		for _, pid := range live {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// wantDirEmpty fails unless the runner's temp root holds no run dir once
// the runs' clean-up is done.
func wantDirEmpty(t testing.TB, r *Runner) {
	t.Helper()
	r.Wait()
	dir := r.tempRoot
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "loopforge-run-") {
			names = append(names, e.Name())
		}
		if strings.HasPrefix(e.Name(), kindZygote) { // a zygote's runs root
			inner, _ := os.ReadDir(filepath.Join(dir, e.Name()))
			for _, i := range inner {
				if strings.HasPrefix(i.Name(), "loopforge-run-") {
					names = append(names, filepath.Join(e.Name(), i.Name()))
				}
			}
		}
	}
	if len(names) != 0 {
		t.Errorf("run dirs left behind in %s: %v", dir, names)
	}
}

func firstInt(t *testing.T, s string) int {
	t.Helper()
	line, _, _ := strings.Cut(s, "\n")
	n, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		t.Fatalf("first line of %q is not a number: %v", s, err)
	}
	return n
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
