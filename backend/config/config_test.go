package config

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/loopforge/loopforge/backend/provider"
)

func envOf(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

func write(t *testing.T, dir, name, content string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestDefaultsAndHome(t *testing.T) {
	home := t.TempDir()
	c, err := Load(Options{LookupEnv: envOf(map[string]string{"LOOPFORGE_HOME": home})})
	if err != nil {
		t.Fatal(err)
	}
	if c.MaxIterations != 5 || !c.Reflect || c.Timeout != 30*time.Second || c.Language != "python" {
		t.Fatalf("defaults: %+v", c)
	}
	if c.DBPath != filepath.Join(home, "history.db") || c.ConfigDir != home || c.CacheDir != filepath.Join(home, "cache") {
		t.Fatalf("dirs: %s %s %s", c.DBPath, c.ConfigDir, c.CacheDir)
	}
	for _, n := range []string{"gemini-api", "anthropic", "openai", "openrouter", "ollama"} {
		if _, ok := c.Profiles[n]; !ok {
			t.Fatalf("built-in profile %s missing", n)
		}
	}
	if _, err := c.DefaultProvider(); err == nil || !strings.Contains(err.Error(), "GEMINI_API_KEY") {
		t.Fatalf("with no key the default provider error should name the key variables: %v", err)
	}
}

func TestXDGDirs(t *testing.T) {
	skipUnlessLinux(t)
	c, err := Load(Options{LookupEnv: envOf(map[string]string{"HOME": "/home/u", "XDG_DATA_HOME": "/d"})})
	if err != nil {
		t.Fatal(err)
	}
	if c.ConfigDir != "/home/u/.config/loopforge" || c.DBPath != "/d/loopforge/history.db" || c.CacheDir != "/home/u/.cache/loopforge" {
		t.Fatalf("%s %s %s", c.ConfigDir, c.DBPath, c.CacheDir)
	}
}

func TestCacheDirReadsNoFile(t *testing.T) {
	skipUnlessLinux(t)
	for _, tt := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"HOME": "/home/u"}, "/home/u/.cache/loopforge"},
		{map[string]string{"HOME": "/home/u", "XDG_CACHE_HOME": "/c"}, "/c/loopforge"},
		{map[string]string{"HOME": "/home/u", "XDG_CACHE_HOME": "relative"}, "/home/u/.cache/loopforge"},
		{map[string]string{"HOME": "/home/u", "XDG_CACHE_HOME": "/c", "LOOPFORGE_HOME": "/lf"}, "/lf/cache"},
	} {
		if got, err := CacheDir(envOf(tt.env)); err != nil || got != tt.want {
			t.Errorf("%v: %q %v, want %q", tt.env, got, err, tt.want)
		}
	}
}

// skipUnlessLinux: the XDG directories are Linux's; TestDirsPerOS covers
// every OS's choice from any OS.
func skipUnlessLinux(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("XDG directories are Linux's")
	}
}

