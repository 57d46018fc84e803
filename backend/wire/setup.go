package wire

// Setup is what the first-run panel shows a new user: where the
// configuration goes on this machine and whether generated code can run.
type Setup struct {
	// OS is runtime.GOOS: "linux", "darwin" or "windows".
	OS string `json:"os"`
	// ConfigDir is where loopforge.yml and .env go (it differs per OS);
	// EnvFile is that .env, EnvFileExists whether it exists now.
	ConfigDir     string `json:"config_dir"`
	EnvFile       string `json:"env_file"`
	EnvFileExists bool   `json:"env_file_exists"`
	// ConfigFile is the loopforge.yml in force, "" when there is none.
	ConfigFile string `json:"config_file"`
	// CodeRuns: generated code can be executed on this machine. When it
	// cannot, PythonMissing says whether no Python interpreter was found,
	// and Problem gives the reason in English.
	CodeRuns      bool   `json:"code_runs"`
	PythonMissing bool   `json:"python_missing"`
	Problem       string `json:"problem,omitempty"`
}
