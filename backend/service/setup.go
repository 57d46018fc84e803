package service

import (
	"context"
	"errors"
	"os"
	"runtime"

	"github.com/loopforge/loopforge/backend/sandbox"
)

// Setup is what a first run needs to become ready: where the configuration
// goes on this machine, and whether generated code can run here. With the
// provider list (which says which keys are missing) it is all a face needs
// to tell a new user what to do next.
type Setup struct {
	// OS is this machine's (runtime.GOOS: linux, darwin, windows): how to
	// install Python differs.
	OS string
	// ConfigDir is where loopforge.yml and .env go; EnvFile is that .env,
	// EnvFileExists whether it exists now.
	ConfigDir     string
	EnvFile       string
	EnvFileExists bool
	// ConfigFile is the loopforge.yml in force, "" when none was found.
	ConfigFile string
	// CodeRuns: generated code can be executed here. When not,
	// PythonMissing says whether the reason is that no Python interpreter
	// was found, and Problem is the reason in English.
	CodeRuns      bool
	PythonMissing bool
	Problem       string
}

// Setup reports the first-run facts. It makes the sandbox on first need
// (as Defaults does), which probes the host once.
func (s *Service) Setup() Setup {
	cfg := s.conf()
	st := Setup{OS: runtime.GOOS, ConfigDir: cfg.ConfigDir, EnvFile: cfg.EnvFile(), ConfigFile: cfg.File}
	if fi, err := os.Stat(st.EnvFile); err == nil && fi.Mode().IsRegular() {
		st.EnvFileExists = true
	}
	if _, err := s.executor(); err != nil {
		st.Problem, st.PythonMissing = err.Error(), errors.Is(err, sandbox.ErrNoInterpreter)
	} else {
		st.CodeRuns = true
	}
	return st
}

// Reload reads the configuration again through Options.Reload
// (loopforge.yml and the .env files: a key added since is picked up
// without a restart), forgets what the provider checks found (a local
// server started since is looked for again), and lets a sandbox that could
// not be made be tried again (Python installed since). Runs already
// started keep the configuration they started with. A configuration that
// no longer reads is an error (a *config.Error) and leaves the one in
// force.
func (s *Service) Reload(ctx context.Context) (Setup, error) {
	if s.reload != nil {
		cfg, err := s.reload()
		if err != nil {
			return Setup{}, err
		}
		s.cfg.Store(cfg)
		s.log.InfoContext(ctx, "configuration read again", "file", cfg.File, "config_dir", cfg.ConfigDir)
	}
	s.probes.forgetAll()
	s.retryExecutor()
	return s.Setup(), nil
}