// TestDirsPerOS: each OS's directories, chosen on whatever OS runs the
// test (the OS is a parameter of the choice).
func TestDirsPerOS(t *testing.T) {
	j := filepath.Join
	roaming, local := j("C:", "Users", "u", "AppData", "Roaming"), j("C:", "Users", "u", "AppData", "Local")
	lfHome := t.TempDir()
	for _, tt := range []struct {
		goos                      string
		env                       map[string]string
		config, data, logs, cache string
	}{
		{"linux", map[string]string{"HOME": "/home/u"},
			j("/home/u", ".config", "loopforge"), j("/home/u", ".local", "share", "loopforge"),
			j("/home/u", ".local", "state", "loopforge"), j("/home/u", ".cache", "loopforge")},
		{"windows", map[string]string{"APPDATA": roaming, "LOCALAPPDATA": local},
			j(roaming, "loopforge"), j(local, "loopforge"), j(local, "loopforge", "logs"), j(local, "loopforge", "cache")},
		{"windows", map[string]string{"USERPROFILE": j("C:", "Users", "u")},
			j(roaming, "loopforge"), j(local, "loopforge"), j(local, "loopforge", "logs"), j(local, "loopforge", "cache")},
		{"darwin", map[string]string{"HOME": "/Users/u"},
			j("/Users/u", "Library", "Application Support", "loopforge"), j("/Users/u", "Library", "Application Support", "loopforge"),
			j("/Users/u", "Library", "Logs", "loopforge"), j("/Users/u", "Library", "Caches", "loopforge")},
		{"windows", map[string]string{"LOOPFORGE_HOME": lfHome, "APPDATA": roaming},
			lfHome, lfHome, j(lfHome, "logs"), j(lfHome, "cache")},
		{"darwin", map[string]string{"LOOPFORGE_HOME": lfHome, "HOME": "/Users/u"},
			lfHome, lfHome, j(lfHome, "logs"), j(lfHome, "cache")},
	} {
		var c Config
		if err := c.setDirsFor(tt.goos, envOf(tt.env)); err != nil {
			t.Fatalf("%s %v: %v", tt.goos, tt.env, err)
		}
		got := []string{c.ConfigDir, c.DataDir, c.LogDir, c.CacheDir, c.DBPath}
		want := []string{tt.config, tt.data, tt.logs, tt.cache, j(tt.data, "history.db")}
		if strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("%s %v:\n got %q\nwant %q", tt.goos, tt.env, got, want)
		}
	}
}

func TestFileEnvAndDotenvPrecedence(t *testing.T) {
	home, wd := t.TempDir(), t.TempDir()
	write(t, home, FileName, "provider: openai\n")
	write(t, wd, FileName, `
provider: anthropic
max_iterations: 3
reflect: false
timeout: 5s
providers:
  local-qwen:
    kind: openai
    model: qwen2.5-coder:7b
    base_url: http://localhost:11434/v1
    api_key_env: ""
  openai:
    model: gpt-4.1
`)
	write(t, home, ".env", "ANTHROPIC_API_KEY=from-home\nOPENAI_API_KEY=home-openai\n")
	write(t, wd, ".env", "ANTHROPIC_API_KEY=from-workdir\n")
	c, err := Load(Options{Workdir: wd, LookupEnv: envOf(map[string]string{"LOOPFORGE_HOME": home, "OPENAI_API_KEY": "real-env"})})
	if err != nil {
		t.Fatal(err)
	}
	if c.File != filepath.Join(wd, FileName) {
		t.Fatalf("the workdir file must win: %s", c.File)
	}
	if c.Provider != "anthropic" || c.ProviderSource != "file" || c.MaxIterations != 3 || c.Reflect || c.Timeout != 5*time.Second {
		t.Fatalf("file values: %+v", c)
	}
	if got := c.Profiles["anthropic"].APIKey; got != "from-workdir" {
		t.Fatalf("workdir .env must win over the home .env: %q", got)
	}
	if got := c.Profiles["openai"].APIKey; got != "real-env" {
		t.Fatalf("the process environment must win over .env: %q", got)
	}
	if p := c.Profiles["openai"]; p.Model != "gpt-4.1" || p.Kind != KindOpenAI || p.APIKeyEnv != "OPENAI_API_KEY" {
		t.Fatalf("override must merge into the built-in: %+v", p)
	}
	if p := c.Profiles["local-qwen"]; p.Kind != KindOpenAI || p.BaseURL != "http://localhost:11434/v1" || p.APIKeyEnv != "" {
		t.Fatalf("user profile: %+v", p)
	}
	if c.Order[0] != "local-qwen" || c.Order[1] != "openai" {
		t.Fatalf("file profiles come first: %v", c.Order)
	}
}

