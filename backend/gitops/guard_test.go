package gitops

import (
	"context"
	"crypto/sha256"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// guardedRepo is a repository to guard: the work tree, and the directories
// git keeps its per-worktree and shared files in (the same one in a normal
// repository).
type guardedRepo struct {
	repo           *Repo
	gitDir, common string
}

// layouts: a normal repository (.git is a directory) and a linked worktree
// (.git is a file pointing into the main repository's .git/worktrees).
var layouts = []struct {
	name string
	make func(t *testing.T) guardedRepo
}{
	{"normal repo", func(t *testing.T) guardedRepo {
		dir := initRepo(t)
		r, err := Open(context.Background(), dir)
		if err != nil {
			t.Fatal(err)
		}
		return guardedRepo{repo: r, gitDir: filepath.Join(dir, ".git"), common: filepath.Join(dir, ".git")}
	}},
	{"worktree", func(t *testing.T) guardedRepo {
		ctx := context.Background()
		dir := initRepo(t)
		main, err := Open(ctx, dir)
		if err != nil {
			t.Fatal(err)
		}
		wt, err := main.AddWorktree(ctx, filepath.Join(t.TempDir(), "wt"), BranchPrefix+"guarded")
		if err != nil {
			t.Fatal(err)
		}
		gitDir := gitT(t, wt.Dir, "rev-parse", "--absolute-git-dir")
		return guardedRepo{repo: wt, gitDir: gitDir, common: filepath.Join(dir, ".git")}
	}},
}

func fileSum(t *testing.T, path string) [32]byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return sha256.Sum256(b)
}

// Git's own bookkeeping — the index loopforge's `git diff HEAD` refreshes,
// the objects, refs and logs a commit writes, ORIG_HEAD — is no tampering.
func TestGuardIgnoresGitBookkeeping(t *testing.T) {
	ctx := context.Background()
	for _, l := range layouts {
		t.Run(l.name, func(t *testing.T) {
			gr := l.make(t)
			dir := gr.repo.Dir
			g, err := gr.repo.Guard(ctx)
			if err != nil {
				t.Fatal(err)
			}
			index := filepath.Join(gr.gitDir, "index")
			before := fileSum(t, index)
			if err := g.Begin("the model (provider codex)"); err != nil {
				t.Fatal(err)
			}
			// Same content, new mtime: the next diff refreshes the index.
			later := time.Now().Add(3 * time.Second)
			if err := os.Chtimes(filepath.Join(dir, "README"), later, later); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "new.txt"), []byte("new\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if _, err := gr.repo.Diff(ctx, 0); err != nil {
				t.Fatal(err)
			}
			gitT(t, dir, "diff", "HEAD") // as a test suite would: optional locks allowed
			gitT(t, dir, "status", "--porcelain")
			gitT(t, dir, "add", "-A")
			gitT(t, dir, "commit", "-q", "-m", "by the model")
			gitT(t, dir, "reset", "-q", "--soft", "HEAD") // writes ORIG_HEAD
			if err := g.Check(); err != nil {
				t.Fatalf("git's bookkeeping tripped the guard: %v", err)
			}
			if fileSum(t, index) == before {
				t.Fatal("the index did not change: the test proves nothing")
			}
			// loopforge's own git calls, between windows.
			if err := os.WriteFile(filepath.Join(dir, "more.txt"), []byte("more\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if _, err := gr.repo.Diff(ctx, 0); err != nil {
				t.Fatal(err)
			}
			if _, err := gr.repo.Commit(ctx, "by loopforge"); err != nil {
				t.Fatal(err)
			}
			if err := g.Check(); err != nil {
				t.Fatalf("loopforge's commit tripped the guard: %v", err)
			}
		})
	}
}

