package sandbox

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/loopforge/loopforge/backend/event"
)

// Status classifies how one execution ended. It is event.ExecStatus, the
// one definition the frontend gets too.
type Status = event.ExecStatus

const (
	StatusOK           = event.ExecStatusOK           // exit 0
	StatusError        = event.ExecStatusError        // nonzero exit or a signal we did not send
	StatusTimeout      = event.ExecStatusTimeout      // wall-clock timeout (or the RLIMIT_CPU backstop)
	StatusOutputLimit  = event.ExecStatusOutputLimit  // a stream passed OutputHardCap; the group was killed
	StatusMemory       = event.ExecStatusMemory       // MemoryError, V8 out of memory, or the cgroup's OOM killer
	StatusKilled       = event.ExecStatusKilled       // the caller's context was cancelled
	StatusSandboxError = event.ExecStatusSandboxError // the sandbox itself failed; Run also returns an error
)

// Isolation levels, weakest first. [Result.Isolation] is one of them,
// followed by "+cgroup" when the run also had its own cgroup. Linux has
// basic, landlock and namespace; macOS basic (without seccomp); Windows job.
const (
	// IsolationBasic: process group, rlimits, rebuilt environment, private
	// temp dir, code on stdin (and a seccomp filter when the kernel has one).
	IsolationBasic = "basic"
	// IsolationJob is Windows's level: the code and everything it starts
	// run in one job object that kills them all when the run ends (timeout,
	// cancellation, output cap, the program's own end, or loopforge's),
	// with an active-process limit ([Limits.Processes]) and one memory
	// limit for the whole job ([Limits.MemoryBytes]); a rebuilt environment
	// and a private temp dir, as at every level. Nothing else: no file,
	// network or signal isolation (the code can read and change the
	// user's files, reach the network, and end other processes of the user).
	IsolationJob = "job"
	// IsolationLandlock adds Landlock: the file system is read-only outside
	// the run dir, system credential files are unreadable, TCP is refused
	// and the code cannot signal or ptrace the app.
	IsolationLandlock = "landlock"
	// IsolationNamespace runs the shim inside bubblewrap: own user, PID,
	// network, IPC and mount namespaces with a minimal read-only view of the
	// system (never the whole / and never $HOME), Landlock inside when available.
	IsolationNamespace = "namespace"
	// CgroupSuffix is appended to the level when the run had its own cgroup:
	// a complete kill, plus the memory, process and CPU limits whose
	// controllers the host delegates ([Result.Protections] and
	// [Result.Warnings] say which; a cgroup v2 parent without controllers
	// gives the kill alone).
	CgroupSuffix = "+cgroup"
)

// Limits bound one execution. Zero fields take the defaults of [DefaultLimits].
type Limits struct {
	Timeout time.Duration // wall clock for one execution (default 30s)
	// MemoryBytes bounds memory (default 1 GiB): the cgroup's memory limit
	// for the whole run when its cgroup has the memory controller
	// ([Protections.Memory]), and per process RLIMIT_AS for python,
	// RLIMIT_DATA for node (RLIMIT_AS breaks V8's reservations). Windows:
	// the job's memory limit for the whole run; macOS: not enforced.
	// FileSizeBytes, OpenFiles and CPUSeconds are rlimits: Linux and macOS.
	MemoryBytes   int64
	FileSizeBytes int64  // RLIMIT_FSIZE (default 32 MiB)
	OpenFiles     uint64 // RLIMIT_NOFILE (default 256)
	CPUSeconds    uint64 // RLIMIT_CPU backstop (default: timeout+5s rounded up)
	OutputHead    int    // bytes kept from the start of each stream (default 1 MiB)
	OutputTail    int    // bytes kept from the end of each stream (default 64 KiB)
	OutputHardCap int64  // total bytes of one stream before the group is killed → StatusOutputLimit (default 8 MiB)
	// Processes bounds processes plus threads (default 128): the cgroup's
	// pids.max (with the pids controller), or RLIMIT_NPROC where it counts
	// only the sandbox's own processes (a non-root user inside bubblewrap's
	// user namespace). Windows: the job's active processes (threads do not
	// count). macOS: not bounded.
	Processes int
	// CPUs is the CPU bandwidth of the run's cgroup in cores (default 1),
	// where the cgroup has the cpu controller.
	CPUs float64
	// TmpBytes sizes the private /tmp and /dev/shm of the namespace level
	// (default 64 MiB each); both are RAM.
	TmpBytes int64
}

const (
	mib = 1 << 20
	kib = 1 << 10
)

