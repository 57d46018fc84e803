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
