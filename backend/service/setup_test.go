package service

import (
	"context"
	"errors"
	"iter"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/loopforge/loopforge/backend/config"
	"github.com/loopforge/loopforge/backend/provider"
	"github.com/loopforge/loopforge/backend/sandbox"
)

// setupService is a real service on a config read from home (as
// LOOPFORGE_HOME) with the given registry; Reload reads home again.
func setupService(t *testing.T, home string, reg provider.Registry) *Service {
	t.Helper()
	svc, err := New(context.Background(), Options{Config: loadConfig(t, "", home), Registry: reg,
		Reload: func() (*config.Config, error) { return config.Load(config.Options{LookupEnv: homeEnv(home)}) }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Close() })
	return svc
}

// homeEnv is an environment with only LOOPFORGE_HOME=home.
func homeEnv(home string) func(string) (string, bool) {
	return func(k string) (string, bool) {
		if k == "LOOPFORGE_HOME" {
			return home, true
		}
		return "", false
	}
}

func status(t *testing.T, s *Service, name string) ProviderStatus {
	t.Helper()
	for _, p := range s.Providers() {
		if p.Name == name {
			return p
		}
	}
	t.Fatalf("no profile %q", name)
	return ProviderStatus{}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestReloadPicksUpAKeyAddedToTheEnvFile: the first-run panel's "Check
// again" after the user wrote a key into the config directory's .env.
func TestReloadPicksUpAKeyAddedToTheEnvFile(t *testing.T) {
	home := t.TempDir()
	svc := setupService(t, home, nil)
	st := svc.Setup()
	if st.ConfigDir != home || st.EnvFile != filepath.Join(home, ".env") || st.EnvFileExists || st.ConfigFile != "" {
		t.Fatalf("setup before: %+v", st)
	}
	if p := status(t, svc, "openai"); p.Available || p.ReasonCode != CodeMissingKey {
		t.Fatalf("openai before the key: %+v", p)
	}

	writeFile(t, st.EnvFile, "OPENAI_API_KEY=sk-test\n")
	if p := status(t, svc, "openai"); p.Available {
		t.Fatal("the key was picked up before Reload: the test shows nothing")
	}
	st, err := svc.Reload(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !st.EnvFileExists {
		t.Errorf("setup after: %+v, want the .env found", st)
	}
	if p := status(t, svc, "openai"); !p.Available {
		t.Fatalf("openai after Reload: %+v", p)
	}
	if d := svc.Defaults(); d.Provider != "openai" {
		t.Errorf("default provider after Reload %q, want openai (the first with a key)", d.Provider)
	}
}

// flakyLocal is a keyless local endpoint whose server is up only once
// started is set.
type flakyLocal struct{ started *atomic.Bool }

func (flakyLocal) Name() string                        { return "local" }
func (flakyLocal) Capabilities() provider.Capabilities { return provider.Capabilities{} }
func (flakyLocal) Stream(context.Context, provider.Request) iter.Seq2[provider.Delta, error] {
	return func(func(provider.Delta, error) bool) {}
}
func (m flakyLocal) Check(context.Context) (string, error) {
	if !m.started.Load() {
		return "", errors.New("no server answers there")
	}
	return "", nil
}

// TestReloadChecksALocalServerAgain: a local server started after the
// list was made (ollama serve) is seen at the next Reload, not only once
// the cached check has expired.
func TestReloadChecksALocalServerAgain(t *testing.T) {
	home := t.TempDir()
	writeFile(t, filepath.Join(home, config.FileName), "providers:\n  local:\n    kind: openai\n    base_url: http://127.0.0.1:9/v1\n    api_key_env: \"\"\n")
	var started atomic.Bool
	reg := DefaultRegistry()
	reg[config.KindOpenAI] = func(provider.Profile) (provider.Provider, error) { return flakyLocal{&started}, nil }
	svc := setupService(t, home, reg)
	now := time.Now()
	svc.probes.now = func() time.Time { return now } // the cached check never expires by itself

	if p := status(t, svc, "local"); p.Available {
		t.Fatalf("local before its server: %+v", p)
	}
	started.Store(true)
	if p := status(t, svc, "local"); p.Available {
		t.Fatal("the check was not cached: the test shows nothing")
	}
	if _, err := svc.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	if p := status(t, svc, "local"); !p.Available {
		t.Fatalf("local after Reload: %+v", p)
	}
}

// TestReloadTriesTheSandboxAgain: when no Python was found, Setup says so,
// and Reload makes the sandbox again (Python installed since).
func TestReloadTriesTheSandboxAgain(t *testing.T) {
	if _, err := sandbox.NewRunner(sandbox.Options{}); err != nil {
		t.Skipf("no sandbox on this machine: %v", err)
	}
	svc := setupService(t, t.TempDir(), nil)
	// An earlier attempt found no Python.
	svc.execMu.Lock()
	svc.execTried, svc.execErr = true, &sandbox.InterpreterError{Tried: []string{"python3 on PATH"}}
	svc.execMu.Unlock()

	st := svc.Setup()
	if st.CodeRuns || !st.PythonMissing || st.Problem == "" {
		t.Fatalf("setup with no Python: %+v", st)
	}
	if d := svc.Defaults(); d.Isolation != "" {
		t.Fatalf("isolation %q with no Python", d.Isolation)
	}
	st, err := svc.Reload(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !st.CodeRuns || st.PythonMissing || st.Problem != "" {
		t.Fatalf("setup after Reload: %+v", st)
	}
	if d := svc.Defaults(); d.Isolation == "" {
		t.Fatal("no isolation level after Reload")
	}
}

// TestReloadOfABrokenFileKeepsTheConfiguration: a loopforge.yml that no
// longer reads is a configuration error (HTTP 400), and the configuration
// in force stays.
func TestReloadOfABrokenFileKeepsTheConfiguration(t *testing.T) {
	home := t.TempDir()
	writeFile(t, filepath.Join(home, config.FileName), "max_iterations: 4\n")
	svc := setupService(t, home, nil)
	writeFile(t, filepath.Join(home, config.FileName), "max_iteration: 4\n")
	_, err := svc.Reload(context.Background())
	if Classify(err) != ClassInvalid {
		t.Fatalf("err %v (class %v), want a configuration error", err, Classify(err))
	}
	if got := svc.Defaults().MaxIterations; got != 4 {
		t.Fatalf("max_iterations %d after a failed Reload, want 4", got)
	}
}

// TestReloadOfAMalformedEnvFileHidesTheKey: the setup panel's "Check
// again" after a key was pasted without "=" shows the file, line and
// variable, never the key (the panel may be on a projector).
func TestReloadOfAMalformedEnvFileHidesTheKey(t *testing.T) {
	const secret = "sk-proj-Qw3rtyUIOPsecret0987654321"
	home := t.TempDir()
	svc := setupService(t, home, nil)
	env := filepath.Join(home, ".env")
	writeFile(t, env, "# mine\nOPENAI_API_KEY "+secret+"\n")
	_, err := svc.Reload(context.Background())
	if Classify(err) != ClassInvalid {
		t.Fatalf("err %v (class %v), want a configuration error", err, Classify(err))
	}
	msg := err.Error()
	for _, w := range []string{env, "line 2", "OPENAI_API_KEY"} {
		if !strings.Contains(msg, w) {
			t.Errorf("%q does not name %q", msg, w)
		}
	}
	if strings.Contains(msg, "Qw3rty") || strings.Contains(msg, "sk-proj") {
		t.Errorf("the error shows the key: %s", msg)
	}
}

// TestReloadWithoutAReader: a service given no way to read its
// configuration again keeps the one it has (its profiles made in code too)
// and still checks the providers anew.
func TestReloadWithoutAReader(t *testing.T) {
	home := t.TempDir()
	cfg := loadConfig(t, "", home)
	cfg.Profiles["local"] = provider.Profile{Name: "local", Kind: "flaky"}
	cfg.Order = append([]string{"local"}, cfg.Order...)
	var started atomic.Bool
	reg := DefaultRegistry()
	reg["flaky"] = func(provider.Profile) (provider.Provider, error) { return flakyLocal{&started}, nil }
	svc, err := New(context.Background(), Options{Config: cfg, Registry: reg})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	now := time.Now()
	svc.probes.now = func() time.Time { return now }
	if p := status(t, svc, "local"); p.Available {
		t.Fatalf("local before its server: %+v", p)
	}
	started.Store(true)
	writeFile(t, filepath.Join(home, ".env"), "OPENAI_API_KEY=sk-test\n")
	if _, err := svc.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	if p := status(t, svc, "local"); !p.Available {
		t.Fatalf("local after Reload: %+v", p)
	}
	if p := status(t, svc, "openai"); p.Available {
		t.Fatal("a service with no Options.Reload read the .env again")
	}
}
