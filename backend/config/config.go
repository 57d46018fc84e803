// Package config turns loopforge.yml, the environment and .env files into one
// validated Config. It is loaded once by a face (CLI, server, desktop) and
// passed explicitly; nothing here is global.
//
// Precedence, highest first: command-line flags (applied by the caller),
// process environment, .env in the workdir, .env in the config dir,
// loopforge.yml (workdir, else config dir), built-in defaults.
package config

import (
	"bytes"
	"errors"
	"fmt"
	"github.com/loopforge/loopforge/backend/judge"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime"
	"strings"
	"time"

	"github.com/dustin/go-humanize"
	"github.com/loopforge/loopforge/backend/provider"
	"github.com/loopforge/loopforge/backend/sandbox"
	"github.com/loopforge/loopforge/backend/workspace"
	"go.yaml.in/yaml/v3"
)

// FileName is the config file looked for in the workdir and the config dir.
const FileName = "loopforge.yml"

// Defaults for a run.
const (
	DefaultMaxIterations = 5
	DefaultTimeout       = 30 * time.Second
	DefaultLanguage      = "python"
)

// Error is a configuration problem the user must fix (service.Classify
// makes it exit code 2 and HTTP 400). File is set when the problem is in a
// file, Line when it is known.
type Error struct {
	File string
	Line int
	Msg  string
	Err  error
}

