package sandbox

import (
	"errors"
	"fmt"
	"strings"
	"syscall"
	"time"
)

// Status classifies how one execution ended.
type Status string

const (
	StatusOK           Status = "ok"            // exit 0
	StatusError        Status = "error"         // nonzero exit or a signal we did not send
	StatusTimeout      Status = "timeout"       // wall-clock timeout (or the RLIMIT_CPU backstop)
	StatusOutputLimit  Status = "output_limit"  // a stream passed OutputHardCap; the group was killed
	StatusMemory       Status = "memory"        // the interpreter reported MemoryError
	StatusKilled       Status = "killed"        // the caller's context was cancelled
	StatusSandboxError Status = "sandbox_error" // the sandbox itself failed; Run also returns an error
)

// IsolationBasic is the level implemented here: process group, rlimits,
// rebuilt environment, private temp dir, code on stdin.
const IsolationBasic = "basic"

// Limits bound one execution. Zero fields take the defaults of [DefaultLimits].
type Limits struct {
	Timeout       time.Duration // wall clock for one execution (default 30s)
	MemoryBytes   int64         // RLIMIT_AS for python (default 1 GiB)
	FileSizeBytes int64         // RLIMIT_FSIZE (default 32 MiB)
	OpenFiles     uint64        // RLIMIT_NOFILE (default 256)
	CPUSeconds    uint64        // RLIMIT_CPU backstop (default: timeout+5s rounded up)
	OutputHead    int           // bytes kept from the start of each stream (default 1 MiB)
	OutputTail    int           // bytes kept from the end of each stream (default 64 KiB)
	OutputHardCap int64         // total bytes of one stream before the group is killed → StatusOutputLimit (default 8 MiB)
}

const (
	mib = 1 << 20
	kib = 1 << 10
)

// DefaultLimits returns the limits used for zero fields.
func DefaultLimits() Limits {
	return Limits{}.withDefaults()
}

// withDefaults fills zero (and nonsensical negative) fields.
func (l Limits) withDefaults() Limits {
	if l.Timeout <= 0 {
		l.Timeout = 30 * time.Second
	}
	if l.MemoryBytes <= 0 {
		l.MemoryBytes = 1 << 30
	}
	if l.FileSizeBytes <= 0 {
		l.FileSizeBytes = 32 * mib
	}
	if l.OpenFiles == 0 {
		l.OpenFiles = 256
	}
	if l.CPUSeconds == 0 {
		// The wall-clock timeout is the real limit; this only catches a
		// runaway that somehow outlives it, so leave a margin.
		l.CPUSeconds = uint64((l.Timeout+time.Second-1)/time.Second) + 5
	}
	if l.OutputHead <= 0 {
		l.OutputHead = 1 * mib
	}
	if l.OutputTail <= 0 {
		l.OutputTail = 64 * kib
	}
	if l.OutputHardCap <= 0 {
		l.OutputHardCap = 8 * mib
	}
	return l
}

// Request is one piece of code to run.
type Request struct {
	Language string // "python" (default when empty) or "sh"
	Code     string
	Limits   Limits // zero fields take defaults
}

// Result is what one execution did.
type Result struct {
	Status   Status
	ExitCode int    // -1 when terminated by a signal
	Signal   string // signal name as Go prints it ("killed", "CPU time limit exceeded") when terminated by one

	// Stdout and Stderr hold the head and the tail of each stream joined by
	// "\n…[N bytes omitted]…\n" when truncated; invalid UTF-8 is replaced.
	Stdout, Stderr           string
	StdoutBytes, StderrBytes int64 // total produced
	Truncated                bool

	Duration  time.Duration
	Isolation string // isolation level that applied, e.g. "basic"

	// Limits are the effective limits (defaults filled in).
	Limits Limits
	// Error explains a StatusSandboxError.
	Error string
}

// Description is one line for humans and the reflect prompt.
func (r Result) Description() string {
	switch r.Status {
	case StatusOK:
		return "ok"
	case StatusTimeout:
		if r.Signal == syscall.SIGXCPU.String() {
			if r.Limits.CPUSeconds > 0 {
				return fmt.Sprintf("CPU time limit exceeded (%ds)", r.Limits.CPUSeconds)
			}
			return "CPU time limit exceeded"
		}
		if r.Limits.Timeout > 0 {
			return "timed out after " + r.Limits.Timeout.String()
		}
		return "timed out"
	case StatusOutputLimit:
		if r.Limits.OutputHardCap > 0 {
			return fmt.Sprintf("output limit (%s) exceeded", formatBytes(r.Limits.OutputHardCap))
		}
		return "output limit exceeded"
	case StatusMemory:
		return withDetail("memory limit exceeded", lastLine(r.Stderr))
	case StatusKilled:
		return "killed (cancelled)"
	case StatusSandboxError:
		return withDetail("sandbox error", firstLine(r.Error))
	}
	if r.Signal != "" {
		return withDetail("signal: "+r.Signal, lastLine(r.Stderr))
	}
	return withDetail(fmt.Sprintf("exit %d", r.ExitCode), lastLine(r.Stderr))
}

func withDetail(head, detail string) string {
	if detail == "" {
		return head
	}
	return head + ": " + detail
}

// maxDetail keeps Description to one readable line even when the code
// printed a huge line last.
const maxDetail = 200

// lastLine returns the last non-empty line of s, shortened.
func lastLine(s string) string {
	s = strings.TrimRight(s, " \t\r\n")
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	return shorten(strings.TrimSpace(s))
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return shorten(s)
}

func shorten(s string) string {
	if len(s) <= maxDetail {
		return s
	}
	cut := maxDetail
	for cut > 0 && !isRuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

func formatBytes(n int64) string {
	switch {
	case n >= mib && n%mib == 0:
		return fmt.Sprintf("%d MiB", n/mib)
	case n >= kib && n%kib == 0:
		return fmt.Sprintf("%d KiB", n/kib)
	}
	return fmt.Sprintf("%d bytes", n)
}

// ErrNoInterpreter is matched (errors.Is) by the error NewRunner returns when
// no Python interpreter can be found.
var ErrNoInterpreter = errors.New("no python interpreter found")

// ErrUnsupportedLanguage is returned by Run for a Request.Language it cannot run.
var ErrUnsupportedLanguage = errors.New("unsupported language")

// InterpreterError names what was looked for when no interpreter was found.
type InterpreterError struct {
	Tried []string // paths and PATH names that were checked, in order
	Err   error    // the last underlying failure, if any
}

func (e *InterpreterError) Error() string {
	msg := "sandbox: no python interpreter found (tried " + strings.Join(e.Tried, ", ") + ")"
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

// Unwrap lets errors.Is match both ErrNoInterpreter and the cause.
func (e *InterpreterError) Unwrap() []error {
	if e.Err == nil {
		return []error{ErrNoInterpreter}
	}
	return []error{ErrNoInterpreter, e.Err}
}
