package config

import (
	"testing"
	"time"
)

// The coding CLIs are built-in profiles of their own kinds, configurable
// like any other, and never picked without being named.
func TestCLIProfiles(t *testing.T) {
	home, wd := t.TempDir(), t.TempDir()
	write(t, wd, FileName, `
providers:
  claude:
    binary: /opt/claude/bin/claude
    model: opus
    args: [--max-turns, "3"]
    env: {CLAUDE_CONFIG_DIR: /cfg}
    timeout: 2m
  my-gemini:
    kind: gemini
    model: gemini-2.5-pro
`)
	c, err := Load(Options{Workdir: wd, LookupEnv: envOf(map[string]string{
		"LOOPFORGE_HOME": home, "ANTHROPIC_API_KEY": "a", "GEMINI_API_KEY": "g", "OPENAI_API_KEY": "o"})})
	if err != nil {
		t.Fatal(err)
	}
	for name, kind := range map[string]string{"codex": KindCodex, "claude": KindClaude, "gemini": KindGemini, "my-gemini": KindGemini} {
		if p, ok := c.Profiles[name]; !ok || p.Kind != kind || p.APIKeyEnv != "" {
			t.Errorf("%s: %+v", name, p)
		}
	}
	p := c.Profiles["claude"]
	if p.Binary != "/opt/claude/bin/claude" || p.Model != "opus" || len(p.Args) != 2 || p.Env["CLAUDE_CONFIG_DIR"] != "/cfg" || p.Timeout != 2*time.Minute {
		t.Errorf("claude: %+v", p)
	}
	if n, err := c.DefaultProvider(); err != nil || n != "gemini-api" {
		t.Errorf("default %q, %v: a CLI profile must be chosen by name", n, err)
	}
}
