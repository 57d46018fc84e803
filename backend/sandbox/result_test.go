package sandbox

import (
	"strings"
	"testing"
	"time"
)

func TestDescription(t *testing.T) {
	lim := DefaultLimits()
	long := strings.Repeat("é", 300)
	tests := []struct {
		res  Result
		want string
	}{
		{Result{Status: StatusOK}, "ok"},
		{Result{Status: StatusError, ExitCode: 1, Stderr: "Traceback (most recent call last):\n  File \"<stdin>\", line 1\nValueError: boom\n\n"}, "exit 1: ValueError: boom"},
		{Result{Status: StatusError, ExitCode: 2}, "exit 2"},
		{Result{Status: StatusError, ExitCode: -1, Signal: "segmentation fault"}, "signal: segmentation fault"},
		{Result{Status: StatusError, ExitCode: 1, Stderr: long}, "exit 1: " + strings.Repeat("é", 100) + "…"},
		{Result{Status: StatusTimeout, Limits: lim}, "timed out after 30s"},
		{Result{Status: StatusTimeout, Limits: Limits{Timeout: 1500 * time.Millisecond}}, "timed out after 1.5s"},
		{Result{Status: StatusTimeout}, "timed out"},
		{Result{Status: StatusTimeout, Signal: "CPU time limit exceeded", Limits: lim}, "CPU time limit exceeded (35s)"},
		{Result{Status: StatusOutputLimit, Limits: lim}, "output limit (8 MiB) exceeded"},
		{Result{Status: StatusOutputLimit, Limits: Limits{OutputHardCap: 1000}}, "output limit (1000 bytes) exceeded"},
		{Result{Status: StatusMemory, Stderr: "Traceback...\nMemoryError\n"}, "memory limit exceeded: MemoryError"},
		{Result{Status: StatusKilled}, "killed (cancelled)"},
		{Result{Status: StatusSandboxError, Error: "sandbox shim failed: exec x\nmore"}, "sandbox error: sandbox shim failed: exec x"},
	}
	for _, tc := range tests {
		if got := tc.res.Description(); got != tc.want {
			t.Errorf("%s: Description() = %q, want %q", tc.res.Status, got, tc.want)
		}
	}
}

func TestDefaultLimits(t *testing.T) {
	want := Limits{
		Timeout: 30 * time.Second, MemoryBytes: 1 << 30, FileSizeBytes: 32 << 20, OpenFiles: 256,
		CPUSeconds: 35, OutputHead: 1 << 20, OutputTail: 64 << 10, OutputHardCap: 8 << 20,
		Processes: 128, CPUs: 1, TmpBytes: 64 << 20,
	}
	if got := DefaultLimits(); got != want {
		t.Errorf("DefaultLimits() = %+v", got)
	}
	if got := (Limits{Timeout: 1200 * time.Millisecond}).withDefaults().CPUSeconds; got != 7 {
		t.Errorf("CPUSeconds for a 1.2s timeout = %d, want 7 (rounded up + 5)", got)
	}
}

func TestIsMemoryError(t *testing.T) {
	for stderr, want := range map[string]bool{
		"Traceback:\nMemoryError\n":             true,
		"Traceback:\nMemoryError: too big\n":    true,
		"print('MemoryError')\nValueError: x\n": false,
		"":                                      false,
		"<--- Last few GCs --->\nFATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory\n": true,
		"RangeError: Array buffer allocation failed\n    at new ArrayBuffer":                                          true,
	} {
		if got := isMemoryError(stderr); got != want {
			t.Errorf("isMemoryError(%q) = %v", stderr, got)
		}
	}
}
