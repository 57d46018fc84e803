// Package gitops drives the git CLI for workspace runs: refuse a dirty
// workdir, put the run on a loopforge/<slug> feature branch, commit only a
// validated result, and give each provider of a comparison its own worktree.
//
// Every call runs `git -C <dir> ...` through exec.CommandContext with a
// non-interactive environment; a failing git command is a *Error carrying its
// arguments, exit code and stderr.
package gitops

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// BranchPrefix starts every branch loopforge creates.
const BranchPrefix = "loopforge/"

// Error is a git command that failed.
type Error struct {
	Args     []string
	ExitCode int
	Stderr   string
	Err      error
}

func (e *Error) Error() string {
	msg := strings.TrimSpace(e.Stderr)
	if msg == "" && e.Err != nil {
		msg = e.Err.Error()
	}
	return fmt.Sprintf("git %s: exit %d: %s", strings.Join(e.Args, " "), e.ExitCode, msg)
}

func (e *Error) Unwrap() error { return e.Err }

// ErrNotRepo: the directory is not inside a git work tree.
var ErrNotRepo = errors.New("not a git repository")

// ErrNothingToCommit: Commit found no change.
var ErrNothingToCommit = errors.New("nothing to commit")

// DirtyError refuses a workdir with uncommitted changes, so loopforge never
// mixes its edits with the user's.
type DirtyError struct {
	Dir     string
	Changes []string // `git status --porcelain` lines
}

func (e *DirtyError) Error() string {
	show := e.Changes
	more := ""
	if len(show) > 5 {
		show, more = show[:5], fmt.Sprintf(" (and %d more)", len(e.Changes)-5)
	}
	return fmt.Sprintf("the workdir %s has uncommitted changes (%s%s); commit or stash them first, so loopforge's edits stay separate from yours",
		e.Dir, strings.Join(show, "; "), more)
}

// Repo is a git work tree.
type Repo struct {
	Dir string // the work tree's top level
}

// Timeout bounds one git command.
const Timeout = 2 * time.Minute

// Open finds the work tree that contains dir.
func Open(ctx context.Context, dir string) (*Repo, error) {
	if _, err := exec.LookPath("git"); err != nil {
		return nil, fmt.Errorf("git is not installed (needed for workspace mode): %w", err)
	}
	out, err := run(ctx, dir, "rev-parse", "--show-toplevel")
	if err != nil {
		var ge *Error
		if errors.As(err, &ge) && strings.Contains(ge.Stderr, "not a git repository") {
			return nil, fmt.Errorf("%s: %w (run `git init` and commit, or choose another folder)", dir, ErrNotRepo)
		}
		return nil, err
	}
	return &Repo{Dir: strings.TrimSpace(out)}, nil
}

// Git runs one git command in the work tree and returns its stdout.
func (r *Repo) Git(ctx context.Context, args ...string) (string, error) {
	return run(ctx, r.Dir, args...)
}

func run(ctx context.Context, dir string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	// Code under test may write into the repository: never run its hooks or
	// an fsmonitor it configured (Guard detects config changes as well).
	base := []string{"-C", dir, "-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false"}
	cmd := exec.CommandContext(ctx, "git", append(base, args...)...)
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "GIT_OPTIONAL_LOCKS=0", "LC_ALL=C")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	killGroupOnCancel(cmd)
	cmd.WaitDelay = 2 * time.Second
	err := cmd.Run()
	if err != nil {
		ge := &Error{Args: args, ExitCode: -1, Stderr: capString(stderr.String(), 4000), Err: err}
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			ge.ExitCode = ee.ExitCode()
		}
		if ctx.Err() != nil {
			ge.Err = ctx.Err()
		}
		return stdout.String(), ge
	}
	return stdout.String(), nil
}

