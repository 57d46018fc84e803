package config

import (
	"strconv"
	"strings"

	"github.com/loopforge/loopforge/backend/provider"
)

// Provider kinds a profile may have.
const (
	KindOpenAI    = "openai"     // any OpenAI-compatible chat completions API
	KindAnthropic = "anthropic"  // Anthropic Messages API
	KindGeminiAPI = "gemini-api" // Google Gemini API
	KindCodex     = "codex"      // OpenAI Codex CLI, run as a subprocess
	KindClaude    = "claude"     // Claude Code CLI, run as a subprocess
	KindGemini    = "gemini"     // Gemini CLI, run as a subprocess
)

// Kinds lists every kind a profile may name (a new slice each call).
func Kinds() []string {
	return []string{KindOpenAI, KindAnthropic, KindGeminiAPI, KindCodex, KindClaude, KindGemini}
}

// HTTPKind reports whether a kind calls an API over HTTP (rather than
// running a coding CLI): only those have first-byte and idle limits.
func HTTPKind(k string) bool {
	return k == KindOpenAI || k == KindAnthropic || k == KindGeminiAPI
}

func knownKind(k string) bool {
	for _, x := range Kinds() {
		if x == k {
			return true
		}
	}
	return false
}

// builtinProfiles are the profiles that exist without any config file. The
// order decides which one is picked when no default is configured: the first
// whose key is present.
//
// The coding CLI profiles name no key variable: each CLI finds its own key
// or login, so they are never picked implicitly; they are chosen by name
// (provider:, LOOPFORGE_PROVIDER, --provider). codex has no model so the
// CLI's default (which depends on the account) applies.
func builtinProfiles() (map[string]provider.Profile, []string) {
	list := []provider.Profile{
		{Name: "gemini-api", Kind: KindGeminiAPI, Model: "gemini-3.8-flash", APIKeyEnv: "GEMINI_API_KEY"},
		{Name: "anthropic", Kind: KindAnthropic, Model: "claude-sonnet-5", APIKeyEnv: "ANTHROPIC_API_KEY"},
		{Name: "openai", Kind: KindOpenAI, Model: "gpt-4o-mini", APIKeyEnv: "OPENAI_API_KEY"},
		{Name: "openrouter", Kind: KindOpenAI, Model: "openai/gpt-4o-mini", BaseURL: "https://openrouter.ai/api/v1", APIKeyEnv: "OPENROUTER_API_KEY"},
		{Name: "ollama", Kind: KindOpenAI, Model: "qwen2.5-coder:7b", BaseURL: "http://localhost:11434/v1"},
		{Name: "codex", Kind: KindCodex},
		{Name: "claude", Kind: KindClaude, Model: "sonnet"},
		{Name: "gemini", Kind: KindGemini, Model: "gemini-3.8-flash"},
	}
	m := make(map[string]provider.Profile, len(list))
	order := make([]string, 0, len(list))
	for _, p := range list {
		m[p.Name] = p
		order = append(order, p.Name)
	}
	return m, order
}

// Profile returns the named profile or an error wrapping
// provider.ErrUnknownProvider that lists the names that exist.
func (c *Config) Profile(name string) (provider.Profile, error) {
	if p, ok := c.Profiles[name]; ok {
		return p, nil
	}
	return provider.Profile{}, &Error{
		Msg: "unknown provider " + strconv.Quote(name) + " (configured: " + strings.Join(c.Order, ", ") + ")",
		Err: provider.ErrUnknownProvider,
	}
}

// DefaultProvider names the profile to use when the user did not pick one:
// the configured default, else the first profile in Order that needs no key
// or has one. Ollama-like keyless profiles are skipped unless listed in the
// config file, because they need a local server the user chose to run.
func (c *Config) DefaultProvider() (string, error) {
	if c.Provider != "" {
		if _, err := c.Profile(c.Provider); err != nil {
			return "", err
		}
		return c.Provider, nil
	}
	for _, n := range c.Order {
		p := c.Profiles[n]
		if p.APIKeyEnv != "" && p.APIKey != "" {
			return n, nil
		}
	}
	return "", &Error{Msg: "no provider is configured: set an API key (GEMINI_API_KEY, ANTHROPIC_API_KEY, OPENAI_API_KEY or OPENROUTER_API_KEY), " +
		"or pick one with --provider (e.g. --provider ollama, or a coding CLI: codex, claude, gemini), or set provider: in " + FileName}
}
