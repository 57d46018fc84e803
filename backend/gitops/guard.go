package gitops

import (
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Guard remembers the files that make git run commands or change how it
// reads the work tree — the .git file of a worktree, config, hooks and
// info/attributes — so that after code under test (or a coding CLI) had the
// project folder writable, loopforge can refuse to run git on a repository
// it tampered with (a hook, a filter driver or core.fsmonitor would run as
// the user, outside the sandbox).
type Guard struct {
	dir   string
	files []string // absolute paths; hooks are listed by directory
	sums  map[string]string
}

// TamperError lists the control files that changed since the Guard was made.
type TamperError struct {
	Dir     string
	Changed []string
}

func (e *TamperError) Error() string {
	return fmt.Sprintf("the repository's git control files changed during the run (%s): loopforge will not run git on %s; inspect them first",
		strings.Join(e.Changed, ", "), e.Dir)
}

// Guard records the current state of the repository's control files.
func (r *Repo) Guard(ctx context.Context) (*Guard, error) {
	out, err := r.Git(ctx, "rev-parse", "--absolute-git-dir", "--git-common-dir")
	if err != nil {
		return nil, err
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 {
		return nil, fmt.Errorf("gitops: unexpected rev-parse output %q", out)
	}
	gitDir, common := lines[0], lines[1]
	if !filepath.IsAbs(common) {
		common = filepath.Join(r.Dir, common)
	}
	g := &Guard{dir: r.Dir}
	g.files = []string{filepath.Join(r.Dir, ".git")}
	for _, d := range uniq(gitDir, common) {
		g.files = append(g.files, filepath.Join(d, "config"), filepath.Join(d, "config.worktree"),
			filepath.Join(d, "info", "attributes"), filepath.Join(d, "hooks"), filepath.Join(d, "commondir"))
	}
	g.sums = g.snapshot()
	return g, nil
}

// Check reports a *TamperError when a control file changed.
func (g *Guard) Check() error {
	now := g.snapshot()
	var changed []string
	for _, f := range g.files {
		if now[f] != g.sums[f] {
			rel, err := filepath.Rel(g.dir, f)
			if err != nil || strings.HasPrefix(rel, "..") {
				rel = f
			}
			changed = append(changed, rel)
		}
	}
	if len(changed) > 0 {
		return &TamperError{Dir: g.dir, Changed: changed}
	}
	return nil
}

// snapshot hashes each file (a directory: its entries' names and contents);
// "-" stands for absent, a symlink is hashed by its target.
func (g *Guard) snapshot() map[string]string {
	m := make(map[string]string, len(g.files))
	for _, f := range g.files {
		m[f] = digest(f, 0)
	}
	return m
}

func digest(path string, depth int) string {
	fi, err := os.Lstat(path)
	if err != nil {
		return "-"
	}
	h := sha256.New()
	fmt.Fprintf(h, "%o\x00", fi.Mode())
	switch {
	case fi.Mode()&os.ModeSymlink != 0:
		t, _ := os.Readlink(path)
		h.Write([]byte(t))
	case fi.IsDir():
		if depth > 2 {
			break
		}
		entries, _ := os.ReadDir(path)
		names := make([]string, 0, len(entries))
		for _, e := range entries {
			names = append(names, e.Name())
		}
		sort.Strings(names)
		for _, n := range names {
			fmt.Fprintf(h, "%s\x00%s\x00", n, digest(filepath.Join(path, n), depth+1))
		}
	default:
		b, _ := os.ReadFile(path)
		h.Write(b)
	}
	return fmt.Sprintf("%x", h.Sum(nil))
}

func uniq(a, b string) []string {
	if filepath.Clean(a) == filepath.Clean(b) {
		return []string{a}
	}
	return []string{a, b}
}
