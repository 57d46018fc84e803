package sandbox

import (
	"os"
	"os/user"
	"path/filepath"
	"slices"
)

// homeDirs are the user's home directories ($HOME and the passwd entry),
// as given and with symlinks resolved; a Dir may be beneath them, never
// one of them or an ancestor.
func homeDirs() []string {
	var out []string
	addHome := func(h string) {
		if h == "" || !filepath.IsAbs(h) {
			return
		}
		for _, p := range []string{filepath.Clean(h), resolved(h)} {
			if p != "" && !slices.Contains(out, p) {
				out = append(out, p)
			}
		}
	}
	if h, err := os.UserHomeDir(); err == nil {
		addHome(h)
	}
	if u, err := user.Current(); err == nil {
		addHome(u.HomeDir)
	}
	return out
}

// resolved is p with symlinks resolved, "" when that fails.
func resolved(p string) string {
	r, err := filepath.EvalSymlinks(p)
	if err != nil {
		return ""
	}
	return r
}
