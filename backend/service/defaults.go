package service

import (
	"github.com/loopforge/loopforge/backend/config"
	"github.com/loopforge/loopforge/backend/exercises"
)

// Defaults are the run settings a form should start from: loopforge.yml's
// values, else the built-in ones.
type Defaults struct {
	Provider       string  `json:"provider"` // "" when none is configured or usable
	MaxIterations  int     `json:"max_iterations"`
	Reflect        bool    `json:"reflect"`
	TimeoutSeconds float64 `json:"timeout_seconds"`
	Language       string  `json:"language"`
	// MaxIterationsLimit is the largest iteration limit a run may ask for
	// (config.MaxIterationsLimit; for a student, the class's limit when
	// it is lower), so a form's cap and the API's are one number.
	MaxIterationsLimit int `json:"max_iterations_limit"`
	// Limits are what each execution of generated code gets (loopforge.yml
	// `limits:` over the sandbox's defaults); Isolation is the sandbox level
	// this machine gives ("" when code cannot run at all).
	Limits    LimitsInfo `json:"limits"`
	Isolation string     `json:"isolation"`
	// NetworkIsolated: a run that does not allow the network is kept off
	// it (false where the sandbox cannot: Windows, macOS).
	NetworkIsolated bool `json:"network_isolated"`
	// CommandTimeoutSeconds bounds one workspace validation command.
	CommandTimeoutSeconds float64 `json:"command_timeout_seconds"`
	// CommandsSandboxed is false when loopforge.yml runs workspace commands
	// unsandboxed (workspace: {sandbox: false}).
	CommandsSandboxed bool `json:"commands_sandboxed"`
	// MaxPromptBytes is the longest prompt a run accepts (UTF-8 bytes,
	// config.MaxPromptBytes), for the form to count against.
	MaxPromptBytes int `json:"max_prompt_bytes"`
}

// LimitsInfo is the wire form of the effective sandbox limits.
type LimitsInfo struct {
	MemoryBytes   int64   `json:"memory_bytes"`
	Processes     int     `json:"processes"`
	OutputBytes   int64   `json:"output_bytes"`
	FileSizeBytes int64   `json:"file_size_bytes"`
	OpenFiles     uint64  `json:"open_files"`
	CPUs          float64 `json:"cpus"`
}

// Defaults reports the configured run settings.
func (s *Service) Defaults() Defaults {
	cfg := s.conf()
	def, _ := cfg.DefaultProvider()
	lim := cfg.Limits
	lim.Timeout = cfg.Timeout
	lim = lim.Effective()
	isolation, netIsolated, _ := s.isolation() // the sandbox's level, once it is known ("" when code cannot run)
	return Defaults{Provider: def, MaxIterations: cfg.MaxIterations, MaxIterationsLimit: config.MaxIterationsLimit, Reflect: cfg.Reflect,
		TimeoutSeconds: cfg.Timeout.Seconds(), Language: cfg.Language, Isolation: isolation, NetworkIsolated: netIsolated,
		Limits: LimitsInfo{MemoryBytes: lim.MemoryBytes, Processes: lim.Processes, OutputBytes: lim.OutputHardCap,
			FileSizeBytes: lim.FileSizeBytes, OpenFiles: lim.OpenFiles, CPUs: lim.CPUs},
		CommandTimeoutSeconds: cfg.Workspace.CommandTimeout.Seconds(), CommandsSandboxed: !cfg.Workspace.Unsandboxed,
		MaxPromptBytes: config.MaxPromptBytes}
}

// Presets lists the built-in exercises (the seed's data-structures prompt
// first; each with its tests), then the user's own from loopforge.yml.
func (s *Service) Presets() []config.Preset {
	return append(exercises.All(), s.conf().Presets...)
}
