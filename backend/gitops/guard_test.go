package gitops

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestGuardNoticesControlFileChanges(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name   string
		tamper func(t *testing.T, dir, wt string)
		want   string // "" = no change reported
	}{
		{"ordinary edits", func(t *testing.T, dir, wt string) {
			os.WriteFile(filepath.Join(wt, "a.txt"), []byte("changed"), 0o644)
			os.WriteFile(filepath.Join(wt, "new.txt"), []byte("new"), 0o644)
		}, ""},
		{"a hook", func(t *testing.T, dir, wt string) {
			os.WriteFile(filepath.Join(dir, ".git", "hooks", "pre-commit"), []byte("#!/bin/sh\n"), 0o755)
		}, "hooks"},
		{"the config", func(t *testing.T, dir, wt string) {
			gitT(t, wt, "config", "core.fsmonitor", "touch /tmp/x")
		}, "config"},
		{"attributes", func(t *testing.T, dir, wt string) {
			os.WriteFile(filepath.Join(dir, ".git", "info", "attributes"), []byte("* filter=evil\n"), 0o644)
		}, "attributes"},
		{"the worktree's .git file", func(t *testing.T, dir, wt string) {
			os.WriteFile(filepath.Join(wt, ".git"), []byte("gitdir: "+filepath.Join(wt, "fake")+"\n"), 0o644)
		}, ".git"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := initRepo(t)
			os.MkdirAll(filepath.Join(dir, ".git", "info"), 0o755)
			main, err := Open(ctx, dir)
			if err != nil {
				t.Fatal(err)
			}
			wtRepo, err := main.AddWorktree(ctx, filepath.Join(t.TempDir(), "wt"), BranchPrefix+"guarded")
			if err != nil {
				t.Fatal(err)
			}
			g, err := wtRepo.Guard(ctx)
			if err != nil {
				t.Fatal(err)
			}
			tc.tamper(t, dir, wtRepo.Dir)
			err = g.Check()
			var te *TamperError
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("no control file changed, yet: %v", err)
			case tc.want != "" && (!errors.As(err, &te) || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("want a TamperError naming %q, got %v", tc.want, err)
			}
		})
	}
}
