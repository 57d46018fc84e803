package event

// The words of an execution (ExecPayload), as data: the sandbox decides
// them, and each face words them in its own language (the CLI and the
// reflect prompt in English through sandbox.Result.Description, the app in
// the UI's language, frontend/src/strings/{en,pt}.ts `live.exec`). They live here,
// not in backend/sandbox, so the frontend gets them as generated types;
// sandbox.Status is ExecStatus.

// ExecStatus classifies how one execution ended.
type ExecStatus string

const (
	ExecStatusOK           ExecStatus = "ok"            // exit 0
	ExecStatusError        ExecStatus = "error"         // nonzero exit or a signal loopforge did not send
	ExecStatusTimeout      ExecStatus = "timeout"       // wall-clock timeout (or the RLIMIT_CPU backstop)
	ExecStatusOutputLimit  ExecStatus = "output_limit"  // a stream passed the output cap; the group was killed
	ExecStatusMemory       ExecStatus = "memory"        // MemoryError, V8 out of memory, or the cgroup's OOM killer
	ExecStatusKilled       ExecStatus = "killed"        // the run was stopped (cancelled)
	ExecStatusSandboxError ExecStatus = "sandbox_error" // the sandbox itself failed
)

// Protection names one isolation guarantee of an execution
// (ExecPayload.Protections, sandbox.Protections).
type Protection string

const (
	ProtectionFiles     Protection = "files"     // no writes outside the run's places, no reads of private files
	ProtectionNetwork   Protection = "network"   // no internet sockets
	ProtectionProcesses Protection = "processes" // bounded, and none outlives the run
	ProtectionMemory    Protection = "memory"    // one hard limit for the whole run
	ProtectionSignals   Protection = "signals"   // the code cannot signal or ptrace the app
)

// Protections lists every Protection in the order faces show them.
func Protections() []Protection {
	return []Protection{ProtectionFiles, ProtectionNetwork, ProtectionProcesses, ProtectionMemory, ProtectionSignals}
}

// Outcome names how an execution ended (ExecPayload.Outcome). Each code's
// parameters follow it. In an ExecNote every value is a string: numbers in
// decimal, durations in milliseconds, sizes in bytes; "detail" is what the
// program or the system printed, never translated.
type Outcome string

const (
	OutcomeOK          Outcome = "ok"           //
	OutcomeExit        Outcome = "exit"         // exit, detail (the last line of stderr)
	OutcomeSignal      Outcome = "signal"       // signal (as Go names it: "killed"), detail
	OutcomeTimeout     Outcome = "timeout"      // ms (the limit; absent when unknown)
	OutcomeCPULimit    Outcome = "cpu_limit"    // seconds (absent when unknown)
	OutcomeOutputLimit Outcome = "output_limit" // bytes (absent when unknown)
	OutcomeMemory      Outcome = "memory"       // detail (the line that names the memory error)
	OutcomeOOMKilled   Outcome = "oom_killed"   // the kernel's out-of-memory killer ended it
	OutcomeKilled      Outcome = "killed"       // cancelled
	OutcomeSandbox     Outcome = "sandbox"      // detail (the sandbox's own error)
)

// Note names something that did not apply to an execution, or a picture
// it left out (ExecPayload.Notes, ImageNotes); parameters as for Outcome.
type Note string

const (
	NoteNoFiles         Note = "no_files"         // no file-system isolation; os ("windows", "macos": none exists there, else Linux's advice applies)
	NoteNetworkAllowed  Note = "network_allowed"  // the user allowed the network for this run
	NoteNoNetwork       Note = "no_network"       // no network isolation; os (as for no_files)
	NoteCgroupFailed    Note = "cgroup_failed"    // detail (why the run got no cgroup)
	NoteCgroupPartial   Note = "cgroup_partial"   // controllers (comma-separated: pids,memory,cpu), nproc ("1": RLIMIT_NPROC still bounds processes)
	NoteCgroupJoined    Note = "cgroup_joined"    // the run joined its cgroup after it started: this host kills a process born into a new cgroup
	NoteNoNamespace     Note = "no_namespace"     // reason (apparmor, userns_disabled, userns_refused, bwrap_setuid, bwrap_failed: why bubblewrap cannot be used), level (the one used instead)
	NoteProcessLimit    Note = "process_limit"    // limit (the number of processes that was reached)
	NoteImagesTooMany   Note = "images_too_many"  // n (pictures left out), max (per run)
	NoteImageTooLarge   Note = "image_too_large"  // name, bytes, max (bytes, for one picture)
	NoteImagesTotal     Note = "images_total"     // name, max (bytes, for all the run's pictures)
	NoteImageUnreadable Note = "image_unreadable" // name, detail
)

// ExecNote is one thing to say about an execution: an Outcome or a Note,
// and its parameters, worded by each face.
type ExecNote struct {
	Code   string            `json:"code"` // Outcome or Note
	Params map[string]string `json:"params,omitempty"`
}

// NewNote builds an ExecNote from code and key, value pairs; pairs with an
// empty value are left out.
func NewNote[C Outcome | Note](code C, kv ...string) ExecNote {
	n := ExecNote{Code: string(code)}
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] == "" {
			continue
		}
		if n.Params == nil {
			n.Params = map[string]string{}
		}
		n.Params[kv[i]] = kv[i+1]
	}
	return n
}
