package service

import (
	"github.com/loopforge/loopforge/backend/config"
	"github.com/loopforge/loopforge/backend/loop"
)

// Defaults are the run settings a form should start from: loopforge.yml's
// values, else the built-in ones.
type Defaults struct {
	Provider       string  `json:"provider"` // "" when none is configured or usable
	MaxIterations  int     `json:"max_iterations"`
	Reflect        bool    `json:"reflect"`
	TimeoutSeconds float64 `json:"timeout_seconds"`
	Language       string  `json:"language"`
}

// Defaults reports the configured run settings.
func (s *Service) Defaults() Defaults {
	def, _ := s.cfg.DefaultProvider()
	return Defaults{Provider: def, MaxIterations: s.cfg.MaxIterations, Reflect: s.cfg.Reflect,
		TimeoutSeconds: s.cfg.Timeout.Seconds(), Language: s.cfg.Language}
}

// Presets lists the built-in teaching prompts, then the user's own from
// loopforge.yml.
func (s *Service) Presets() []config.Preset {
	out := []config.Preset{
		{ID: "data-structures-pt", Title: "Estruturas de dados (pt)", Prompt: loop.Presets["data-structures-pt"]},
		{ID: "data-structures-en", Title: "Data structures (en)", Prompt: loop.Presets["data-structures-en"]},
	}
	return append(out, s.cfg.Presets...)
}
