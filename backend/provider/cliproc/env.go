package cliproc

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/loopforge/loopforge/backend/provider"
)

// baseEnv is what every CLI inherits from loopforge's environment: where
// programs and the user's own CLI configuration and login live (PATH, HOME,
// XDG_*), who and where the user is (locale, time zone, shell for the
// commands the CLI runs, temp dir), and how to reach the network (proxies,
// extra CA certificates). Nothing else: in particular no other provider's
// key, no cloud credentials, no tokens of unrelated tools.
var baseEnv = []string{
	"PATH", "HOME", "USER", "LOGNAME", "SHELL", "TMPDIR", "TZ",
	"LANG", "LANGUAGE", "LC_*",
	"XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME", "XDG_RUNTIME_DIR",
	"HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "ALL_PROXY",
	"http_proxy", "https_proxy", "no_proxy", "all_proxy",
	"SSL_CERT_FILE", "SSL_CERT_DIR", "NODE_EXTRA_CA_CERTS",
}

// Env builds a CLI's environment, later steps overriding earlier ones:
//
//  1. the variables of baseEnv and own (the CLI's own settings and key,
//     the profile's pass_env, the names the CLI's configuration gives:
//     exact names, or prefixes ending in "*") that loopforge's environment
//     has;
//  2. set: values the adapter needs for a headless run;
//  3. profile: the profile's env, the user's explicit choice.
//
// The result is sorted, so the same inputs give the same environment.
func Env(own []string, set, profile map[string]string) []string {
	m := map[string]string{}
	allowed := append(slices.Clone(baseEnv), own...)
	for _, kv := range os.Environ() {
		k, v, ok := strings.Cut(kv, "=")
		if ok && k != "" && matchAny(allowed, k) {
			m[k] = v
		}
	}
	for k, v := range set {
		m[k] = v
	}
	for k, v := range profile {
		m[k] = v
	}
	out := make([]string, 0, len(m))
	for k, v := range m {
		out = append(out, k+"="+v)
	}
	slices.Sort(out)
	return out
}

// Getenv looks a variable up in an environment list such as Env's.
func Getenv(env []string) func(string) string {
	return func(k string) string {
		for _, kv := range env {
			if name, v, ok := strings.Cut(kv, "="); ok && name == k {
				return v
			}
		}
		return ""
	}
}

// MissingEnv is the error for a CLI that lacks variable name, which its
// own configuration names: it says how to let it through.
func MissingEnv(provName, name string) error {
	allow := fmt.Sprintf("add `pass_env: [%s]` to the profile %q in loopforge.yml", name, provName)
	msg := "export it before starting loopforge; if the CLI still misses it, " + allow
	if v, ok := os.LookupEnv(name); ok && v != "" {
		msg = "loopforge has it but did not pass it on: " + allow
	}
	return &provider.Error{Provider: provName, Kind: provider.KindMissingEnv, EnvVar: name, Message: msg}
}

func matchAny(patterns []string, k string) bool {
	for _, p := range patterns {
		if pre, ok := strings.CutSuffix(p, "*"); ok {
			if strings.HasPrefix(k, pre) {
				return true
			}
		} else if k == p {
			return true
		}
	}
	return false
}
