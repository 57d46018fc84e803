package geminicli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
)

// systemSettings are the administrator's settings files on Linux.
var systemSettings = []string{"/etc/gemini-cli/system-defaults.json", "/etc/gemini-cli/settings.json"}

// envRef is a reference to a variable in a settings string: $NAME or
// ${NAME}, which gemini resolves when it loads the file.
var envRef = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)`)

// configEnv names the variables gemini's settings refer to ($NAME or
// ${NAME} in any string, e.g. an MCP server's headers or env), so that they
// reach it through loopforge's otherwise closed environment; with Vertex AI
// selected, CLOUDSDK_* too (where gcloud keeps the application default
// credentials). GEMINI_* and GOOGLE_* pass anyway. The user's settings
// ($GEMINI_CLI_HOME or $HOME, then .gemini/settings.json) and the system
// ones are read, not a project's .gemini/settings.json: a repository must
// not choose which of the user's secrets gemini gets.
func configEnv(getenv func(string) string, _ []string) []string {
	home := getenv("GEMINI_CLI_HOME")
	if home == "" {
		home = getenv("HOME")
	}
	files := systemSettings
	if home != "" {
		files = append([]string{filepath.Join(home, ".gemini", "settings.json")}, files...)
	}
	var names []string
	vertex := false
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		var doc any
		if json.Unmarshal(b, &doc) != nil {
			// gemini accepts comments in its settings; a file JSON cannot
			// read is scanned as text.
			names = append(names, refs(string(b))...)
			continue
		}
		walkStrings(doc, func(path []string, s string) {
			names = append(names, refs(s)...)
			if len(path) > 0 && path[len(path)-1] == "selectedType" && s == "vertex-ai" {
				vertex = true
			}
		})
	}
	if vertex {
		names = append(names, "CLOUDSDK_*")
	}
	return names
}

func refs(s string) []string {
	var names []string
	for _, m := range envRef.FindAllStringSubmatch(s, -1) {
		names = append(names, m[1]+m[2]) // one of the two groups matched
	}
	return names
}

// walkStrings calls fn with every string in a JSON document (object keys
// excluded) and the object keys leading to it.
func walkStrings(v any, fn func(path []string, s string)) {
	var walk func(v any, path []string)
	walk = func(v any, path []string) {
		switch t := v.(type) {
		case string:
			fn(path, t)
		case map[string]any:
			for k, x := range t {
				walk(x, append(path[:len(path):len(path)], k))
			}
		case []any:
			for _, x := range t {
				walk(x, path)
			}
		}
	}
	walk(v, nil)
}
