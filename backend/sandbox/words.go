package sandbox

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/loopforge/loopforge/backend/event"
)

// English words one note about an execution (an outcome or a note) for the
// CLI, the logs and the reflect prompt; the app words the same codes in the
// UI's language (frontend/src/strings/en.ts and pt.ts, live.exec). An unknown code shows
// as itself.
func English(n event.ExecNote) string {
	if s := englishOutcome(n); s != "" {
		return s
	}
	if s := englishNote(n); s != "" {
		return s
	}
	return n.Code
}

// englishOutcome is the English of an Outcome, "" for another code.
func englishOutcome(n event.ExecNote) string {
	p, num := params(n)
	switch event.Outcome(n.Code) {
	case event.OutcomeOK:
		return "ok"
	case event.OutcomeExit:
		return withDetail("exit "+p("exit"), p("detail"))
	case event.OutcomeSignal:
		return withDetail("signal: "+p("signal"), p("detail"))
	case event.OutcomeTimeout:
		if ms := num("ms"); ms > 0 {
			return "timed out after " + (time.Duration(ms) * time.Millisecond).String()
		}
		return "timed out"
	case event.OutcomeCPULimit:
		if s := p("seconds"); s != "" {
			return "CPU time limit exceeded (" + s + "s)"
		}
		return "CPU time limit exceeded"
	case event.OutcomeOutputLimit:
		if b := num("bytes"); b > 0 {
			return "output limit (" + formatBytes(b) + ") exceeded"
		}
		return "output limit exceeded"
	case event.OutcomeMemory:
		return withDetail("memory limit exceeded", p("detail"))
	case event.OutcomeOOMKilled:
		return "memory limit exceeded: killed by the out-of-memory killer"
	case event.OutcomeKilled:
		return "killed (cancelled)"
	case event.OutcomeSandbox:
		return withDetail("sandbox error", p("detail"))
	default:
		return ""
	}
}

// englishNote is the English of a Note, "" for another code.
func englishNote(n event.ExecNote) string {
	p, num := params(n)
	switch event.Note(n.Code) {
	case event.NoteNoFiles:
		if os := osName(p("os")); os != "" {
			return "no file-system isolation: the code can read and change your files (loopforge has none on " + os + ")"
		}
		return "no file-system isolation: the code can read and change your files (install bubblewrap, or use Linux 5.13+ with Landlock)"
	case event.NoteNetworkAllowed:
		return "network access allowed for this run"
	case event.NoteNoNetwork:
		if os := osName(p("os")); os != "" {
			return "no network isolation: the code can reach the network (loopforge has none on " + os + ")"
		}
		return "no network isolation: the code can reach the network (install bubblewrap)"
	case event.NoteCgroupFailed:
		return withDetail("cgroup limits not applied", p("detail"))
	case event.NoteCgroupPartial:
		missing := strings.Split(p("controllers"), ",")
		var effects []string
		for _, c := range missing {
			switch c {
			case "pids":
				if p("nproc") != "" {
					effects = append(effects, "processes are bounded by RLIMIT_NPROC only")
				} else {
					effects = append(effects, "the number of processes is not bounded")
				}
			case "memory":
				effects = append(effects, "memory is limited per process only")
			case "cpu":
				effects = append(effects, "CPU use is not capped (the timeout still applies)")
			}
		}
		return fmt.Sprintf("the run's cgroup has no %s controller: %s (see loopforge doctor)", strings.Join(missing, ", "), strings.Join(effects, "; "))
	case event.NoteCgroupJoined:
		return "the run joined its cgroup as it started instead of being born in it: this host kills a process born into a new cgroup (see loopforge doctor)"
	case event.NoteNoNamespace:
		level := "a weaker level"
		if l := p("level"); l != "" {
			level = "the " + l + " level"
		}
		return fmt.Sprintf("no namespace isolation: %s, so the run had %s (see loopforge doctor for the fix)", namespaceBlockWords(NamespaceBlock(p("reason"))), level)
	case event.NoteProcessLimit:
		return "the process limit (" + p("limit") + ") was reached"
	case event.NoteImagesTooMany:
		return p("n") + " more pictures not kept (at most " + p("max") + " per run)"
	case event.NoteImageTooLarge:
		return p("name") + ": " + approxBytes(num("bytes")) + ", over the " + formatBytes(num("max")) + " limit for one picture"
	case event.NoteImagesTotal:
		return p("name") + ": not kept, the run's pictures would pass " + formatBytes(num("max"))
	case event.NoteImageUnreadable:
		return withDetail(p("name"), p("detail"))
	default:
		return ""
	}
}

// namespaceBlockWords says why bubblewrap cannot be used.
func namespaceBlockWords(b NamespaceBlock) string {
	switch b {
	case BlockAppArmor:
		return "AppArmor restricts unprivileged user namespaces here (kernel.apparmor_restrict_unprivileged_userns = 1) and no profile lets bwrap create them"
	case BlockUserNSDisabled:
		return "unprivileged user namespaces are turned off here (user.max_user_namespaces or kernel.unprivileged_userns_clone)"
	case BlockUserNSRefused:
		return "the kernel refuses bwrap a user namespace here"
	case BlockBwrapSetuid:
		return "bwrap is setuid root, which loopforge does not use"
	case BlockBwrapMissing:
		return "bubblewrap is not installed"
	}
	return "bubblewrap cannot start its sandbox here"
}

// osName names the OS of a note's "os" parameter (set where the sandbox
// is not Linux's, whose notes say how to get the protection instead).
func osName(os string) string {
	switch os {
	case "windows":
		return "Windows"
	case "macos":
		return "macOS"
	}
	return ""
}

// params reads a note's parameters as text and as numbers (0 when absent).
func params(n event.ExecNote) (text func(string) string, num func(string) int64) {
	text = func(k string) string { return n.Params[k] }
	num = func(k string) int64 { v, _ := strconv.ParseInt(n.Params[k], 10, 64); return v }
	return text, num
}

// note records a note about res with its English.
func (res *Result) note(n event.ExecNote) {
	res.Notes = append(res.Notes, n)
	res.Warnings = append(res.Warnings, English(n))
}
