package event

// Mode is what a run works on: the one spelling of it for the run request,
// run_started, the history's sessions and the API. The JSON and the
// database hold these strings ("" in a request means ModeScript).
type Mode string

const (
	ModeScript    Mode = "script"    // code generated and run in the sandbox
	ModeWorkspace Mode = "workspace" // a project (a git repository) edited in place
)

// SessionMode is how a session was started: one run after another in a
// Mode, or a comparison of several providers (whose runs all have one
// Mode, the session's kind).
type SessionMode string

const (
	SessionModeScript    SessionMode = "script"
	SessionModeWorkspace SessionMode = "workspace"
	SessionModeCompare   SessionMode = "compare"
)

// SessionModeOf is the mode of a session of single runs in mode m.
func SessionModeOf(m Mode) SessionMode {
	if m == ModeWorkspace {
		return SessionModeWorkspace
	}
	return SessionModeScript
}

// IterationStatus is an iteration's status: as iteration_done announces it
// and as the history stores it.
type IterationStatus string

const (
	IterationStatusRunning IterationStatus = "running" // started, not done (only stored, never announced)
	IterationStatusSuccess IterationStatus = "success" // its code (or the workspace's validation) passed
	IterationStatusError   IterationStatus = "error"   // it failed: the loop reflects or gives up
)