func TestProviderEnvOverridesFile(t *testing.T) {
	wd := t.TempDir()
	write(t, wd, FileName, "provider: anthropic\n")
	c, err := Load(Options{Workdir: wd, LookupEnv: envOf(map[string]string{"LOOPFORGE_HOME": t.TempDir(), "LOOPFORGE_PROVIDER": "openai"})})
	if err != nil {
		t.Fatal(err)
	}
	if c.Provider != "openai" || c.ProviderSource != "env" {
		t.Fatalf("%s from %s", c.Provider, c.ProviderSource)
	}
}

func TestFirstProfileWithKeyIsDefault(t *testing.T) {
	c, err := Load(Options{LookupEnv: envOf(map[string]string{"LOOPFORGE_HOME": t.TempDir(), "OPENROUTER_API_KEY": "k", "GOOGLE_API_KEY": "g"})})
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Profiles["gemini-api"].APIKey; got != "g" {
		t.Fatalf("GOOGLE_API_KEY is the gemini fallback: %q", got)
	}
	if n, err := c.DefaultProvider(); err != nil || n != "gemini-api" {
		t.Fatalf("%s %v", n, err)
	}
}

func TestUnknownProvider(t *testing.T) {
	c, err := Load(Options{LookupEnv: envOf(map[string]string{"LOOPFORGE_HOME": t.TempDir(), "LOOPFORGE_PROVIDER": "nope"})})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.DefaultProvider()
	if !errors.Is(err, provider.ErrUnknownProvider) || !strings.Contains(err.Error(), `"nope"`) {
		t.Fatalf("%v", err)
	}
}

func TestBadFiles(t *testing.T) {
	tests := []struct{ name, yml, want string }{
		{"typo key", "max_iteration: 3\n", "max_iteration"},
		{"zero iterations", "max_iterations: 0\n", "at least 1"},
		{"bad timeout", "timeout: soon\n", "not a duration"},
		{"no kind", "providers:\n  mine:\n    model: x\n", "needs a kind"},
		{"bad kind", "providers:\n  mine:\n    kind: skynet\n", "unknown kind"},
		{"bad first_byte_timeout", "providers:\n  openai:\n    first_byte_timeout: soon\n", "first_byte_timeout"},
		{"negative idle_timeout", "providers:\n  openai:\n    idle_timeout: -1s\n", "must be positive"},
		{"idle_timeout on a CLI", "providers:\n  claude:\n    idle_timeout: 1m\n", "HTTP kinds"},
		{"max_retries on a CLI", "providers:\n  codex:\n    max_retries: 2\n", "HTTP kinds"},
		{"negative max_retries", "providers:\n  openai:\n    max_retries: -1\n", "between 0 and 10"},
		{"too many retries", "providers:\n  openai:\n    max_retries: 99\n", "between 0 and 10"},
		{"max_output_tokens on a CLI", "providers:\n  claude:\n    max_output_tokens: 4096\n", "HTTP kinds"},
		{"zero max_output_tokens", "providers:\n  anthropic:\n    max_output_tokens: 0\n", "between 1 and 1000000"},
		{"max_output_tokens not a number", "providers:\n  openai:\n    max_output_tokens: lots\n", "max_output_tokens"},
		{"max_tokens_field misspelt", "providers:\n  openai:\n    max_tokens_field: max_completion\n", "must be max_completion_tokens or max_tokens"},
		{"max_tokens_field on anthropic", "providers:\n  anthropic:\n    max_tokens_field: max_tokens\n", "applies to kind openai only"},
		{"max_tokens_feild typo", "providers:\n  openai:\n    max_tokens_feild: max_tokens\n", "did you mean max_tokens_field?"},
		{"not yaml", "provider: [\n", "invalid YAML"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wd := t.TempDir()
			write(t, wd, FileName, tt.yml)
			_, err := Load(Options{Workdir: wd, LookupEnv: envOf(map[string]string{"LOOPFORGE_HOME": t.TempDir()})})
			var ce *Error
			if !errors.As(err, &ce) || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), FileName) {
				t.Fatalf("err = %v, want a config error naming the file and containing %q", err, tt.want)
			}
		})
	}
}

