//go:build linux

package sandbox

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"
)

// zygoteRunner is a Runner whose script-mode Python runs go through a
// zygote of the test's own, closed at the end of the test.
func zygoteRunner(t testing.TB) *Runner {
	t.Helper()
	r, err := NewRunner(Options{Zygote: true, TempRoot: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if r.zyg == nil {
		t.Skipf("no zygote here: %s", r.zygoteUsable())
	}
	t.Cleanup(func() { r.Close(); r.Wait() })
	return r
}

// runInZygote runs req and fails unless the zygote ran it.
func runInZygote(t testing.TB, r *Runner, req Request) Result {
	t.Helper()
	res, err := r.Run(context.Background(), req)
	if err != nil {
		t.Fatalf("Run: %v (%s)", err, res.Stderr)
	}
	if !slices.Contains(res.Layers, "zygote") {
		t.Fatalf("the zygote did not run it: layers %v", res.Layers)
	}
	return res
}

func TestZygoteHello(t *testing.T) {
	r := zygoteRunner(t)
	res := runInZygote(t, r, Request{Code: "import os, sys\nprint('hello', os.getcwd() == os.environ['HOME'], sys.argv, os.getpid())"})
	if res.Status != StatusOK || !strings.HasPrefix(res.Stdout, "hello True ['-'] 1") {
		t.Fatalf("%s: %q %q", res.Status, res.Stdout, res.Stderr)
	}
	t.Logf("%v %v", res.Duration, res.Layers)
	res = runInZygote(t, r, Request{Code: "raise ValueError('boom')", Limits: Limits{Timeout: 5 * time.Second}})
	t.Logf("%s %q %q", res.Status, res.Stdout, res.Stderr)
}
