package gitops

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// InitRepo makes a git repository with one commit in a temp dir.
func initRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"config", "user.email", "t@example.com"}, {"config", "user.name", "T"}} {
		gitT(t, dir, args...)
	}
	if err := os.WriteFile(filepath.Join(dir, "README"), []byte("hi\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gitT(t, dir, "add", "-A")
	gitT(t, dir, "commit", "-q", "-m", "init")
	return dir
}

func gitT(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

func TestBranchCommitDirty(t *testing.T) {
	ctx := context.Background()
	dir := initRepo(t)
	r, err := Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.RequireClean(ctx); err != nil {
		t.Fatal(err)
	}
	b, err := r.StartBranch(ctx, "Fix the Parser!", false)
	if err != nil || b != "loopforge/fix-the-parser" {
		t.Fatalf("branch = %q, %v", b, err)
	}
	if _, err := r.Commit(ctx, "nothing"); !errors.Is(err, ErrNothingToCommit) {
		t.Errorf("empty commit err = %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "new.txt"), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var de *DirtyError
	if err := r.RequireClean(ctx); !errors.As(err, &de) || !strings.Contains(err.Error(), "new.txt") {
		t.Fatalf("dirty err = %v", err)
	}
	d, err := r.Diff(ctx, 0)
	if err != nil || !strings.Contains(d, "+x") {
		t.Errorf("diff = %q, %v", d, err)
	}
	if st := gitT(t, dir, "status", "--porcelain"); st != "?? new.txt" {
		t.Errorf("Diff touched the index: %q", st)
	}
	hash, err := r.Commit(ctx, "loopforge: add new.txt")
	if err != nil || len(hash) != 40 {
		t.Fatalf("commit = %q, %v", hash, err)
	}
	if got := gitT(t, dir, "log", "-1", "--format=%s", "loopforge/fix-the-parser"); got != "loopforge: add new.txt" {
		t.Errorf("log = %q", got)
	}
	// Same slug again: a suffixed branch, or the same one when reusing.
	gitT(t, dir, "switch", "-q", "main")
	if b, _ := r.StartBranch(ctx, "fix the parser", false); b != "loopforge/fix-the-parser-2" {
		t.Errorf("second branch = %q", b)
	}
	if b, _ := r.StartBranch(ctx, "fix the parser", true); b != "loopforge/fix-the-parser" {
		t.Errorf("reused branch = %q", b)
	}
	if _, err := Open(ctx, t.TempDir()); !errors.Is(err, ErrNotRepo) {
		t.Errorf("non-repo err = %v", err)
	}
}

func TestWorktrees(t *testing.T) {
	ctx := context.Background()
	dir := initRepo(t)
	r, _ := Open(ctx, dir)
	a, err := r.AddWorktree(ctx, filepath.Join(t.TempDir(), "a"), "loopforge/cmp-a")
	if err != nil {
		t.Fatal(err)
	}
	b, err := r.AddWorktree(ctx, filepath.Join(t.TempDir(), "b"), "loopforge/cmp-b")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(a.Dir, "README"), []byte("from a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(b.Dir, "README"), []byte("from b\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Commit(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Commit(ctx, "b"); err != nil {
		t.Fatal(err)
	}
	if got := gitT(t, dir, "show", "loopforge/cmp-a:README"); got != "from a" {
		t.Errorf("a = %q", got)
	}
	if got := gitT(t, dir, "show", "loopforge/cmp-b:README"); got != "from b" {
		t.Errorf("b = %q", got)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "README")); string(got) != "hi\n" {
		t.Errorf("main work tree changed: %q", got)
	}
	if err := r.RemoveWorktree(ctx, a.Dir); err != nil {
		t.Error(err)
	}
}

func TestSlug(t *testing.T) {
	for in, want := range map[string]string{"": "run", "Olá, mundo!": "ol-mundo", "a--b": "a-b", strings.Repeat("x", 50): strings.Repeat("x", 40)} {
		if got := Slug(in); got != want {
			t.Errorf("Slug(%q) = %q; want %q", in, got, want)
		}
	}
}
