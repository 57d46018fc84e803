package wire

// RunRequest asks for one loop. Durations are in seconds so JavaScript needs
// no Go duration parsing; zero values take the configured defaults.
type RunRequest struct {
	// SessionID continues that session (its latest run's thread).
	SessionID string `json:"session_id,omitempty"`
	Prompt    string `json:"prompt"`
	// Provider is a profile name ("" = the default).
	Provider       string  `json:"provider,omitempty"`
	Model          string  `json:"model,omitempty"`
	BaseURL        string  `json:"base_url,omitempty"`
	MaxIterations  int     `json:"max_iterations,omitempty"`
	Reflect        *bool   `json:"reflect,omitempty"`
	TimeoutSeconds float64 `json:"timeout_seconds,omitempty"`
	Language       string  `json:"language,omitempty"`
	// Fresh, with SessionID: a new thread in that session (re-run one
	// provider of a comparison).
	Fresh bool `json:"fresh,omitempty"`
	// Retry names a finished script run to try again from where it
	// stopped: a new run in its session goes on with its thread, its
	// prompt and (unless set here) its provider, model and settings.
	Retry string `json:"retry,omitempty"`
	// AllowNetwork lets this run's code (and workspace commands) reach the
	// network: a per-run opt-in, never a default.
	AllowNetwork bool `json:"allow_network,omitempty"`
	// Stdin is given to the generated code's standard input (what input()
	// reads); script mode only, at most 64 KiB.
	Stdin string `json:"stdin,omitempty"`
	// Tests judge each iteration's program (script mode), as YAML: a
	// `tests:` list or a bare list (backend/judge). "" = none: the exit
	// status decides.
	Tests string `json:"tests,omitempty"`

	// Mode is "script" (the default: one script run in the sandbox) or
	// "workspace" (the model edits the git repository in Workdir, "" = the
	// current workdir; the Validate commands run after each attempt, the
	// Auditor profile reviews a change that passed, and the result is
	// committed to a loopforge/ branch).
	Mode     RunMode  `json:"mode,omitempty"`
	Workdir  string   `json:"workdir,omitempty"`
	Validate []string `json:"validate,omitempty"`
	Auditor  string   `json:"auditor,omitempty"`
	// Task holds a workspace run's inputs and constraints (instructions
	// default to the prompt).
	Task *WorkspaceTask `json:"task,omitempty"`
}

// RunMode is a RunRequest's mode.
type RunMode string

const (
	RunModeScript    RunMode = "script"
	RunModeWorkspace RunMode = "workspace"
)

// WorkspaceTask is what a workspace run works on.
type WorkspaceTask struct {
	// Instructions: "" = the prompt.
	Instructions string `json:"instructions"`
	// Inputs are paths relative to the workdir: files are read into the
	// prompt, folders shown as a tree.
	Inputs      []string `json:"inputs,omitempty"`
	Constraints []string `json:"constraints,omitempty"`
	// Validate commands are added to the request's.
	Validate []string `json:"validate,omitempty"`
}

// CompareRequest runs one prompt on several providers at once; the other
// fields apply to every run. With SessionID it continues that comparison:
// each provider goes on with its own thread there.
type CompareRequest struct {
	RunRequest `tstype:",extends"`
	Providers  []string `json:"providers"`
}

// RunInfo identifies a started run; its events arrive on the websocket.
type RunInfo struct {
	RunID     string `json:"run_id"`
	SessionID string `json:"session_id"`
	Provider  string `json:"provider"`
	Model     string `json:"model"`
}

// CompareInfo identifies a started comparison: one session, one run per
// provider, in the order asked.
type CompareInfo struct {
	SessionID string    `json:"session_id"`
	Runs      []RunInfo `json:"runs"`
}