func capString(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// Status returns `git status --porcelain` lines (untracked files included,
// ignored ones not).
func (r *Repo) Status(ctx context.Context) ([]string, error) {
	out, err := r.Git(ctx, "status", "--porcelain", "--untracked-files=all")
	if err != nil {
		return nil, err
	}
	var lines []string
	for _, l := range strings.Split(out, "\n") {
		if strings.TrimSpace(l) != "" {
			lines = append(lines, l)
		}
	}
	return lines, nil
}

// RequireClean returns a *DirtyError when the work tree has changes.
func (r *Repo) RequireClean(ctx context.Context) error {
	ch, err := r.Status(ctx)
	if err != nil {
		return err
	}
	if len(ch) > 0 {
		return &DirtyError{Dir: r.Dir, Changes: ch}
	}
	return nil
}

// CurrentBranch is the checked-out branch ("" on a detached HEAD).
func (r *Repo) CurrentBranch(ctx context.Context) (string, error) {
	out, err := r.Git(ctx, "symbolic-ref", "--quiet", "--short", "HEAD")
	if err != nil {
		var ge *Error
		if errors.As(err, &ge) && ge.ExitCode == 1 {
			return "", nil
		}
		return "", err
	}
	return strings.TrimSpace(out), nil
}

// BranchExists reports whether refs/heads/name exists.
func (r *Repo) BranchExists(ctx context.Context, name string) (bool, error) {
	_, err := r.Git(ctx, "show-ref", "--verify", "--quiet", "refs/heads/"+name)
	if err == nil {
		return true, nil
	}
	var ge *Error
	if errors.As(err, &ge) && ge.ExitCode == 1 {
		return false, nil
	}
	return false, err
}

// HasCommits reports whether HEAD points at a commit (false in a fresh
// `git init`).
func (r *Repo) HasCommits(ctx context.Context) bool {
	_, err := r.Git(ctx, "rev-parse", "--verify", "--quiet", "HEAD")
	return err == nil
}

// StartBranch switches to the feature branch loopforge/<slug>. When reuse is
// set and the branch exists it is checked out (a follow-up run of the same
// session); otherwise an existing name gets a numeric suffix (-2, -3 ...) and
// a new branch is created from HEAD. It returns the branch name.
func (r *Repo) StartBranch(ctx context.Context, slug string, reuse bool) (string, error) {
	base := BranchPrefix + Slug(slug)
	if cur, err := r.CurrentBranch(ctx); err == nil && cur == base && reuse {
		return base, nil
	}
	name := base
	for i := 2; ; i++ {
		exists, err := r.BranchExists(ctx, name)
		if err != nil {
			return "", err
		}
		if !exists {
			break
		}
		if reuse && name == base {
			if _, err := r.Git(ctx, "switch", name); err != nil {
				return "", err
			}
			return name, nil
		}
		name = base + "-" + strconv.Itoa(i)
		if i > 1000 {
			return "", fmt.Errorf("no free branch name for %s", base)
		}
	}
	if _, err := r.Git(ctx, "switch", "-c", name); err != nil {
		return "", err
	}
	return name, nil
}

// Commit stages every change (git add -A, honouring .gitignore) and commits
// it with message. It returns the new commit's hash, or ErrNothingToCommit.
// A repository without user.name/user.email gets loopforge as the author
// rather than a failed commit.
func (r *Repo) Commit(ctx context.Context, message string) (string, error) {
	if _, err := r.Git(ctx, "add", "-A"); err != nil {
		return "", err
	}
	if _, err := r.Git(ctx, "diff", "--cached", "--quiet"); err == nil {
		return "", ErrNothingToCommit
	}
	args := []string{}
	if email, _ := r.Git(ctx, "config", "user.email"); strings.TrimSpace(email) == "" {
		args = append(args, "-c", "user.name=loopforge", "-c", "user.email=loopforge@localhost")
	}
	args = append(args, "commit", "--quiet", "-m", message)
	if _, err := r.Git(ctx, args...); err != nil {
		return "", err
	}
	out, err := r.Git(ctx, "rev-parse", "HEAD")
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(out), nil
}

// Diff is the patch of the work tree against HEAD, untracked files included
// (shown as new files), capped at max bytes. It leaves the index alone.
func (r *Repo) Diff(ctx context.Context, max int) (string, error) {
	var b strings.Builder
	if r.HasCommits(ctx) {
		out, err := r.Git(ctx, "diff", "--no-ext-diff", "--no-textconv", "HEAD")
		if err != nil {
			return "", err
		}
		b.WriteString(out)
	}
	others, err := r.Git(ctx, "ls-files", "--others", "--exclude-standard", "-z")
	if err != nil {
		return "", err
	}
	for _, f := range strings.Split(others, "\x00") {
		if f == "" || (max > 0 && b.Len() > max) {
			continue
		}
		// --no-index exits 1 when the files differ, which they always do.
		out, err := r.Git(ctx, "diff", "--no-ext-diff", "--no-textconv", "--no-index", "--", "/dev/null", f)
		var ge *Error
		if err != nil && !(errors.As(err, &ge) && ge.ExitCode == 1) {
			return "", err
		}
		b.WriteString(out)
	}
	s := b.String()
	if max > 0 && len(s) > max {
		s = s[:max] + "\n… [diff cut]\n"
	}
	return s, nil
}

// AddWorktree creates a new work tree at path on a new branch made from
// HEAD, so providers of a comparison edit separate copies.
func (r *Repo) AddWorktree(ctx context.Context, path, branch string) (*Repo, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	if _, err := r.Git(ctx, "worktree", "add", "-b", branch, abs, "HEAD"); err != nil {
		return nil, err
	}
	return Open(ctx, abs)
}

// RemoveWorktree deletes a work tree made by AddWorktree (its branch stays).
func (r *Repo) RemoveWorktree(ctx context.Context, path string) error {
	_, err := r.Git(ctx, "worktree", "remove", "--force", path)
	return err
}

var nonSlug = regexp.MustCompile(`[^a-z0-9]+`)

// Slug turns a session title or id into a branch-name segment: lower case,
// ASCII letters and digits joined by '-', at most 40 characters.
func Slug(s string) string {
	s = nonSlug.ReplaceAllString(strings.ToLower(s), "-")
	s = strings.Trim(s, "-")
	if len(s) > 40 {
		s = strings.TrimRight(s[:40], "-")
	}
	if s == "" {
		s = "run"
	}
	return s
}
