package service

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestSetWorkdir(t *testing.T) {
	svc := newService(t, &echoModel{answers: []string{"print(1)"}})
	dir := t.TempDir()
	file := filepath.Join(dir, "f.txt")
	_ = os.WriteFile(file, nil, 0o600)
	for _, bad := range []string{"", filepath.Join(dir, "missing"), file} {
		if _, err := svc.SetWorkdir(bad); !errors.Is(err, ErrInvalidRequest) {
			t.Errorf("%q accepted: %v", bad, err)
		}
	}
	if svc.Workdir() != "" {
		t.Fatal("a refused path was kept")
	}
	got, err := svc.SetWorkdir(dir + "/.")
	want, _ := filepath.EvalSymlinks(dir)
	if err != nil || got != want || svc.Workdir() != want {
		t.Fatalf("%q %v, want %q", got, err, want)
	}
}

func TestFolders(t *testing.T) {
	svc := newService(t, &echoModel{answers: []string{"print(1)"}})
	root := t.TempDir()
	for _, d := range []string{"b", "a", ".hidden"} {
		_ = os.Mkdir(filepath.Join(root, d), 0o700)
	}
	_ = os.WriteFile(filepath.Join(root, "file.txt"), nil, 0o600)
	l, err := svc.Folders(root)
	if err != nil {
		t.Fatal(err)
	}
	if l.Path != root || l.Parent != filepath.Dir(root) || len(l.Folders) != 2 || l.Folders[0].Name != "a" || l.Folders[1].Path != filepath.Join(root, "b") {
		t.Fatalf("%+v", l)
	}
	if _, err := svc.Folders(filepath.Join(root, "missing")); !errors.Is(err, ErrInvalidRequest) {
		t.Fatalf("%v", err)
	}
	if _, err := svc.SetWorkdir(root); err != nil {
		t.Fatal(err)
	}
	if l, err := svc.Folders(""); err != nil || l.Path != root {
		t.Fatalf("empty path starts at the workdir: %+v %v", l, err)
	}
	t.Setenv("HOME", filepath.Join(root, "a"))
	_ = os.RemoveAll(root + "/b")
	if _, err := svc.SetWorkdir(filepath.Join(root, "b")); err == nil {
		t.Fatal("a missing folder was accepted")
	}
	gone := t.TempDir()
	_, _ = svc.SetWorkdir(gone)
	_ = os.RemoveAll(gone)
	if l, err := svc.Folders(""); err != nil || l.Path != filepath.Join(root, "a") {
		t.Fatalf("a deleted workdir falls back to home: %+v %v", l, err)
	}
}
