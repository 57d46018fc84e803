package service

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopforge/loopforge/backend/config"
	"github.com/loopforge/loopforge/backend/gitops"
	"github.com/loopforge/loopforge/backend/provider"
)

func testRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"config", "user.email", "t@example.com"}, {"config", "user.name", "T"}, {"commit", "-q", "--allow-empty", "-m", "init"}} {
		if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return dir
}

func TestWorkspaceRunRequests(t *testing.T) {
	ctx := context.Background()
	svc := newService(t, &echoModel{answers: []string{"nothing to do", "nothing to do"}})
	// A provider that can neither call tools nor edit files itself is refused.
	dir := testRepo(t)
	_, err := svc.StartRun(ctx, RunRequest{Prompt: "x", Provider: "fake", Mode: "workspace", Workdir: dir})
	if !errors.Is(err, ErrInvalidRequest) || !strings.Contains(err.Error(), "cannot edit files") {
		t.Fatalf("err = %v", err)
	}
	// A coding-CLI kind may; a dirty workdir is refused before anything is recorded.
	svc.cfg.Profiles["editor"] = provider.Profile{Name: "editor", Kind: config.KindClaude}
	svc.reg[config.KindClaude] = func(provider.Profile) (provider.Provider, error) {
		return namedModel{&echoModel{answers: []string{"done"}}}, nil
	}
	os.WriteFile(filepath.Join(dir, "mine.txt"), []byte("wip"), 0o644)
	_, err = svc.StartRun(ctx, RunRequest{Prompt: "x", Provider: "editor", Mode: "workspace", Workdir: dir, Validate: []string{"true"}})
	var de *gitops.DirtyError
	if !errors.As(err, &de) || !errors.Is(err, ErrInvalidRequest) {
		t.Fatalf("dirty err = %v", err)
	}
	if list, _ := svc.Sessions(ctx, "", 10); len(list) != 0 {
		t.Fatalf("a session was written: %+v", list)
	}
	os.Remove(filepath.Join(dir, "mine.txt"))
	info, err := svc.StartRun(ctx, RunRequest{Prompt: "Tidy up", Provider: "editor", Mode: "workspace", Workdir: dir, Validate: []string{"true"}})
	if err != nil {
		t.Fatal(err)
	}
	run, err := svc.Wait(ctx, info.RunID)
	if err != nil || run.Status != "success" {
		t.Fatalf("run = %+v, %v", run, err)
	}
	out, _ := exec.Command("git", "-C", dir, "branch", "--show-current").Output()
	if !strings.HasPrefix(string(out), "loopforge/tidy-up-") {
		t.Errorf("branch = %q", out)
	}
	if m, _ := filepath.Glob(filepath.Join(dir, ".loopforge/runs/*.json")); len(m) != 1 {
		t.Errorf("metadata files = %v", m)
	}
	// Script mode refuses workspace-only options.
	if _, err := svc.StartRun(ctx, RunRequest{Prompt: "x", Provider: "fake", Validate: []string{"true"}}); !errors.Is(err, ErrInvalidRequest) {
		t.Errorf("script + validate err = %v", err)
	}
}