// Each mistake is named on one line (the CLI shows only the first): the
// key, its line, the file and, when close, the key that was meant.
func TestBadFilesNamedOnOneLine(t *testing.T) {
	tests := []struct {
		name, yml string
		want      []string
	}{
		{"typo key", "provider: openai\nmax_iteration: 3\n", []string{`line 2: unknown key "max_iteration"`, "did you mean max_iterations?"}},
		{"nested typo", "limits:\n  memroy: 1GiB\n", []string{`line 2: unknown key "memroy" in limits`, "did you mean memory?"}},
		{"profile typo", "providers:\n  mine:\n    kind: openai\n    base_ur: http://x\n", []string{`line 4: unknown key "base_ur" in providers.mine`, "did you mean base_url?"}},
		{"tool typo", "tools:\n  - name: t\n    comand: ls\n", []string{`line 3: unknown key "comand" in tools[0]`, "did you mean command?"}},
		{"far from any key", "colour: blue\n", []string{`line 1: unknown key "colour"`, "valid keys: ", "max_iterations"}},
		{"wrong type", "max_iterations: many\nreflect: maybe\n", []string{"line 1: cannot unmarshal", "line 2: cannot unmarshal"}},
		{"too many iterations", "max_iterations: 500\n", []string{"max_iterations must be at most 50 (got 500)"}},
		{"huge timeout", "timeout: 1e+300\n", []string{"timeout", "not a duration"}},
		{"timeout over the cap", "timeout: 48h\n", []string{"timeout", "more than 24h"}},
		{"base_url without scheme", "providers:\n  mine:\n    kind: openai\n    base_url: localhost:8080/v1\n", []string{`line 2: provider "mine"`, "http:// or https://"}},
		{"base_url without host", "providers:\n  openai:\n    base_url: https:///v1\n", []string{`provider "openai"`, "has no host"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wd := t.TempDir()
			write(t, wd, FileName, tt.yml)
			_, err := Load(Options{Workdir: wd, LookupEnv: envOf(map[string]string{"LOOPFORGE_HOME": t.TempDir()})})
			var ce *Error
			if !errors.As(err, &ce) {
				t.Fatalf("err = %v, want a *config.Error", err)
			}
			msg := err.Error()
			if strings.Contains(msg, "\n") || !strings.HasPrefix(msg, filepath.Join(wd, FileName)+": ") {
				t.Fatalf("want one line starting with the file's path:\n%s", msg)
			}
			for _, w := range tt.want {
				if !strings.Contains(msg, w) {
					t.Errorf("%q does not contain %q", msg, w)
				}
			}
		})
	}
}