// DefaultLimits returns the limits used for zero fields.
func DefaultLimits() Limits {
	return Limits{}.withDefaults()
}

// Effective returns l with the defaults filled in: what a run gets.
func (l Limits) Effective() Limits { return l.withDefaults() }

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
	if l.Processes <= 0 {
		l.Processes = 128
	}
	if l.CPUs <= 0 {
		l.CPUs = 1
	}
	if l.TmpBytes <= 0 {
		l.TmpBytes = 64 * mib
	}
	return l
}

// Request is one piece of code to run.
type Request struct {
	Language string // "python" (default when empty), "sh" or "node"
	// Code is the program. It reaches the interpreter on stdin, or, when
	// Dir or Stdin is set, as a file in the private run dir (never in Dir).
	Code   string
	Limits Limits // zero fields take defaults
	// AllowNetwork lets this run open internet sockets (the user's opt-in
	// for one run); everything else stays isolated. Off by default.
	AllowNetwork bool
	// Forked asks for a run forked from the Runner's zygote when its
	// Options.Zygote is ZygoteAsked: a class's runs, whose bursts need the
	// throughput (zygote_linux.go says what is weaker than a fresh run).
	Forked bool
	// Dir, when set, is an existing project directory (an absolute path,
	// symlinks resolved) to run in: the process starts there, and Dir with
	// everything beneath it is writable in addition to the private run dir.
	// Under bubblewrap it is bound read-write at the same path, so paths in
	// the output match the host's. The rest is unchanged: HOME and TMPDIR
	// are the private run dir, the rest of the user's files stay hidden,
	// the limits and the kill apply, and files written to Dir remain after
	// the run. "/", system directories, the user's home and its ancestors
	// (and, below the namespace level, a directory holding the shim binary)
	// are refused with a *DirError. Empty: the run dir is the cwd (script
	// mode).
	Dir string
	// Stdin is fed to the program's standard input, which then ends (EOF).
	// Empty: the program reads EOF at once.
	Stdin []byte
	// LiveStdout and LiveStderr, when set, receive each stream as it is
	// read, while the program runs (Result still holds the capped head and
	// tail). They see at most what the streams' hard cap lets through. Each
	// is called from that stream's copying goroutine and must return
	// quickly: Run cannot end before it does, and a blocked writer stalls
	// the program once the pipe is full.
	LiveStdout, LiveStderr io.Writer
	// Images keeps the run's pictures (script mode; ignored with Dir):
	// matplotlib draws without a display and its figures are saved when
	// plt.show() is called and when the program ends, and the image files
	// left in the run dir come back in Result.Images, within MaxImages,
	// MaxImageBytes and MaxImagesBytes (see pictures.go).
	Images bool
}

// Protections are the per-run ticks shown to the user: true means the
// protection was enforced for this run.
type Protections struct {
	// Files: writes outside the allowed places (the run dir and
	// Request.Dir) and reads of private files (the rest of $HOME,
	// /etc/shadow) are blocked (Landlock or a mount namespace). Dir itself is
	// writable by design, whatever this says.
	Files bool `json:"files"`
	// Network: no internet sockets (network namespace or seccomp); always
	// false for a run with AllowNetwork.
	Network bool `json:"network"`
	// Processes: the number of processes is bounded and none can outlive
	// the run, not even one that called setsid (PID namespace or cgroup;
	// the job object on Windows).
	Processes bool `json:"processes"`
	// Memory: one hard limit for the whole run (cgroup; the job object on
	// Windows); without it only per-process rlimits apply.
	Memory bool `json:"memory"`
	// Signals: the code cannot signal or ptrace the app (Landlock scopes or
	// a PID namespace).
	Signals bool `json:"signals"`
}

// Map is p by name (event.Protection), every protection present.
func (p Protections) Map() map[event.Protection]bool {
	return map[event.Protection]bool{event.ProtectionFiles: p.Files, event.ProtectionNetwork: p.Network,
		event.ProtectionProcesses: p.Processes, event.ProtectionMemory: p.Memory, event.ProtectionSignals: p.Signals}
}

