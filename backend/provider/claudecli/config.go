package claudecli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
)

// managedSettings is where an administrator's settings live on Linux; they
// may switch claude to a cloud provider too.
var managedSettings = "/etc/claude-code/managed-settings.json"

// cloudEnv is what claude reads, beyond ANTHROPIC_* and CLAUDE_*, when its
// settings route it through a cloud provider: that provider's SDK
// credential chain (keys, profiles, config files) and its region settings.
var cloudEnv = map[string][]string{
	"CLAUDE_CODE_USE_BEDROCK": {"AWS_*"},
	"CLAUDE_CODE_USE_VERTEX":  {"GOOGLE_*", "GCLOUD_*", "CLOUDSDK_*", "CLOUD_ML_REGION", "VERTEX_REGION_*"},
	"CLAUDE_CODE_USE_FOUNDRY": {"AZURE_*"},
}

// configEnv names the variables claude needs because of how it is
// configured. Its settings.json `env` holds values, which claude applies
// itself: nothing to pass there, except that it (or loopforge's own
// environment) may turn on Bedrock, Vertex AI or Foundry, whose
// credentials live in AWS_*, GOOGLE_*/CLOUDSDK_* or AZURE_* variables.
// Those are passed only then. The user's settings
// ($CLAUDE_CONFIG_DIR or ~/.claude) and the managed settings are read, not
// a project's .claude/settings.json: a repository must not choose which of
// the user's credentials claude gets. An apiKeyHelper script's own
// variables cannot be known: pass_env names them.
func configEnv(getenv func(string) string, _ []string) []string {
	dir := getenv("CLAUDE_CONFIG_DIR")
	if dir == "" {
		home := getenv("HOME")
		if home == "" {
			return nil
		}
		dir = filepath.Join(home, ".claude")
	}
	settings := []map[string]string{settingsEnv(filepath.Join(dir, "settings.json")), settingsEnv(managedSettings)}
	var names []string
	for flag, vars := range cloudEnv {
		on := truthy(getenv(flag))
		for _, s := range settings {
			on = on || truthy(s[flag])
		}
		if on {
			names = append(names, vars...)
		}
	}
	return names
}

// settingsEnv reads the `env` object of a settings file (nil when there is
// none or it cannot be read: claude reports a broken file itself).
func settingsEnv(path string) map[string]string {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var s struct {
		Env map[string]any `json:"env"`
	}
	if json.Unmarshal(b, &s) != nil {
		return nil
	}
	env := map[string]string{}
	for k, v := range s.Env {
		switch v := v.(type) {
		case string:
			env[k] = v
		case bool:
			if v {
				env[k] = "1"
			}
		case float64:
			if v != 0 {
				env[k] = "1"
			}
		}
	}
	return env
}

// truthy is how claude reads its switches: "1", "true", "yes", "on".
func truthy(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "1", "true", "yes", "on":
		return true
	}
	return false
}