func TestCheckBaseURL(t *testing.T) {
	for _, ok := range []string{"https://api.openai.com/v1", "http://localhost:11434/v1", "http://127.0.0.1:8080"} {
		if err := CheckBaseURL(ok); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
	for _, bad := range []string{"localhost:8080", "api.openai.com/v1", "ftp://x/v1", "http://", "https://:80/v1", "http://[::1", "::bad"} {
		var ce *Error
		if err := CheckBaseURL(bad); !errors.As(err, &ce) {
			t.Errorf("%s: %v, want a *config.Error", bad, err)
		}
	}
}

func TestEmptyFileIsFine(t *testing.T) {
	wd := t.TempDir()
	write(t, wd, FileName, "")
	if _, err := Load(Options{Workdir: wd, LookupEnv: envOf(map[string]string{"LOOPFORGE_HOME": t.TempDir()})}); err != nil {
		t.Fatal(err)
	}
}

func TestParseDuration(t *testing.T) {
	for in, want := range map[string]time.Duration{"30s": 30 * time.Second, "2m": 2 * time.Minute, "45": 45 * time.Second, "1.5": 1500 * time.Millisecond} {
		if got, err := ParseDuration(in); err != nil || got != want {
			t.Errorf("%s: %v %v", in, got, err)
		}
	}
	for _, in := range []string{"", "abc", "-1s", "0"} {
		if _, err := ParseDuration(in); err == nil {
			t.Errorf("%q accepted", in)
		}
	}
}

func TestUserTools(t *testing.T) {
	wd := t.TempDir()
	write(t, wd, FileName, `
tools:
  - name: lint
    description: run the linter
    parameters: {type: object, properties: {path: {type: string}}}
    command: ruff check "$(jq -r .path)"
`)
	c, err := Load(Options{Workdir: wd, LookupEnv: envOf(map[string]string{"LOOPFORGE_HOME": t.TempDir()})})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Tools) != 1 || c.Tools[0].Name != "lint" || c.Tools[0].Parameters["type"] != "object" {
		t.Fatalf("%+v", c.Tools)
	}
	for yml, want := range map[string]string{
		"tools:\n  - command: x\n": "needs a name",
		"tools:\n  - name: a\n":    "needs a command",
		"tools:\n  - {name: a, command: x}\n  - {name: a, command: y}\n": "defined twice",
	} {
		write(t, wd, FileName, yml)
		if _, err := Load(Options{Workdir: wd, LookupEnv: envOf(map[string]string{"LOOPFORGE_HOME": t.TempDir()})}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v", yml, err)
		}
	}
}

func TestUserPresets(t *testing.T) {
	wd := t.TempDir()
	write(t, wd, FileName, "presets:\n  - title: Sorting\n    prompt: Implement merge sort with tests\n  - id: fib\n    title: Fibonacci\n    prompt: Print 20 Fibonacci numbers\n")
	c, err := Load(Options{Workdir: wd, LookupEnv: envOf(map[string]string{"LOOPFORGE_HOME": t.TempDir()})})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Presets) != 2 || c.Presets[0].ID != "user-1" || c.Presets[1].ID != "fib" || c.Presets[0].Prompt == "" {
		t.Fatalf("%+v", c.Presets)
	}
	write(t, wd, FileName, "presets:\n  - title: no prompt\n")
	if _, err := Load(Options{Workdir: wd, LookupEnv: envOf(map[string]string{"LOOPFORGE_HOME": t.TempDir()})}); err == nil || !strings.Contains(err.Error(), "needs a title and a prompt") {
		t.Fatalf("%v", err)
	}
}

func TestLimitsAndWorkspace(t *testing.T) {
	home := t.TempDir()
	write(t, home, FileName, `
limits:
  timeout: 90s
  memory: 512MiB
  processes: 64
  output: 256KiB
  file_size: 4MiB
  open_files: 128
  cpus: 0.5
  tmp: 16MiB
workspace:
  command_timeout: 10m
  sandbox: false
`)
	c, err := Load(Options{LookupEnv: envOf(map[string]string{"LOOPFORGE_HOME": home})})
	if err != nil {
		t.Fatal(err)
	}
	l := c.Limits
	if c.Timeout != 90*time.Second || l.MemoryBytes != 512<<20 || l.Processes != 64 || l.OutputHardCap != 256<<10 ||
		l.FileSizeBytes != 4<<20 || l.OpenFiles != 128 || l.CPUs != 0.5 || l.TmpBytes != 16<<20 {
		t.Fatalf("limits: timeout %s %+v", c.Timeout, l)
	}
	// What is kept of the output for display stays within the hard cap.
	if int64(l.OutputHead) > l.OutputHardCap || int64(l.OutputTail) > l.OutputHardCap {
		t.Fatalf("head %d tail %d beyond the cap %d", l.OutputHead, l.OutputTail, l.OutputHardCap)
	}
	if c.Workspace.CommandTimeout != 10*time.Minute || !c.Workspace.Unsandboxed {
		t.Fatalf("workspace: %+v", c.Workspace)
	}
}