func TestGuardNoticesControlFileChanges(t *testing.T) {
	ctx := context.Background()
	const actor = "validation command `make test`"
	for _, tc := range []struct {
		name         string
		worktreeOnly bool
		setup        func(t *testing.T, gr guardedRepo) // before the Guard is made
		tamper       func(t *testing.T, gr guardedRepo)
		want         string // the end of the path reported
	}{
		{name: "a new hook", tamper: func(t *testing.T, gr guardedRepo) {
			write(t, filepath.Join(gr.common, "hooks", "pre-commit"), "#!/bin/sh\n", 0o755)
		}, want: filepath.Join("hooks", "pre-commit")},
		{name: "a hook made executable", setup: func(t *testing.T, gr guardedRepo) {
			write(t, filepath.Join(gr.common, "hooks", "pre-push"), "#!/bin/sh\n", 0o644)
		}, tamper: func(t *testing.T, gr guardedRepo) {
			if err := os.Chmod(filepath.Join(gr.common, "hooks", "pre-push"), 0o755); err != nil {
				t.Fatal(err)
			}
		}, want: filepath.Join("hooks", "pre-push")},
		{name: "core.fsmonitor in the config", tamper: func(t *testing.T, gr guardedRepo) {
			gitT(t, gr.repo.Dir, "config", "core.fsmonitor", "touch /tmp/x")
		}, want: "config"},
		{name: "info/attributes", tamper: func(t *testing.T, gr guardedRepo) {
			write(t, filepath.Join(gr.common, "info", "attributes"), "* filter=evil\n", 0o644)
		}, want: filepath.Join("info", "attributes")},
		{name: "the worktree's .git file", worktreeOnly: true, tamper: func(t *testing.T, gr guardedRepo) {
			write(t, filepath.Join(gr.repo.Dir, ".git"), "gitdir: "+filepath.Join(gr.repo.Dir, "fake")+"\n", 0o644)
		}, want: ".git"},
		{name: "the worktree's config.worktree", worktreeOnly: true, tamper: func(t *testing.T, gr guardedRepo) {
			write(t, filepath.Join(gr.gitDir, "config.worktree"), "[core]\n\tfsmonitor = touch /tmp/x\n", 0o644)
		}, want: "config.worktree"},
		{name: "the worktree's commondir", worktreeOnly: true, tamper: func(t *testing.T, gr guardedRepo) {
			write(t, filepath.Join(gr.gitDir, "commondir"), "/elsewhere\n", 0o644)
		}, want: "commondir"},
	} {
		for _, l := range layouts {
			if tc.worktreeOnly && l.name != "worktree" {
				continue
			}
			t.Run(tc.name+"/"+l.name, func(t *testing.T) {
				gr := l.make(t)
				if tc.setup != nil {
					tc.setup(t, gr)
				}
				g, err := gr.repo.Guard(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if err := g.Begin(actor); err != nil {
					t.Fatal(err)
				}
				tc.tamper(t, gr)
				err = g.Check()
				var te *TamperError
				if !errors.As(err, &te) {
					t.Fatalf("want a *TamperError, got %v", err)
				}
				if te.Actor != actor || !strings.Contains(err.Error(), "while "+actor+" was working") {
					t.Errorf("actor = %q: %v", te.Actor, err)
				}
				if len(te.Changed) != 1 || !strings.HasSuffix(te.Changed[0], tc.want) || !strings.Contains(err.Error(), tc.want) {
					t.Errorf("changed = %q, want one path ending in %s", te.Changed, tc.want)
				}
			})
		}
	}
}

// A change is never accepted, and one made between windows is not blamed
// on the next actor.
func TestGuardAttributesChangesToTheirWindow(t *testing.T) {
	ctx := context.Background()
	gr := layouts[0].make(t)
	g, err := gr.repo.Guard(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Begin("the model (provider codex)"); err != nil {
		t.Fatal(err)
	}
	if err := g.Check(); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(gr.common, "hooks", "post-checkout"), "#!/bin/sh\n", 0o755)
	err = g.Begin("validation command `sh test.sh`")
	var te *TamperError
	if !errors.As(err, &te) || !strings.HasPrefix(te.Actor, "another program") || !strings.Contains(te.Actor, "the model (provider codex)") {
		t.Fatalf("a change between windows: %v", err)
	}
	if err := g.Check(); !errors.As(err, &te) {
		t.Fatalf("the change was accepted: %v", err)
	}
}

func TestRequireBranch(t *testing.T) {
	ctx := context.Background()
	dir := initRepo(t)
	r, err := Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	b, err := r.StartBranch(ctx, "work", false)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.RequireBranch(ctx, b); err != nil {
		t.Fatal(err)
	}
	var be *BranchMovedError
	gitT(t, dir, "switch", "-q", "main")
	if err := r.RequireBranch(ctx, b); !errors.As(err, &be) || be.Head != "main" || !strings.Contains(err.Error(), "branch main") {
		t.Errorf("on main: %v", err)
	}
	gitT(t, dir, "switch", "-q", "--detach", b)
	if err := r.RequireBranch(ctx, b); !errors.As(err, &be) || be.Head != "" || !strings.Contains(err.Error(), "detached HEAD") {
		t.Errorf("detached: %v", err)
	}
}

func write(t *testing.T, path, content string, perm os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), perm); err != nil {
		t.Fatal(err)
	}
}
