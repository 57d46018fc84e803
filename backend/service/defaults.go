package service

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
