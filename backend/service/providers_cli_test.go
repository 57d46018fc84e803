package service

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopforge/loopforge/backend/config"
	"github.com/loopforge/loopforge/backend/provider"
	"github.com/loopforge/loopforge/backend/provider/cliproc/clitest"
)

func loadConfig(t *testing.T, wd, home string) *config.Config {
	t.Helper()
	env := map[string]string{"LOOPFORGE_HOME": home}
	cfg, err := config.Load(config.Options{Workdir: wd, LookupEnv: func(k string) (string, bool) {
		v, ok := env[k]
		return v, ok
	}})
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// Switching loopforge.yml from codex to claude changes the CLI that runs;
// nothing else changes.
func TestSwitchCLIProviderByConfig(t *testing.T) {
	f := clitest.NewFake(t, []string{"codex", "claude"}, nil)
	wd, home := t.TempDir(), t.TempDir()
	abs := func(p string) string { a, _ := filepath.Abs(p); return a }
	yml := func(def string) string {
		return "provider: " + def + `
providers:
  codex:
    env: {FAKE_RECORD: "` + f.Record + `", FAKE_REPLAY: "` + abs("../provider/codexcli/testdata/codex-text.jsonl") + `"}
  claude:
    env: {FAKE_RECORD: "` + f.Record + `", FAKE_REPLAY: "` + abs("../provider/claudecli/testdata/claude-text-partial.jsonl") + `"}
`
	}
	for _, def := range []string{"codex", "claude"} {
		if err := os.WriteFile(filepath.Join(wd, config.FileName), []byte(yml(def)), 0o600); err != nil {
			t.Fatal(err)
		}
		cfg := loadConfig(t, wd, home)
		name, err := cfg.DefaultProvider()
		if err != nil {
			t.Fatal(err)
		}
		prof, err := cfg.Profile(name)
		if err != nil {
			t.Fatal(err)
		}
		p, err := DefaultRegistry().New(prof)
		if err != nil {
			t.Fatal(err)
		}
		req := provider.Request{Messages: []provider.Message{{Role: provider.RoleUser, Content: "Write hello"}}}
		req.Workdir = wd
		_, resp, err := clitest.Collect(p.Stream(context.Background(), req))
		if err != nil || resp == nil {
			t.Fatalf("%s: %v (final response %v)", def, err, resp)
		}
		if rec := clitest.ReadRecord(t, f.Record); rec.Name != def || resp.Provider != def || !strings.Contains(resp.Content, "tiny Python program") {
			t.Errorf("provider: %s; ran %s, response from %q: %q", def, rec.Name, resp.Provider, resp.Content)
		}
	}
}

// `loopforge providers` reports, for each CLI profile, whether its binary
// was found and which version it is.
func TestProvidersChecksCLIs(t *testing.T) {
	clitest.NewFake(t, []string{"claude"}, map[string]string{"NPM_CONFIG_PREFIX": t.TempDir()})
	wd, home := t.TempDir(), t.TempDir()
	yml := "providers:\n  claude:\n    env: {FAKE_VERSION: \"2.1.197 (Claude Code)\"}\n"
	if err := os.WriteFile(filepath.Join(wd, config.FileName), []byte(yml), 0o600); err != nil {
		t.Fatal(err)
	}
	s := &Service{reg: DefaultRegistry()}
	s.cfg.Store(loadConfig(t, wd, home))
	got := map[string]ProviderStatus{}
	for _, st := range s.Providers() {
		got[st.Name] = st
	}
	if c := got["claude"]; !c.Available || c.Version != "2.1.197 (Claude Code)" || c.Kind != config.KindClaude || c.Model != "sonnet" {
		t.Errorf("claude: %+v", c)
	}
	for _, n := range []string{"codex", "gemini"} {
		if st := got[n]; st.Available || !strings.Contains(st.Reason, "not found") || !strings.Contains(st.Reason, "npm install -g") ||
			st.ReasonCode != CodeCLINotFound || st.ReasonParams["provider"] != n {
			t.Errorf("%s: %+v", n, st)
		}
	}
	// Why, as a code and parameters too, for the app to word.
	if st := got["openai"]; st.Available || st.Version != "" || st.ReasonCode != CodeMissingKey || st.ReasonParams["env"] != "OPENAI_API_KEY" {
		t.Errorf("openai without a key: %+v", st)
	}
}

// `loopforge providers` shows each profile's time limits: the defaults, or
// what loopforge.yml sets.
func TestProvidersShowLimits(t *testing.T) {
	wd, home := t.TempDir(), t.TempDir()
	yml := "providers:\n  openai:\n    first_byte_timeout: 3m\n    idle_timeout: 45s\n  claude:\n    timeout: 20m\n"
	if err := os.WriteFile(filepath.Join(wd, config.FileName), []byte(yml), 0o600); err != nil {
		t.Fatal(err)
	}
	s := &Service{reg: DefaultRegistry()}
	s.cfg.Store(loadConfig(t, wd, home))
	got := map[string]ProviderStatus{}
	for _, st := range s.Providers() {
		got[st.Name] = st
	}
	if o := got["openai"]; o.FirstByteTimeoutSeconds != 180 || o.IdleTimeoutSeconds != 45 || o.TimeoutSeconds != 600 {
		t.Errorf("openai: %+v", o)
	}
	if g := got["gemini-api"]; g.FirstByteTimeoutSeconds != provider.DefaultFirstByteTimeout.Seconds() ||
		g.IdleTimeoutSeconds != provider.DefaultIdleTimeout.Seconds() || g.TimeoutSeconds != provider.DefaultCallTimeout.Seconds() {
		t.Errorf("gemini-api: %+v", g)
	}
	if c := got["claude"]; c.FirstByteTimeoutSeconds != 0 || c.IdleTimeoutSeconds != 0 || c.TimeoutSeconds != 1200 {
		t.Errorf("claude: %+v", c)
	}
}
