package sandbox

import (
	"errors"
)

// Options configure a Runner. Zero fields take defaults.
type Options struct {
	// Self is the executable re-exec'd as the shim; it must call
	// RunChildIfRequested at the top of main. Default: the loopforge-shim
	// binary next to os.Executable() when there is one (it starts much
	// faster than the app), else os.Executable() itself. Unused on
	// Windows, where the job object applies without a shim.
	Self string
	// Python is the interpreter. Default: resolved once, preferring
	// /usr/bin/python3 over whatever PATH holds (often a slow pyenv shim);
	// on Windows the one `py -3` runs, else python or python3 on PATH (not
	// the Microsoft Store's stand-ins, see python_windows.go).
	Python string
	// Node runs language "node". Default: /usr/bin/node, else node on PATH;
	// without one, "node" requests fail with ErrUnsupportedLanguage.
	Node string
	// TempRoot holds the per-run work directories. Default: os.TempDir().
	TempRoot string
	// Owner tags the names of the directories each run makes in TempRoot
	// (loopforge-run-<Owner>-…), so that [RemoveLeftovers] in a later
	// process can tell whose they are once their process was killed. Only
	// letters, digits and "-"; "" leaves them untagged (never removed).
	Owner string
	// Isolation caps the level: "" or "auto" = the strongest this host
	// offers; "basic", "landlock" or "namespace" = at most that one (Linux).
	// macOS has "basic" only, Windows "job" only.
	Isolation string
	// NoCgroup leaves out the per-run cgroup even where one could be made
	// (Linux; there are none elsewhere).
	NoCgroup bool
	// CacheDir keeps the host probe across processes ([ProbeCached]);
	// "" probes in every process.
	CacheDir string
	// MaxPrepared bounds the sandboxes prepared and not yet used or closed
	// ([Runner.Prepare]); each holds an idle interpreter (~10 MB for
	// Python). 0 means DefaultMaxPrepared.
	MaxPrepared int
	// Zygote says which script-mode Python runs are forked from one
	// pre-started, sandboxed interpreter per Runner instead of starting
	// bubblewrap, the shim and Python for each (Linux with bubblewrap,
	// seccomp and Landlock ABI 6; zygote_linux.go reviews its isolation):
	// none (the default), those whose Request.Forked is set, or all.
	// Other requests, other hosts and any zygote failure run fresh.
	Zygote ZygoteUse
}

// ZygoteUse is which runs a Runner forks from its zygote.
type ZygoteUse int

const (
	ZygoteOff   ZygoteUse = iota // every run starts fresh
	ZygoteAsked                  // the runs whose Request.Forked is set
	ZygoteAll                    // every run the zygote can take
)

// DefaultMaxPrepared is Options.MaxPrepared's default: every run of a
// comparison or a small class warm, a whole class's runs not all at once
// (a refused Prepare only means that execution starts cold).
const DefaultMaxPrepared = 8

// ShimName is the file name of the stand-alone shim binary
// (./cmd/loopforge-shim) looked for next to the app's executable.
const ShimName = "loopforge-shim"

// ErrShim is matched (errors.Is) by Run's error when the shim could not set
// up the sandbox or start the interpreter.
var ErrShim = errors.New("sandbox shim failed")

// Why the sandbox stops a run (the cause of the context procgroup.Start
// watches): the timeout, or output over the hard cap. Anything else is a
// cancellation.
var (
	errTimedOut    = errors.New("sandbox: execution timed out")
	errOutputLimit = errors.New("sandbox: output limit exceeded")
)
