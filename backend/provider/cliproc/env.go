package cliproc

import (
	"os"
	"slices"
	"strings"
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
//  1. the variables of baseEnv and own (the CLI's own settings and key:
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