// Missing names the protections that did not apply, in the order of
// event.Protections.
func (p Protections) Missing() []event.Protection {
	var m []event.Protection
	on := p.Map()
	for _, name := range event.Protections() {
		if !on[name] {
			m = append(m, name)
		}
	}
	return m
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

	// Duration runs from the start (a warm run: from the hand-over of its
	// code, its sandbox having started before) until the exit was seen.
	Duration time.Duration
	// Isolation is the level that applied: "basic", "landlock" or
	// "namespace", plus "+cgroup" when the run had its own cgroup; "job"
	// on Windows.
	Isolation   string
	Protections Protections
	// Layers lists the mechanisms applied, e.g. ["rlimits", "seccomp",
	// "landlock", "bwrap", "cgroup"].
	Layers []string
	// Notes explain missing protections (network, files) and layers that
	// failed for this run, as data a face words (event.Note* codes); empty
	// when everything applied. Warnings are the same in English.
	Notes    []event.ExecNote
	Warnings []string

	// Images are the pictures the run left in its run dir, oldest first
	// (Request.Images); ImageNotes say which were left out and why
	// (event.NoteImage* codes), ImagesSkipped the same in English.
	Images        []Image
	ImageNotes    []event.ExecNote
	ImagesSkipped []string

	// Limits are the effective limits (defaults filled in).
	Limits Limits
	// Error explains a StatusSandboxError.
	Error string
}

// Outcome is how the execution ended, as data (an event.Outcome* code and
// its parameters) for a face to word; Description is its English.
func (r Result) Outcome() event.ExecNote {
	switch r.Status {
	case StatusOK:
		return event.NewNote(event.OutcomeOK)
	case StatusTimeout:
		if cpuLimitSignal(r.Signal) {
			return event.NewNote(event.OutcomeCPULimit, "seconds", positive(int64(r.Limits.CPUSeconds)))
		}
		return event.NewNote(event.OutcomeTimeout, "ms", positive(r.Limits.Timeout.Milliseconds()))
	case StatusOutputLimit:
		return event.NewNote(event.OutcomeOutputLimit, "bytes", positive(r.Limits.OutputHardCap))
	case StatusMemory:
		if r.Signal == syscall.SIGKILL.String() && !strings.Contains(r.Stderr, "MemoryError") && memoryLine(r.Stderr) == "" {
			return event.NewNote(event.OutcomeOOMKilled)
		}
		return event.NewNote(event.OutcomeMemory, "detail", memoryDetail(r))
	case StatusKilled:
		return event.NewNote(event.OutcomeKilled)
	case StatusSandboxError:
		return event.NewNote(event.OutcomeSandbox, "detail", firstLine(r.Error))
	}
	if r.Signal != "" {
		return event.NewNote(event.OutcomeSignal, "signal", r.Signal, "detail", lastLine(r.Stderr))
	}
	return event.NewNote(event.OutcomeExit, "exit", strconv.Itoa(r.ExitCode), "detail", lastLine(r.Stderr))
}

// positive is n in decimal, "" (left out of a note) when not positive.
func positive(n int64) string {
	if n <= 0 {
		return ""
	}
	return strconv.FormatInt(n, 10)
}

// Description is one line for humans and the reflect prompt: the English
// of Outcome.
func (r Result) Description() string { return English(r.Outcome()) }

// memoryDetail picks the line that names the memory error: Python's is
// last, V8 prints its own then a stack.
func memoryDetail(r Result) string {
	if known := memoryLine(r.Stderr); known != "" {
		return known
	}
	return lastLine(r.Stderr)
}

// memoryLine is the message V8 prints when it runs out of memory, "" when
// stderr has none.
func memoryLine(stderr string) string {
	for _, known := range []string{"JavaScript heap out of memory", "RangeError: Array buffer allocation failed"} {
		if strings.Contains(stderr, known) {
			return known
		}
	}
	return ""
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
	// Hint says how to install one, where the system has no package
	// manager loopforge could name (Windows, macOS); "" on Linux.
	Hint string
}

func (e *InterpreterError) Error() string {
	msg := "sandbox: no python interpreter found (tried " + strings.Join(e.Tried, ", ") + ")"
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	if e.Hint != "" {
		msg += "; " + e.Hint
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

// ErrInvalidDir is matched (errors.Is) by the *DirError Run returns for a
// Request.Dir it refuses.
var ErrInvalidDir = errors.New("invalid run directory")

// DirError explains why Run refused a Request.Dir; no process was started.
type DirError struct {
	Dir    string // as requested
	Reason string // e.g. "is not an absolute path", "is your home directory"
	Err    error  // the underlying failure (a stat error), if any
}

func (e *DirError) Error() string {
	msg := fmt.Sprintf("sandbox: run directory %q %s", e.Dir, e.Reason)
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

// Unwrap lets errors.Is match both ErrInvalidDir and the cause.
func (e *DirError) Unwrap() []error {
	if e.Err == nil {
		return []error{ErrInvalidDir}
	}
	return []error{ErrInvalidDir, e.Err}
}
