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
// reads the work tree — the .git file of a worktree, config,
// config.worktree, commondir, hooks and info/attributes — so that after
// code under test (or a coding CLI) had the project folder writable,
// loopforge can refuse to run git on a repository it tampered with (a hook,
// a filter driver or core.fsmonitor would run as the user, outside the
// sandbox).
//
// Git's own bookkeeping is not guarded: the index, objects, refs, logs,
// HEAD, ORIG_HEAD, FETCH_HEAD and the like change whenever git runs —
// loopforge's `git diff HEAD` refreshes the index, a test suite commits —
// and none of them makes git run anything. When .git is a directory only
// that it is one is recorded.
//
// No change is ever accepted: every Check compares with the state seen when
// the Guard was made. Begin only names who has the work tree until the next
// Check, so that a change is attributed to the model or to the validation
// command that made it; a change found outside such a window is attributed
// to another program (perhaps a process the last one left running).
type Guard struct {
	dir   string
	roots []string          // guarded paths; a directory (hooks) is walked
	sums  map[string]string // path → digest when the Guard was made
	actor string            // who has the work tree now ("" between windows)
	last  string            // the previous window's actor
}

// TamperError lists the control files that changed since the Guard was made.
// Callers branch on it with errors.As.
type TamperError struct {
	Dir string
	// Actor is who had the work tree writable when the change was seen:
	// "the model (provider codex)", "validation command `make test`".
	Actor   string
	Changed []string // paths relative to Dir when inside it, else absolute
}

func (e *TamperError) Error() string {
	actor := e.Actor
	if actor == "" {
		actor = "the run"
	}
	return fmt.Sprintf("the repository's git control files changed while %s was working: %s; loopforge will not run git on %s; inspect them first",
		actor, strings.Join(e.Changed, ", "), e.Dir)
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
	g.roots = []string{filepath.Join(r.Dir, ".git")}
	for _, d := range uniq(gitDir, common) {
		g.roots = append(g.roots, filepath.Join(d, "config"), filepath.Join(d, "config.worktree"),
			filepath.Join(d, "info", "attributes"), filepath.Join(d, "hooks"), filepath.Join(d, "commondir"))
	}
	g.sums = g.snapshot()
	return g, nil
}

// Begin opens a window in which actor may write to the work tree: a change
// the next Check finds is attributed to it. It first checks that nothing
// changed since the last Check. A nil *Guard guards nothing.
func (g *Guard) Begin(actor string) error {
	if g == nil {
		return nil
	}
	if err := g.Check(); err != nil {
		return err
	}
	g.actor = actor
	return nil
}

// Check reports a *TamperError when a control file differs from when the
// Guard was made, and closes the window Begin opened.
func (g *Guard) Check() error {
	if g == nil {
		return nil
	}
	actor := g.actor
	if actor == "" {
		actor = "another program"
		if g.last != "" {
			actor += " (perhaps a process left running by " + g.last + ")"
		}
	} else {
		g.last, g.actor = g.actor, ""
	}
	now := g.snapshot()
	var changed []string
	for f, sum := range now {
		if g.sums[f] != sum {
			changed = append(changed, g.rel(f))
		}
	}
	for f := range g.sums {
		if _, ok := now[f]; !ok {
			changed = append(changed, g.rel(f))
		}
	}
	if len(changed) > 0 {
		sort.Strings(changed)
		return &TamperError{Dir: g.dir, Actor: actor, Changed: changed}
	}
	return nil
}

func (g *Guard) rel(f string) string {
	rel, err := filepath.Rel(g.dir, f)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return f
	}
	return rel
}

// snapshot digests each guarded path: the work tree's .git by its type
// alone when it is a directory (git's own business) and by its content when
// it is a gitfile; a directory (hooks) entry by entry; "-" stands for
// absent, a symlink is digested by its target.
func (g *Guard) snapshot() map[string]string {
	m := make(map[string]string)
	for i, f := range g.roots {
		if i == 0 {
			if fi, err := os.Lstat(f); err == nil && fi.IsDir() {
				m[f] = "directory"
				continue
			}
		}
		walk(m, f, 0)
	}
	return m
}

// maxDepth bounds how deep a guarded directory is walked.
const maxDepth = 3

func walk(m map[string]string, path string, depth int) {
	fi, err := os.Lstat(path)
	if err != nil {
		m[path] = "-"
		return
	}
	h := sha256.New()
	fmt.Fprintf(h, "%o\x00", fi.Mode())
	switch {
	case fi.Mode()&os.ModeSymlink != 0:
		t, _ := os.Readlink(path)
		h.Write([]byte(t))
	case fi.IsDir():
		// Each entry is digested on its own; past maxDepth the listing
		// joins the directory's digest instead, so a deep entry still
		// counts when it appears or goes.
		entries, _ := os.ReadDir(path)
		for _, e := range entries { // sorted by name
			if depth < maxDepth {
				walk(m, filepath.Join(path, e.Name()), depth+1)
			} else {
				fmt.Fprintf(h, "%s\x00", e.Name())
			}
		}
	case fi.Mode().IsRegular():
		b, _ := os.ReadFile(path)
		h.Write(b)
	}
	m[path] = fmt.Sprintf("%x", h.Sum(nil))
}

func uniq(a, b string) []string {
	if filepath.Clean(a) == filepath.Clean(b) {
		return []string{a}
	}
	return []string{a, b}
}

// BranchMovedError: HEAD no longer points at the run's feature branch — the
// model or a command checked out something else — so a commit would land
// on another branch.
type BranchMovedError struct {
	Dir    string
	Branch string // the run's branch
	Head   string // the branch HEAD points at now; "" when detached
}

func (e *BranchMovedError) Error() string {
	now := "a detached HEAD"
	if e.Head != "" {
		now = "branch " + e.Head
	}
	return fmt.Sprintf("HEAD moved off the run's branch %s during the run (it is now on %s): loopforge will not commit there; check out %s in %s and inspect the changes first",
		e.Branch, now, e.Branch, e.Dir)
}

// RequireBranch returns a *BranchMovedError unless HEAD points at branch.
func (r *Repo) RequireBranch(ctx context.Context, branch string) error {
	cur, err := r.CurrentBranch(ctx)
	if err != nil {
		return err
	}
	if cur != branch {
		return &BranchMovedError{Dir: r.Dir, Branch: branch, Head: cur}
	}
	return nil
}
