package cliproc

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/loopforge/loopforge/backend/procgroup"
	"github.com/loopforge/loopforge/backend/provider"
)

// Binary says where a CLI's executable may be.
type Binary struct {
	Provider string // profile name, for errors
	Name     string // the CLI's usual executable name, e.g. "codex"
	// Profile is the profile's binary setting: a path (used as is, nothing
	// else is tried), a bare name (looked up like Name), or "".
	Profile string
	Hint    string // how to install it, named in the not-found error
}

// npmPrefixTimeout bounds `npm prefix -g` (node starts in well under this).
const npmPrefixTimeout = 5 * time.Second

// Find resolves the executable: the profile's path, else the name on PATH,
// else in the npm global prefix's bin directory (where `npm install -g`
// puts it, often missing from PATH in GUI sessions). It fails with a
// *provider.NotFoundError naming every place looked. Only the npm step
// starts a process (`npm prefix -g`), and only when PATH has no match.
func (b Binary) Find(ctx context.Context) (string, error) {
	name := b.Name
	notFound := func(what string, looked []string) error {
		return &provider.NotFoundError{Provider: b.Provider, Binary: what, Looked: looked, Hint: b.Hint}
	}
	if p := b.Profile; p != "" {
		if strings.ContainsRune(p, '/') || strings.ContainsRune(p, filepath.Separator) {
			p = expandHome(p)
			if err := executable(p); err != nil {
				return "", notFound(p, []string{"the profile's binary setting (" + err.Error() + ")"})
			}
			return filepath.Abs(p)
		}
		name = p
	}
	var looked []string
	path, err := exec.LookPath(name)
	if errors.Is(err, exec.ErrDot) {
		err = nil // PATH lists "." or a relative dir; the match is still what PATH says
	}
	if err == nil {
		return filepath.Abs(path)
	}
	looked = append(looked, "PATH") // its value is long and the user knows it

	prefix, why := npmPrefix(ctx)
	if prefix == "" {
		looked = append(looked, "the npm global prefix ("+why+")")
		return "", notFound(name, looked)
	}
	cand := npmBin(prefix, name)
	if err := executable(cand); err != nil {
		looked = append(looked, "the npm global prefix ("+err.Error()+")")
		return "", notFound(name, looked)
	}
	return cand, nil
}

// npmPrefix returns npm's global prefix, or "" and why not.
func npmPrefix(ctx context.Context) (string, string) {
	for _, k := range []string{"NPM_CONFIG_PREFIX", "npm_config_prefix"} {
		if v := os.Getenv(k); v != "" {
			return expandHome(v), ""
		}
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		return "", "npm is not on PATH"
	}
	ctx, cancel := context.WithTimeout(ctx, npmPrefixTimeout)
	defer cancel()
	cmd := exec.Command(npm, "prefix", "-g")
	cmd.Env = Env(nil, nil, nil)
	cmd.WaitDelay = time.Second
	out := procgroup.NewHeadTail(4096, 0)
	cmd.Stdout = out
	proc, err := procgroup.Start(ctx, cmd, procgroup.Options{})
	if err == nil {
		err = proc.Wait().Err
	}
	if err != nil {
		return "", "`npm prefix -g` failed: " + err.Error()
	}
	p := strings.TrimSpace(string(out.Head()))
	if p == "" || !filepath.IsAbs(p) {
		return "", fmt.Sprintf("`npm prefix -g` printed %q", p)
	}
	return p, ""
}

// executable reports why path is not an executable regular file, or nil.
func executable(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("%s does not exist", path)
		}
		return err
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file", path)
	}
	return runnable(path, fi)
}

func expandHome(p string) string {
	if p == "~" || strings.HasPrefix(p, "~/") {
		if h, err := os.UserHomeDir(); err == nil {
			return filepath.Join(h, p[1:])
		}
	}
	return p
}
