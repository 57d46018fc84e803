package wire

import "time"

// ProviderStatus says whether a provider profile can be used now, and if
// not, why.
type ProviderStatus struct {
	Name    string `json:"name"`
	Kind    string `json:"kind"`
	Model   string `json:"model"`
	BaseURL string `json:"base_url,omitempty"`
	KeyEnv  string `json:"api_key_env,omitempty"`
	// Version is what a coding CLI's `--version` printed.
	Version   string `json:"version,omitempty"`
	Default   bool   `json:"default"`
	Available bool   `json:"available"`
	// Reason says why the provider is not ready, e.g. "set OPENAI_API_KEY";
	// ReasonCode and ReasonParams name it for the UI's words (ErrorBody's
	// code and params).
	Reason       string            `json:"reason,omitempty"`
	ReasonCode   string            `json:"reason_code,omitempty"`
	ReasonParams map[string]string `json:"reason_params,omitempty"`
	// Time limits of one call, in seconds (first byte and idle: HTTP kinds
	// only).
	FirstByteTimeoutSeconds float64 `json:"first_byte_timeout_seconds,omitempty"`
	IdleTimeoutSeconds      float64 `json:"idle_timeout_seconds,omitempty"`
	TimeoutSeconds          float64 `json:"timeout_seconds"`
	// KeyRejected: the provider's last call in this loopforge process was
	// refused as unauthorised with the profile as configured now; cleared
	// when a later call succeeds. The provider stays available: the user
	// may retry.
	KeyRejected *KeyRejection `json:"key_rejected,omitempty"`
}

// KeyRejection says when and why a provider's key was rejected.
type KeyRejection struct {
	At time.Time `json:"at"`
	// Message is the error's English text, e.g. "the API key was rejected
	// (HTTP 401); check OPENAI_API_KEY: Incorrect API key provided".
	Message string `json:"message"`
	// Code and Params name it for the UI's words (ErrorBody's code and
	// params: "provider.auth" with status, env and the provider's own
	// message).
	Code   string            `json:"code"`
	Params map[string]string `json:"params,omitempty"`
}

// Preset is a built-in or configured prompt.
type Preset struct {
	ID     string `json:"id"`
	Title  string `json:"title"`
	Prompt string `json:"prompt"`
	// Tests are the preset's tests as YAML, for the run form's Tests panel
	// ("" = none; a student gets the visible ones only).
	Tests string `json:"tests,omitempty"`
}

// Defaults are the configured run settings (loopforge.yml), the run form's
// starting point.
type Defaults struct {
	// Provider is "" when none is configured or usable.
	Provider       string  `json:"provider"`
	MaxIterations  int     `json:"max_iterations"`
	Reflect        bool    `json:"reflect"`
	TimeoutSeconds float64 `json:"timeout_seconds"`
	Language       string  `json:"language"`
	// MaxIterationsLimit is the largest iteration limit the server accepts
	// (for a student, the class's limit when it is lower): the run form's
	// cap.
	MaxIterationsLimit int `json:"max_iterations_limit"`
	// Limits are what each execution of generated code (and each sandboxed
	// workspace command) gets: loopforge.yml `limits:` over the sandbox's
	// defaults.
	Limits SandboxLimits `json:"limits"`
	// Isolation is the sandbox level this machine gives, e.g.
	// "namespace+cgroup", "landlock", "basic", "job" (Windows); "" when
	// generated code cannot run at all.
	Isolation string `json:"isolation"`
	// NetworkIsolated: a run that does not allow the network is kept off
	// it; false where the sandbox cannot do that (Windows, macOS).
	NetworkIsolated bool `json:"network_isolated"`
	// CommandTimeoutSeconds bounds one workspace validation command (or
	// run_command).
	CommandTimeoutSeconds float64 `json:"command_timeout_seconds"`
	// CommandsSandboxed is false when loopforge.yml runs workspace commands
	// unsandboxed, as the user (workspace: {sandbox: false}).
	CommandsSandboxed bool `json:"commands_sandboxed"`
	// MaxPromptBytes is the longest prompt a run accepts, in UTF-8 bytes
	// (the API refuses a longer one with request.prompt_too_long); the
	// form counts against it before sending.
	MaxPromptBytes int `json:"max_prompt_bytes"`
}

// SandboxLimits are the effective limits of one execution.
type SandboxLimits struct {
	// MemoryBytes bounds the whole run's memory (cgroup), else per process.
	MemoryBytes int64 `json:"memory_bytes"`
	// Processes counts processes plus threads.
	Processes int `json:"processes"`
	// OutputBytes of one output stream stop the run.
	OutputBytes int64 `json:"output_bytes"`
	// FileSizeBytes is the largest file the code may write.
	FileSizeBytes int64  `json:"file_size_bytes"`
	OpenFiles     uint64 `json:"open_files"`
	// CPUs is the CPU bandwidth in cores (cgroup).
	CPUs float64 `json:"cpus"`
}