func TestLimitsDefaultToTheSandboxs(t *testing.T) {
	c, err := Load(Options{LookupEnv: envOf(map[string]string{"LOOPFORGE_HOME": t.TempDir()})})
	if err != nil {
		t.Fatal(err)
	}
	if c.Limits.MemoryBytes != 0 || c.Limits.Processes != 0 || c.Workspace.Unsandboxed || c.Workspace.CommandTimeout != DefaultCommandTimeout {
		t.Fatalf("unset limits must stay zero (the sandbox fills them): %+v %+v", c.Limits, c.Workspace)
	}
}

func TestBadLimits(t *testing.T) {
	for yml, want := range map[string]string{
		"limits:\n  memory: lots\n":               `limits.memory: "lots" is not a size`,
		"limits:\n  memory: 1MiB\n":               "limits.memory must be at least 32 MiB",
		"limits:\n  processes: 1\n":               "limits.processes must be at least 4",
		"limits:\n  cpus: 0\n":                    "limits.cpus must be positive",
		"limits:\n  output: 10\n":                 "limits.output must be at least 1.0 KiB",
		"limits:\n  memroy: 1GiB\n":               `unknown key "memroy" in limits (did you mean memory?)`,
		"timeout: 10s\nlimits:\n  timeout: 20s\n": "timeout is set twice",
		"workspace:\n  command_timeout: soon\n":   "workspace.command_timeout",
	} {
		home := t.TempDir()
		write(t, home, FileName, yml)
		_, err := Load(Options{LookupEnv: envOf(map[string]string{"LOOPFORGE_HOME": home})})
		var ce *Error
		if !errors.As(err, &ce) || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: got %v, want a config error containing %q", yml, err, want)
		}
	}
}

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{"512MiB": 512 << 20, "1GiB": 1 << 30, "64KiB": 64 << 10, "1GB": 1e9, "2048": 2048, " 8 MiB ": 8 << 20} {
		if got, err := ParseSize(in); err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "-1", "0", "big", "1PiB0"} {
		if _, err := ParseSize(in); err == nil {
			t.Errorf("ParseSize(%q) should fail", in)
		}
	}
}

func TestProviderTimeouts(t *testing.T) {
	wd := t.TempDir()
	write(t, wd, FileName, `providers:
  gemini-api:
    first_byte_timeout: 3m
    idle_timeout: 90s
    timeout: 20m
  local:
    kind: openai
    base_url: http://localhost:8080/v1
    api_key_env: ""
    max_retries: 0
  claude:
    timeout: 15m
`)
	c, err := Load(Options{Workdir: wd, LookupEnv: envOf(map[string]string{"LOOPFORGE_HOME": t.TempDir()})})
	if err != nil {
		t.Fatal(err)
	}
	if g := c.Profiles["gemini-api"]; g.FirstByteTimeout != 3*time.Minute || g.IdleTimeout != 90*time.Second || g.Timeout != 20*time.Minute {
		t.Errorf("gemini-api: %+v", g)
	}
	if r := c.Profiles["local"].Retry; r == nil || r.MaxRetries != 0 || r.BaseDelay != provider.DefaultRetry().BaseDelay {
		t.Errorf("local: max_retries 0 must keep the default backoff and retry never: %+v", r)
	}
	if c.Profiles["gemini-api"].Retry != nil {
		t.Errorf("gemini-api: no max_retries must leave the default policy (nil)")
	}
	if l := c.Profiles["local"]; l.FirstByteTimeout != 0 || l.IdleTimeout != 0 || l.Timeout != 0 {
		t.Errorf("local: unset limits must stay 0 (the defaults): %+v", l)
	}
	if c.Profiles["claude"].Timeout != 15*time.Minute {
		t.Errorf("claude: %+v", c.Profiles["claude"])
	}
}

