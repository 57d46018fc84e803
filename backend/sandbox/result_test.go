package sandbox

import (
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/loopforge/loopforge/backend/event"
)

// TestDescription: how an execution ended, as data (Outcome: a code and
// its parameters, for a face to word in its language) and in English
// (Description: the CLI and the reflect prompt).
func TestDescription(t *testing.T) {
	lim := DefaultLimits()
	long := strings.Repeat("é", 300)
	tests := []struct {
		res    Result
		code   event.Outcome
		params map[string]string
		want   string
	}{
		{Result{Status: StatusOK}, event.OutcomeOK, nil, "ok"},
		{Result{Status: StatusError, ExitCode: 1, Stderr: "Traceback (most recent call last):\n  File \"<stdin>\", line 1\nValueError: boom\n\n"},
			event.OutcomeExit, map[string]string{"exit": "1", "detail": "ValueError: boom"}, "exit 1: ValueError: boom"},
		{Result{Status: StatusError, ExitCode: 2}, event.OutcomeExit, map[string]string{"exit": "2"}, "exit 2"},
		{Result{Status: StatusError, ExitCode: -1, Signal: "segmentation fault"}, event.OutcomeSignal, map[string]string{"signal": "segmentation fault"}, "signal: segmentation fault"},
		{Result{Status: StatusError, ExitCode: 1, Stderr: long}, event.OutcomeExit,
			map[string]string{"exit": "1", "detail": strings.Repeat("é", 100) + "…"}, "exit 1: " + strings.Repeat("é", 100) + "…"},
		{Result{Status: StatusTimeout, Limits: lim}, event.OutcomeTimeout, map[string]string{"ms": "30000"}, "timed out after 30s"},
		{Result{Status: StatusTimeout, Limits: Limits{Timeout: 1500 * time.Millisecond}}, event.OutcomeTimeout, map[string]string{"ms": "1500"}, "timed out after 1.5s"},
		{Result{Status: StatusTimeout}, event.OutcomeTimeout, nil, "timed out"},
		{Result{Status: StatusTimeout, Signal: xcpuSignal, Limits: lim}, event.OutcomeCPULimit, map[string]string{"seconds": "35"}, "CPU time limit exceeded (35s)"},
		{Result{Status: StatusOutputLimit, Limits: lim}, event.OutcomeOutputLimit, map[string]string{"bytes": "8388608"}, "output limit (8 MiB) exceeded"},
		{Result{Status: StatusOutputLimit, Limits: Limits{OutputHardCap: 1000}}, event.OutcomeOutputLimit, map[string]string{"bytes": "1000"}, "output limit (1000 bytes) exceeded"},
		{Result{Status: StatusMemory, Stderr: "Traceback...\nMemoryError\n"}, event.OutcomeMemory, map[string]string{"detail": "MemoryError"}, "memory limit exceeded: MemoryError"},
		{Result{Status: StatusMemory, Signal: "killed", Stderr: "partial line"}, event.OutcomeOOMKilled, nil, "memory limit exceeded: killed by the out-of-memory killer"},
		{Result{Status: StatusMemory, Signal: "killed", Stderr: "FATAL ERROR: Reached heap limit - JavaScript heap out of memory\n 1: 0xb0 node\n"},
			event.OutcomeMemory, map[string]string{"detail": "JavaScript heap out of memory"}, "memory limit exceeded: JavaScript heap out of memory"},
		{Result{Status: StatusKilled}, event.OutcomeKilled, nil, "killed (cancelled)"},
		{Result{Status: StatusSandboxError, Error: "sandbox shim failed: exec x\nmore"}, event.OutcomeSandbox,
			map[string]string{"detail": "sandbox shim failed: exec x"}, "sandbox error: sandbox shim failed: exec x"},
	}
	for _, tc := range tests {
		if tc.code == event.OutcomeCPULimit && xcpuSignal == "" {
			continue // no RLIMIT_CPU, no SIGXCPU: Windows
		}
		o := tc.res.Outcome()
		if o.Code != string(tc.code) || !maps.Equal(o.Params, tc.params) {
			t.Errorf("%s: Outcome() = %+v, want %s %v", tc.res.Status, o, tc.code, tc.params)
		}
		if got := tc.res.Description(); got != tc.want {
			t.Errorf("%s: Description() = %q, want %q", tc.res.Status, got, tc.want)
		}
	}
}

// TestNotesInEnglish: every note the sandbox makes has its English (the
// CLI's and the logs' Warnings), and the numbers in it are written for
// people.
func TestNotesInEnglish(t *testing.T) {
	for _, tc := range []struct {
		n    event.ExecNote
		want string
	}{
		{event.NewNote(event.NoteNoFiles), "no file-system isolation: the code can read and change your files (install bubblewrap, or use Linux 5.13+ with Landlock)"},
		{event.NewNote(event.NoteNoFiles, "os", "windows"), "no file-system isolation: the code can read and change your files (loopforge has none on Windows)"},
		{event.NewNote(event.NoteNoNetwork, "os", "macos"), "no network isolation: the code can reach the network (loopforge has none on macOS)"},
		{event.NewNote(event.NoteNetworkAllowed), "network access allowed for this run"},
		{event.NewNote(event.NoteNoNetwork), "no network isolation: the code can reach the network (install bubblewrap)"},
		{event.NewNote(event.NoteCgroupFailed, "detail", "mkdir: permission denied"), "cgroup limits not applied: mkdir: permission denied"},
		{event.NewNote(event.NoteProcessLimit, "limit", "128"), "the process limit (128) was reached"},
		{event.NewNote(event.NoteImagesTooMany, "n", "3", "max", "8"), "3 more pictures not kept (at most 8 per run)"},
		{event.NewNote(event.NoteImageTooLarge, "name", "big.png", "bytes", "3250586", "max", "2097152"), "big.png: 3.1 MiB, over the 2 MiB limit for one picture"},
		{event.NewNote(event.NoteImagesTotal, "name", "c.png", "max", "8388608"), "c.png: not kept, the run's pictures would pass 8 MiB"},
		{event.NewNote(event.NoteImageUnreadable, "name", "x.png", "detail", "not a picture"), "x.png: not a picture"},
		{event.ExecNote{Code: "from_a_newer_sandbox"}, "from_a_newer_sandbox"},
	} {
		if got := English(tc.n); got != tc.want {
			t.Errorf("English(%+v) = %q, want %q", tc.n, got, tc.want)
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
