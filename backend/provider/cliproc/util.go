package cliproc

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
)

// Secrets lists the values of env entries whose names say they hold a
// secret (KEY, TOKEN, SECRET, PASSWORD), plus extra: what Run redacts.
func Secrets(env []string, extra ...string) []string {
	var out []string
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		u := strings.ToUpper(k)
		if v != "" && (strings.Contains(u, "KEY") || strings.Contains(u, "TOKEN") ||
			strings.Contains(u, "SECRET") || strings.Contains(u, "PASSWORD")) {
			out = append(out, v)
		}
	}
	for _, v := range extra {
		if v != "" {
			out = append(out, v)
		}
	}
	return out
}

var statusPatterns = []*regexp.Regexp{
	regexp.MustCompile(`"code"\s*:\s*(\d{3})\b`),             // Google/JSON error bodies
	regexp.MustCompile(`(?i)\bstatus(?: code)?:? (\d{3})\b`), // "unexpected status 401 Unauthorized"
	regexp.MustCompile(`\bHTTP (\d{3})\b`),
}

// HTTPStatus finds the HTTP error status (400-599) a CLI's error message
// names, or 0.
func HTTPStatus(msg string) int {
	for _, re := range statusPatterns {
		if m := re.FindStringSubmatch(msg); m != nil {
			if n, _ := strconv.Atoi(m[1]); n >= 400 && n <= 599 {
				return n
			}
		}
	}
	return 0
}

// Text renders a JSON value for a person: a string as is, anything else as
// compact JSON ("" for null or nothing).
func Text(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(raw)
}

// Obj builds a small JSON object (for tool call inputs).
func Obj(kv ...any) json.RawMessage {
	m := map[string]any{}
	for i := 0; i+1 < len(kv); i += 2 {
		if k, ok := kv[i].(string); ok {
			m[k] = kv[i+1]
		}
	}
	b, _ := json.Marshal(m)
	return b
}
