package codexcli

import (
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/BurntSushi/toml"
	"github.com/loopforge/loopforge/backend/provider/cliproc"
)

// configEnv names the variables the user's codex configuration tells codex
// to read, so that they reach it through loopforge's otherwise closed
// environment:
//
//   - model_providers.*: env_key (the key) and the values of
//     env_http_headers (header name → variable);
//   - mcp_servers.*: env_vars (forwarded to the server),
//     bearer_token_env_var and the values of env_http_headers;
//
// wherever they appear in $CODEX_HOME/config.toml (default ~/.codex),
// [profiles.*] included, and in the selected profile's own file
// ($CODEX_HOME/NAME.config.toml, NAME from -p/--profile in the profile's
// args or `profile =` in config.toml). A project's .codex/config.toml is
// not read on purpose: a repository must not choose which of the user's
// secrets codex gets. An unreadable or malformed file yields nothing here;
// codex reports it itself.
func configEnv(getenv func(string) string, args []string) []string {
	home := getenv("CODEX_HOME")
	if home == "" {
		h := getenv("HOME")
		if h == "" {
			return nil
		}
		home = filepath.Join(h, ".codex")
	}
	var names []string
	doc := readTOML(filepath.Join(home, "config.toml"))
	collectEnvNames(doc, &names)
	profile := profileArg(args)
	if profile == "" {
		profile, _ = doc["profile"].(string)
	}
	if profile != "" && !strings.ContainsAny(profile, `/\`) {
		collectEnvNames(readTOML(filepath.Join(home, profile+".config.toml")), &names)
	}
	return names
}

func readTOML(path string) map[string]any {
	doc := map[string]any{}
	if _, err := toml.DecodeFile(path, &doc); err != nil && !os.IsNotExist(err) {
		slog.Debug("codex config not read for the variables it names", "file", path, "err", err)
	}
	return doc
}

// envName is a variable name as codex's config would give it.
var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// collectEnvNames walks a TOML document and adds the variable names it
// gives under the keys listed at configEnv.
func collectEnvNames(v any, names *[]string) {
	add := func(x any) {
		if s, ok := x.(string); ok && envName.MatchString(s) {
			*names = append(*names, s)
		}
	}
	switch t := v.(type) {
	case map[string]any:
		for k, x := range t {
			switch k {
			case "env_key", "bearer_token_env_var":
				add(x)
			case "env_http_headers":
				if m, ok := x.(map[string]any); ok {
					for _, name := range m {
						add(name)
					}
				}
			case "env_vars":
				if list, ok := x.([]any); ok {
					for _, name := range list {
						add(name)
					}
				}
			default:
				collectEnvNames(x, names)
			}
		}
	case []map[string]any:
		for _, x := range t {
			collectEnvNames(x, names)
		}
	case []any:
		for _, x := range t {
			collectEnvNames(x, names)
		}
	}
}

// profileArg is the codex profile the profile's args select (-p NAME,
// --profile NAME, --profile=NAME), or "".
func profileArg(args []string) string {
	for i, a := range args {
		if v, ok := strings.CutPrefix(a, "--profile="); ok {
			return v
		}
		if (a == "-p" || a == "--profile") && i+1 < len(args) {
			return args[i+1]
		}
	}
	return ""
}

// missingVar is how codex reports a variable its config names but the
// environment lacks: "Missing environment variable: `NAME`." (plus the
// provider's env_key_instructions).
var missingVar = regexp.MustCompile("Missing environment variable: `?([A-Za-z_][A-Za-z0-9_]*)")

// classify turns codex's missing-variable failure into an error that says
// how to pass the variable (see cliproc.MissingEnv).
func classify(provName, text string) error {
	m := missingVar.FindStringSubmatch(text)
	if m == nil {
		return nil
	}
	return cliproc.MissingEnv(provName, m[1])
}