func (e *Error) Error() string {
	s := e.Msg
	if e.Line > 0 {
		s = fmt.Sprintf("line %d: %s", e.Line, s)
	}
	if e.File != "" {
		s = e.File + ": " + s
	}
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

func (e *Error) Unwrap() error { return e.Err }

// Config is everything a face needs to start the backend.
type Config struct {
	ConfigDir string // where loopforge.yml and .env live
	DataDir   string // where the history database lives
	LogDir    string
	CacheDir  string // what can be recomputed: the sandbox host probe
	DBPath    string
	File      string // the loopforge.yml that was read, "" if none

	// Provider is the default profile name and ProviderSource says where it
	// came from: "env" (LOOPFORGE_PROVIDER), "file", or "" (not set; the
	// service picks the first usable profile).
	Provider       string
	ProviderSource string

	MaxIterations int
	Reflect       bool
	Timeout       time.Duration // one execution of generated code
	Language      string
	// Limits bound each execution of generated code (loopforge.yml
	// `limits:`); zero fields take the sandbox's defaults. Limits.Timeout
	// mirrors Timeout.
	Limits sandbox.Limits
	// Workspace tunes workspace mode (loopforge.yml `workspace:`).
	Workspace WorkspaceConfig

	// Tools are user command-backed tools offered to models in workspace
	// mode (loopforge.yml `tools:`).
	Tools []workspace.CommandTool
	// Presets are the user's own prompts, listed after the built-in ones.
	Presets []Preset

	// Profiles by name: the built-ins merged with the file's providers map.
	Profiles map[string]provider.Profile
	// Order lists profile names: file entries first (in file order), then
	// built-ins. "First configured" means first in this order with a key.
	Order []string
}

// Options tell Load where to look. Zero values mean the real process
// environment and no workdir.
type Options struct {
	Workdir string
	// LookupEnv defaults to os.LookupEnv; tests inject their own.
	LookupEnv func(string) (string, bool)
}

// fileConfig mirrors loopforge.yml. Durations are strings ("30s", "10m").
type fileConfig struct {
	Provider      string                  `yaml:"provider"`
	MaxIterations *int                    `yaml:"max_iterations"`
	Reflect       *bool                   `yaml:"reflect"`
	Timeout       string                  `yaml:"timeout"`
	Language      string                  `yaml:"language"`
	Providers     yaml.Node               `yaml:"providers"`
	Tools         []workspace.CommandTool `yaml:"tools"`
	Presets       []Preset                `yaml:"presets"`
	Limits        fileLimits              `yaml:"limits"`
	Workspace     fileWorkspace           `yaml:"workspace"`
}

// fileLimits mirrors `limits:`. Sizes are strings with a unit ("512MiB",
// "1GiB", "64KiB"; plain numbers are bytes).
type fileLimits struct {
	Timeout   string   `yaml:"timeout"` // same as the top-level timeout
	Memory    string   `yaml:"memory"`
	Processes *int     `yaml:"processes"`
	Output    string   `yaml:"output"`
	FileSize  string   `yaml:"file_size"`
	OpenFiles *int     `yaml:"open_files"`
	CPUs      *float64 `yaml:"cpus"`
	Tmp       string   `yaml:"tmp"`
}

// WorkspaceConfig tunes workspace mode.
type WorkspaceConfig struct {
	// CommandTimeout bounds one validation command or run_command call
	// (default 5m: test suites take longer than a script).
	CommandTimeout time.Duration
	// Unsandboxed runs validation commands and run_command as the user
	// (own process group, scrubbed environment, timeout) instead of in the
	// sandbox, for projects whose tests need the user's toolchains and
	// caches under $HOME. Off by default.
	Unsandboxed bool
}

// DefaultCommandTimeout is WorkspaceConfig.CommandTimeout's default.
const DefaultCommandTimeout = 5 * time.Minute

type fileWorkspace struct {
	CommandTimeout string `yaml:"command_timeout"`
	Sandbox        *bool  `yaml:"sandbox"`
}

// Preset is a named prompt from loopforge.yml, with the tests that judge
// its programs (backend/judge's format; none: the exit status decides).
type Preset struct {
	ID     string       `yaml:"id" json:"id"`
	Title  string       `yaml:"title" json:"title"`
	Prompt string       `yaml:"prompt" json:"prompt"`
	Tests  []judge.Case `yaml:"tests,omitempty" json:"-"` // the wire sends them as YAML (wire.Preset)
}

// Suite is p's tests as a suite (nil when it has none).
func (p Preset) Suite() *judge.Suite {
	if len(p.Tests) == 0 {
		return nil
	}
	return &judge.Suite{Cases: p.Tests}
}

type fileProfile struct {
	Kind       string            `yaml:"kind"`
	Model      string            `yaml:"model"`
	BaseURL    string            `yaml:"base_url"`
	APIKeyEnv  *string           `yaml:"api_key_env"`
	Binary     string            `yaml:"binary"`
	Args       []string          `yaml:"args"`
	Env        map[string]string `yaml:"env"`
	PassEnv    []string          `yaml:"pass_env"`
	Timeout    string            `yaml:"timeout"`
	Structured *bool             `yaml:"structured"`
	// HTTP kinds only: how long to wait for an answer to start, and for
	// the next chunk of one that has (provider.Limits).
	FirstByteTimeout string `yaml:"first_byte_timeout"`
	IdleTimeout      string `yaml:"idle_timeout"`
	// MaxRetries (HTTP kinds): how often a transient failure (429, 5xx,
	// a connection dropped before the answer began) is retried.
	MaxRetries *int `yaml:"max_retries"`
	// MaxOutputTokens (HTTP kinds) caps each answer; MaxTokensField
	// (kind openai) names the request field that carries the cap.
	MaxOutputTokens *int   `yaml:"max_output_tokens"`
	MaxTokensField  string `yaml:"max_tokens_field"`
}

// Load reads and validates the configuration.
func Load(o Options) (*Config, error) {
	lookup := o.LookupEnv
	if lookup == nil {
		lookup = os.LookupEnv
	}
	c := &Config{
		MaxIterations: DefaultMaxIterations,
		Reflect:       true,
		Timeout:       DefaultTimeout,
		Language:      DefaultLanguage,
		Workspace:     WorkspaceConfig{CommandTimeout: DefaultCommandTimeout},
	}
	if err := c.setDirs(lookup); err != nil {
		return nil, err
	}

	// .env files fill variables the process environment lacks; the workdir's
	// wins over the config dir's.
	dotenv := map[string]string{}
	for _, dir := range []string{c.ConfigDir, o.Workdir} {
		if dir == "" {
			continue
		}
		m, err := readDotenv(filepath.Join(dir, ".env"))
		if err != nil {
			return nil, err
		}
		for k, v := range m {
			dotenv[k] = v
		}
	}
	env := func(k string) string {
		if v, ok := lookup(k); ok {
			return v
		}
		return dotenv[k]
	}

	c.Profiles, c.Order = builtinProfiles()
	if err := c.readFile(o.Workdir); err != nil {
		return nil, err
	}
	if v := strings.TrimSpace(env("LOOPFORGE_PROVIDER")); v != "" {
		c.Provider, c.ProviderSource = v, "env"
	}
	for name, p := range c.Profiles {
		p.APIKey = resolveKey(p, env)
		c.Profiles[name] = p
	}
	return c, nil
}

// CacheDir is Config.CacheDir without reading any configuration file:
// $LOOPFORGE_HOME/cache, else (Linux) $XDG_CACHE_HOME/loopforge, else
// ~/.cache/loopforge; %LOCALAPPDATA%\loopforge\cache on Windows,
// ~/Library/Caches/loopforge on macOS. lookup defaults to os.LookupEnv.
func CacheDir(lookup func(string) (string, bool)) (string, error) {
	if lookup == nil {
		lookup = os.LookupEnv
	}
	var c Config
	err := c.setDirs(lookup)
	return c.CacheDir, err
}

// setDirs picks the directories for this OS (setDirsFor).
func (c *Config) setDirs(lookup func(string) (string, bool)) error {
	return c.setDirsFor(runtime.GOOS, lookup)
}

// setDirsFor picks the directories as goos places them: $LOOPFORGE_HOME
// everywhere when set; else the XDG directories on Linux, %APPDATA% (the
// configuration) and %LOCALAPPDATA% (data, logs, cache) on Windows, and
// ~/Library on macOS (Application Support, Caches, Logs). goos is a
// parameter so that tests on one OS cover every OS's choice.
func (c *Config) setDirsFor(goos string, lookup func(string) (string, bool)) error {
	if home, ok := lookup("LOOPFORGE_HOME"); ok && home != "" {
		abs, err := filepath.Abs(home)
		if err != nil {
			return &Error{Msg: "LOOPFORGE_HOME", Err: err}
		}
		c.ConfigDir, c.DataDir, c.LogDir, c.CacheDir = abs, abs, filepath.Join(abs, "logs"), filepath.Join(abs, "cache")
		c.DBPath = filepath.Join(c.DataDir, "history.db")
		return nil
	}
	var err error
	switch goos {
	case "windows":
		err = c.windowsDirs(lookup)
	case "darwin":
		err = c.darwinDirs(lookup)
	default:
		err = c.xdgDirs(lookup)
	}
	c.DBPath = filepath.Join(c.DataDir, "history.db")
	return err
}

// userHome is $HOME (%USERPROFILE% on Windows), else the OS's answer.
func userHome(lookup func(string) (string, bool), name string) (string, error) {
	if h, _ := lookup(name); h != "" {
		return h, nil
	}
	h, err := os.UserHomeDir()
	if err != nil {
		return "", &Error{Msg: "cannot find the home directory; set LOOPFORGE_HOME", Err: err}
	}
	return h, nil
}

func (c *Config) xdgDirs(lookup func(string) (string, bool)) error {
	userHome, err := userHome(lookup, "HOME")
	if err != nil {
		return err
	}
	xdg := func(env, def string) string {
		if v, ok := lookup(env); ok && filepath.IsAbs(v) {
			return filepath.Join(v, "loopforge")
		}
		return filepath.Join(userHome, def, "loopforge")
	}
	c.ConfigDir = xdg("XDG_CONFIG_HOME", ".config")
	c.DataDir = xdg("XDG_DATA_HOME", filepath.Join(".local", "share"))
	c.LogDir = xdg("XDG_STATE_HOME", filepath.Join(".local", "state"))
	c.CacheDir = xdg("XDG_CACHE_HOME", ".cache")
	return nil
}

// windowsDirs: the configuration roams with the user (%APPDATA%); the
// history, logs and cache stay on this machine (%LOCALAPPDATA%).
func (c *Config) windowsDirs(lookup func(string) (string, bool)) error {
	dir := func(env, fallback string) (string, error) {
		if v, _ := lookup(env); v != "" {
			return v, nil
		}
		profile, err := userHome(lookup, "USERPROFILE")
		return filepath.Join(profile, fallback), err
	}
	roaming, err := dir("APPDATA", filepath.Join("AppData", "Roaming"))
	if err != nil {
		return err
	}
	local, err := dir("LOCALAPPDATA", filepath.Join("AppData", "Local"))
	if err != nil {
		return err
	}
	c.ConfigDir = filepath.Join(roaming, "loopforge")
	c.DataDir = filepath.Join(local, "loopforge")
	c.LogDir = filepath.Join(c.DataDir, "logs")
	c.CacheDir = filepath.Join(c.DataDir, "cache")
	return nil
}

func (c *Config) darwinDirs(lookup func(string) (string, bool)) error {
	home, err := userHome(lookup, "HOME")
	if err != nil {
		return err
	}
	lib := filepath.Join(home, "Library")
	c.ConfigDir = filepath.Join(lib, "Application Support", "loopforge")
	c.DataDir = c.ConfigDir
	c.LogDir = filepath.Join(lib, "Logs", "loopforge")
	c.CacheDir = filepath.Join(lib, "Caches", "loopforge")
	return nil
}

// readFile applies the first loopforge.yml found (workdir, then config dir).
func (c *Config) readFile(workdir string) error {
	var candidates []string
	if workdir != "" {
		candidates = append(candidates, filepath.Join(workdir, FileName))
	}
	candidates = append(candidates, filepath.Join(c.ConfigDir, FileName))
	for _, path := range candidates {
		data, err := os.ReadFile(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return &Error{File: path, Msg: "cannot read config", Err: err}
		}
		c.File = path
		return c.apply(path, data)
	}
	return nil
}

func (c *Config) apply(path string, data []byte) error {
	f, err := decodeFile(path, data)
	if err != nil {
		return err
	}
	if f.Provider != "" {
		c.Provider, c.ProviderSource = f.Provider, "file"
	}
	if f.MaxIterations != nil {
		if err := CheckMaxIterations("max_iterations", *f.MaxIterations); err != nil {
			return &Error{File: path, Msg: err.Error()}
		}
		c.MaxIterations = *f.MaxIterations
	}
	if f.Reflect != nil {
		c.Reflect = *f.Reflect
	}
	if f.Timeout != "" {
		d, err := parseTimeout(f.Timeout)
		if err != nil {
			return &Error{File: path, Msg: "timeout", Err: err}
		}
		c.Timeout = d
	}
	if f.Language != "" {
		c.Language = f.Language
	}
	if f.Limits.Timeout != "" {
		if f.Timeout != "" {
			return &Error{File: path, Msg: "timeout is set twice (timeout and limits.timeout); keep one"}
		}
		d, err := parseTimeout(f.Limits.Timeout)
		if err != nil {
			return &Error{File: path, Msg: "limits.timeout", Err: err}
		}
		c.Timeout = d
	}
	if err := c.applyLimits(path, f.Limits); err != nil {
		return err
	}
	if f.Workspace.CommandTimeout != "" {
		d, err := ParseDuration(f.Workspace.CommandTimeout)
		if err != nil {
			return &Error{File: path, Msg: "workspace.command_timeout", Err: err}
		}
		c.Workspace.CommandTimeout = d
	}
	if f.Workspace.Sandbox != nil {
		c.Workspace.Unsandboxed = !*f.Workspace.Sandbox
	}
	seen := map[string]bool{}
	for i, t := range f.Tools {
		switch {
		case strings.TrimSpace(t.Name) == "":
			return &Error{File: path, Msg: fmt.Sprintf("tools[%d] needs a name", i)}
		case strings.TrimSpace(t.Command) == "":
			return &Error{File: path, Msg: fmt.Sprintf("tool %q needs a command", t.Name)}
		case seen[t.Name]:
			return &Error{File: path, Msg: fmt.Sprintf("tool %q is defined twice", t.Name)}
		}
		seen[t.Name] = true
	}
	c.Tools = f.Tools
	for i, p := range f.Presets {
		if strings.TrimSpace(p.Title) == "" || strings.TrimSpace(p.Prompt) == "" {
			return &Error{File: path, Msg: fmt.Sprintf("presets[%d] needs a title and a prompt", i)}
		}
		if p.ID == "" {
			f.Presets[i].ID = fmt.Sprintf("user-%d", i+1)
		}
		if s := p.Suite(); s != nil {
			if err := s.Check(); err != nil {
				return &Error{File: path, Msg: fmt.Sprintf("presets[%d] (%s): %v", i, p.Title, err)}
			}
		}
	}
	c.Presets = f.Presets
	return c.applyProfiles(path, &f.Providers)
}

// decodeFile reads loopforge.yml. A key the file format does not have is an
// error naming the key, its line and the nearest valid key, not a silent
// default; a key given twice in a mapping is an error naming both lines.
func decodeFile(path string, data []byte) (fileConfig, error) {
	var f fileConfig
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return f, &Error{File: path, Msg: "invalid YAML", Err: err}
	}
	if err := duplicateKey(path, &root, ""); err != nil {
		return f, err
	}
	if err := unknownKey(path, &root, reflect.TypeFor[fileConfig](), ""); err != nil {
		return f, err
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil && !errors.Is(err, io.EOF) { // io.EOF: empty file
		// A wrong type ("max_iterations: many"): yaml lists each problem
		// with its line on a line of its own; keep them on one.
		if te, ok := errors.AsType[*yaml.TypeError](err); ok {
			return f, &Error{File: path, Msg: strings.Join(te.Errors, "; ")}
		}
		return f, &Error{File: path, Msg: "invalid YAML", Err: err}
	}
	return f, nil
}

func (c *Config) applyProfiles(path string, node *yaml.Node) error {
	if node.Kind == 0 {
		return nil
	}
	if node.Kind != yaml.MappingNode {
		return &Error{File: path, Msg: fmt.Sprintf("line %d: providers must be a map of profile name to settings", node.Line)}
	}
	var fileOrder []string
	for i := 0; i+1 < len(node.Content); i += 2 {
		name := node.Content[i].Value
		var fp fileProfile
		if err := node.Content[i+1].Decode(&fp); err != nil {
			return &Error{File: path, Msg: fmt.Sprintf("provider %q", name), Err: err}
		}
		p, exists := c.Profiles[name]
		if !exists {
			if fp.Kind == "" {
				return &Error{File: path, Msg: fmt.Sprintf("line %d: provider %q needs a kind (one of %s)",
					node.Content[i].Line, name, strings.Join(Kinds(), ", "))}
			}
			p = provider.Profile{Name: name}
		}
		if err := mergeProfile(&p, fp); err != nil {
			return &Error{File: path, Msg: fmt.Sprintf("line %d: provider %q", node.Content[i].Line, name), Err: err}
		}
		c.Profiles[name] = p
		fileOrder = append(fileOrder, name)
	}
	// File entries come first in the order, keeping built-ins after them.
	seen := map[string]bool{}
	order := make([]string, 0, len(c.Order)+len(fileOrder))
	for _, n := range append(fileOrder, c.Order...) {
		if !seen[n] {
			seen[n] = true
			order = append(order, n)
		}
	}
	c.Order = order
	return nil
}

func mergeProfile(p *provider.Profile, fp fileProfile) error {
	if fp.Kind != "" {
		if !knownKind(fp.Kind) {
			return fmt.Errorf("unknown kind %q (one of %s)", fp.Kind, strings.Join(Kinds(), ", "))
		}
		p.Kind = fp.Kind
	}
	if fp.Model != "" {
		p.Model = fp.Model
	}
	if fp.BaseURL != "" {
		if err := CheckBaseURL(fp.BaseURL); err != nil {
			return err
		}
		p.BaseURL = fp.BaseURL
	}
	if fp.APIKeyEnv != nil {
		p.APIKeyEnv = *fp.APIKeyEnv
	}
	if fp.Binary != "" {
		p.Binary = fp.Binary
	}
	if fp.Args != nil {
		p.Args = fp.Args
	}
	if fp.Env != nil {
		p.Env = fp.Env
	}
	if fp.PassEnv != nil {
		if err := checkPassEnv(p.Kind, fp.PassEnv); err != nil {
			return err
		}
		p.PassEnv = fp.PassEnv
	}
	if fp.Timeout != "" {
		d, err := ParseDuration(fp.Timeout)
		if err != nil {
			return fmt.Errorf("timeout: %w", err)
		}
		p.Timeout = d
	}
	if fp.Structured != nil {
		p.Structured = fp.Structured
	}
	for _, l := range []struct {
		key, val string
		dst      *time.Duration
	}{{"first_byte_timeout", fp.FirstByteTimeout, &p.FirstByteTimeout}, {"idle_timeout", fp.IdleTimeout, &p.IdleTimeout}} {
		if l.val == "" {
			continue
		}
		if !HTTPKind(p.Kind) {
			return fmt.Errorf("%s applies to the HTTP kinds (%s, %s, %s) only; a %s CLI call is bounded by timeout",
				l.key, KindOpenAI, KindAnthropic, KindGeminiAPI, p.Kind)
		}
		d, err := ParseDuration(l.val)
		if err != nil {
			return fmt.Errorf("%s: %w", l.key, err)
		}
		*l.dst = d
	}
	if err := applyAnswerCap(p, fp.MaxOutputTokens, fp.MaxTokensField); err != nil {
		return err
	}
	return applyRetries(p, fp.MaxRetries)
}

// MaxOutputTokensLimit bounds max_output_tokens: no model answers more.
const MaxOutputTokensLimit = 1_000_000

// applyAnswerCap sets p's answer cap from max_output_tokens (nil = the
// kind's default) and its request field from max_tokens_field ("" = by
// server).
func applyAnswerCap(p *provider.Profile, n *int, field string) error {
	if n != nil {
		if !HTTPKind(p.Kind) {
			return fmt.Errorf("max_output_tokens applies to the HTTP kinds (%s, %s, %s) only; a %s CLI sets its own",
				KindOpenAI, KindAnthropic, KindGeminiAPI, p.Kind)
		}
		if *n < 1 || *n > MaxOutputTokensLimit {
			return fmt.Errorf("max_output_tokens is %d; it must be between 1 and %d", *n, MaxOutputTokensLimit)
		}
		p.MaxOutputTokens = *n
	}
	if field == "" {
		return nil
	}
	if p.Kind != KindOpenAI {
		return fmt.Errorf("max_tokens_field applies to kind %s only (OpenAI-compatible servers); %s has one field for the cap",
			KindOpenAI, p.Kind)
	}
	if field != provider.FieldMaxTokens && field != provider.FieldMaxCompletionTokens {
		return fmt.Errorf("max_tokens_field is %q; it must be %s or %s", field, provider.FieldMaxCompletionTokens, provider.FieldMaxTokens)
	}
	p.MaxTokensField = field
	return nil
}

// MaxRetriesLimit bounds max_retries: past it a failing API would hold a
// run for many minutes of backoff.
const MaxRetriesLimit = 10

// applyRetries sets p's retry policy from max_retries (nil = the default).
func applyRetries(p *provider.Profile, n *int) error {
	if n == nil {
		return nil
	}
	if !HTTPKind(p.Kind) {
		return fmt.Errorf("max_retries applies to the HTTP kinds (%s, %s, %s) only; a %s CLI retries on its own",
			KindOpenAI, KindAnthropic, KindGeminiAPI, p.Kind)
	}
	if *n < 0 || *n > MaxRetriesLimit {
		return fmt.Errorf("max_retries is %d; it must be between 0 and %d", *n, MaxRetriesLimit)
	}
	r := provider.DefaultRetry()
	r.MaxRetries = *n
	p.Retry = &r
	return nil
}

// envName is what pass_env accepts: a portable variable name.
var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// checkPassEnv refuses anything but variable names, so that a secret's value
// never ends up in loopforge.yml, and pass_env on a kind that starts no
// process.
func checkPassEnv(kind string, names []string) error {
	switch kind {
	case KindCodex, KindClaude, KindGemini:
	default:
		return fmt.Errorf("pass_env: only the coding CLIs (%s, %s, %s) inherit environment variables; kind %q reads its key from api_key_env",
			KindCodex, KindClaude, KindGemini, kind)
	}
	for _, n := range names {
		if name, _, ok := strings.Cut(n, "="); ok {
			return fmt.Errorf("pass_env: list a name, not a value: write %q and export the value in the environment", name)
		}
		if !envName.MatchString(n) {
			return fmt.Errorf("pass_env: %q is not an environment variable name (letters, digits and _, not starting with a digit)", n)
		}
	}
	return nil
}

// Bounds for `limits:`: below these nothing useful runs (an interpreter
// alone needs tens of MiB and a handful of threads).
const (
	minMemory    = 32 << 20
	minProcesses = 4
	minOutput    = 1 << 10
	minFileSize  = 1 << 10
	minOpenFiles = 16
	minTmp       = 1 << 20
)

func (c *Config) applyLimits(path string, f fileLimits) error {
	size := func(key, v string, min int64, dst *int64) error {
		if v == "" {
			return nil
		}
		n, err := ParseSize(v)
		if err != nil {
			return &Error{File: path, Msg: "limits." + key, Err: err}
		}
		if n < min {
			return &Error{File: path, Msg: fmt.Sprintf("limits.%s must be at least %s (got %s)", key, humanize.IBytes(uint64(min)), v)}
		}
		*dst = n
		return nil
	}
	var output int64
	for _, x := range []struct {
		key, v string
		min    int64
		dst    *int64
	}{
		{"memory", f.Memory, minMemory, &c.Limits.MemoryBytes},
		{"output", f.Output, minOutput, &output},
		{"file_size", f.FileSize, minFileSize, &c.Limits.FileSizeBytes},
		{"tmp", f.Tmp, minTmp, &c.Limits.TmpBytes},
	} {
		if err := size(x.key, x.v, x.min, x.dst); err != nil {
			return err
		}
	}
	if output > 0 {
		// The hard cap is what the user sets; what is kept for display and
		// for the model stays within it.
		c.Limits.OutputHardCap = output
		d := sandbox.DefaultLimits()
		c.Limits.OutputHead = int(min(int64(d.OutputHead), output))
		c.Limits.OutputTail = int(min(int64(d.OutputTail), output/4))
	}
	if f.Processes != nil {
		if *f.Processes < minProcesses {
			return &Error{File: path, Msg: fmt.Sprintf("limits.processes must be at least %d (got %d)", minProcesses, *f.Processes)}
		}
		c.Limits.Processes = *f.Processes
	}
	if f.OpenFiles != nil {
		if *f.OpenFiles < minOpenFiles {
			return &Error{File: path, Msg: fmt.Sprintf("limits.open_files must be at least %d (got %d)", minOpenFiles, *f.OpenFiles)}
		}
		c.Limits.OpenFiles = uint64(*f.OpenFiles)
	}
	if f.CPUs != nil {
		if *f.CPUs <= 0 {
			return &Error{File: path, Msg: fmt.Sprintf("limits.cpus must be positive (got %g)", *f.CPUs)}
		}
		c.Limits.CPUs = *f.CPUs
	}
	return nil
}

// ParseSize reads a byte size: "512MiB", "1GiB", "64KiB", "1.5GB" (SI), or a
// plain number of bytes.
func ParseSize(s string) (int64, error) {
	n, err := humanize.ParseBytes(strings.TrimSpace(s))
	if err != nil || n == 0 || n > 1<<50 {
		return 0, fmt.Errorf("%q is not a size (examples: 512MiB, 1GiB, 64KiB)", s)
	}
	return int64(n), nil
}

// ParseDuration accepts Go durations ("30s", "1m30s") and bare seconds ("45").
func ParseDuration(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	d, err := time.ParseDuration(s)
	if err != nil {
		var secs float64
		// Bare seconds; beyond what a Duration holds (292 years) is a typo.
		if _, err2 := fmt.Sscanf(s, "%g", &secs); err2 == nil && fmt.Sprint(secs) == s && secs < math.MaxInt64/float64(time.Second) {
			d, err = time.Duration(secs*float64(time.Second)), nil
		}
	}
	if err != nil {
		return 0, fmt.Errorf("%q is not a duration (examples: 30s, 2m)", s)
	}
	if d <= 0 {
		return 0, fmt.Errorf("%q must be positive", s)
	}
	return d, nil
}

// resolveKey reads the profile's key variable. Gemini accepts GOOGLE_API_KEY
// as a fallback, like Google's own tools.
func resolveKey(p provider.Profile, env func(string) string) string {
	if p.APIKeyEnv == "" {
		return ""
	}
	if v := strings.TrimSpace(env(p.APIKeyEnv)); v != "" {
		return v
	}
	if p.APIKeyEnv == "GEMINI_API_KEY" {
		return strings.TrimSpace(env("GOOGLE_API_KEY"))
	}
	return ""
}
