// Package runreq is the one declaration of what a run may be asked to do:
// Request, as every face sends it (the web UI and the desktop window as
// JSON, the CLI from its flags) and as backend/service receives it.
//
// It holds no rules: service.StartRun checks a Request (limits, defaults,
// what goes with what) in one place and answers a typed error each face
// words in its own terms. A new run option is a field here, its check and
// use in the service, and its field in the UI (see ARCHITECTURE.md).
package runreq

import "github.com/loopforge/loopforge/backend/event"

// Request asks for one loop. Durations are in seconds so JavaScript needs
// no Go duration parsing; zero values take the configured defaults.
type Request struct {
	// SessionID continues that session (its latest run's thread).
	SessionID string `json:"session_id,omitempty"`
	Prompt    string `json:"prompt"`
	// Provider is a profile name ("" = the default).
	Provider string `json:"provider,omitempty"`
	// Model and BaseURL override the profile's.
	Model   string `json:"model,omitempty"`
	BaseURL string `json:"base_url,omitempty"`
	// MaxIterations: 0 = the configured limit.
	MaxIterations int   `json:"max_iterations,omitempty"`
	Reflect       *bool `json:"reflect,omitempty"`
	// TimeoutSeconds limits one execution of the generated code (0 = the
	// configured limit).
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
	Mode     event.Mode `json:"mode,omitempty"`
	Workdir  string     `json:"workdir,omitempty"`
	Validate []string   `json:"validate,omitempty"`
	Auditor  string     `json:"auditor,omitempty"`
	// Task holds a workspace run's inputs and constraints (instructions
	// default to the prompt).
	Task *Task `json:"task,omitempty"`
}

// Task is what a workspace run works on. The YAML form is what `loopforge
// run --task FILE` reads, its keys the fields' names in lower case (the
// yaml package's default: a yaml tag would also rename the TypeScript).
type Task struct {
	// Instructions: "" = the prompt.
	Instructions string `json:"instructions"`
	// Inputs are paths relative to the workdir: files are read into the
	// prompt, folders shown as a tree.
	Inputs      []string `json:"inputs,omitempty"`
	Constraints []string `json:"constraints,omitempty"`
	// Validate commands are added to the request's.
	Validate []string `json:"validate,omitempty"`
}

// Workspace reports whether t asks for more than instructions: inputs,
// constraints or validation, which only a workspace run has.
func (t *Task) Workspace() bool {
	return len(t.Inputs) > 0 || len(t.Constraints) > 0 || len(t.Validate) > 0
}