func TestAnswerCap(t *testing.T) {
	wd := t.TempDir()
	write(t, wd, FileName, `providers:
  anthropic:
    max_output_tokens: 32000
  azure:
    kind: openai
    base_url: https://lab.openai.azure.com/openai/v1
    api_key_env: AZURE_OPENAI_API_KEY
    max_output_tokens: 4096
    max_tokens_field: max_tokens
`)
	c, err := Load(Options{Workdir: wd, LookupEnv: envOf(map[string]string{"LOOPFORGE_HOME": t.TempDir()})})
	if err != nil {
		t.Fatal(err)
	}
	if a := c.Profiles["anthropic"]; a.MaxOutputTokens != 32000 || a.MaxTokensField != "" {
		t.Errorf("anthropic: %+v", a)
	}
	if a := c.Profiles["azure"]; a.MaxOutputTokens != 4096 || a.MaxTokensField != provider.FieldMaxTokens {
		t.Errorf("azure: %+v", a)
	}
	if o := c.Profiles["openai"]; o.MaxOutputTokens != 0 || o.MaxTokensField != "" {
		t.Errorf("openai: unset, the kind's defaults apply: %+v", o)
	}
}

// pass_env lists names of variables a coding CLI may inherit; values never
// belong in the file.
func TestPassEnv(t *testing.T) {
	wd := t.TempDir()
	write(t, wd, FileName, "providers:\n  codex:\n    pass_env: [AZURE_OPENAI_API_KEY, my_proxy_token]\n")
	c, err := Load(Options{Workdir: wd, LookupEnv: envOf(map[string]string{"LOOPFORGE_HOME": t.TempDir()})})
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Profiles["codex"].PassEnv; len(got) != 2 || got[0] != "AZURE_OPENAI_API_KEY" || got[1] != "my_proxy_token" {
		t.Errorf("pass_env = %q", got)
	}
	for _, tt := range []struct{ name, yml, want string }{
		{"value", "providers:\n  codex:\n    pass_env: [KEY=sk-secret]\n", `a name, not a value`},
		{"bad name", "providers:\n  codex:\n    pass_env: [\"1X\"]\n", `"1X" is not an environment variable name`},
		{"empty", "providers:\n  codex:\n    pass_env: [\"\"]\n", `"" is not an environment variable name`},
		{"http kind", "providers:\n  openai:\n    pass_env: [X]\n", "only the coding CLIs"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			wd := t.TempDir()
			write(t, wd, FileName, tt.yml)
			_, err := Load(Options{Workdir: wd, LookupEnv: envOf(map[string]string{"LOOPFORGE_HOME": t.TempDir()})})
			var ce *Error
			if !errors.As(err, &ce) || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "pass_env") {
				t.Fatalf("err = %v, want a config error about pass_env containing %q", err, tt.want)
			}
			if strings.Contains(err.Error(), "sk-secret") {
				t.Errorf("the error repeats the value: %v", err)
			}
		})
	}
}

func TestPresetTests(t *testing.T) {
	wd := t.TempDir()
	write(t, wd, FileName, "presets:\n  - id: sum\n    title: Sum\n    prompt: Print the sum of two numbers\n    tests:\n      - {stdin: '2 3', expected: '5'}\n      - {stdin: '1 1', expected: '2', hidden: true}\n")
	c, err := Load(Options{Workdir: wd, LookupEnv: envOf(map[string]string{"LOOPFORGE_HOME": t.TempDir()})})
	if err != nil {
		t.Fatal(err)
	}
	if s := c.Presets[0].Suite(); s == nil || len(s.Cases) != 2 || s.Hidden() != 1 {
		t.Fatalf("%+v", c.Presets)
	}
	write(t, wd, FileName, "presets:\n  - title: Sum\n    prompt: p\n    tests: [{stdin: '2 3'}]\n")
	if _, err := Load(Options{Workdir: wd, LookupEnv: envOf(map[string]string{"LOOPFORGE_HOME": t.TempDir()})}); err == nil || !strings.Contains(err.Error(), "test 1: needs expected") {
		t.Fatalf("%v", err)
	}
}
