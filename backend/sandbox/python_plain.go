//go:build !linux

package sandbox

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// askPython asks an interpreter (or a launcher: `py -3`, a pyenv shim) for
// the binary it runs, sys.executable; "" when it does not answer with an
// existing absolute path. The real binary starts faster than a launcher and
// is what the sandbox puts first on the code's PATH.
func askPython(exe string, args ...string) string {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe, append(args, "-c", "import sys; print(sys.executable)")...)
	hideWindow(cmd)
	out, err := cmd.Output()
	if err != nil {
		return ""
	}
	p := strings.TrimSpace(string(out))
	if !filepath.IsAbs(p) {
		return ""
	}
	if fi, err := os.Stat(p); err != nil || !fi.Mode().IsRegular() {
		return ""
	}
	return p
}

// pythonOnPath looks for name (no extension) in the directories of PATH
// in order, skipping relative ones and those skip rejects; "" when none
// has it. exec.LookPath stops at the first match, which may be a stand-in
// (the Microsoft Store's) that does not run Python.
func pythonOnPath(name string, skip func(dir string) bool) string {
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		if dir == "" || !filepath.IsAbs(dir) || skip(dir) {
			continue
		}
		if p, err := exec.LookPath(filepath.Join(dir, name)); err == nil {
			return p
		}
	}
	return ""
}

// findNode resolves the Node.js binary once: node on PATH, else where its
// installers put it (a desktop app's PATH often lacks those directories);
// "" when there is none.
func findNode(explicit string) string {
	if explicit != "" {
		p, err := exec.LookPath(explicit)
		if err != nil {
			return ""
		}
		return absPath(p)
	}
	if p, err := exec.LookPath("node"); err == nil {
		return absPath(p)
	}
	for _, p := range nodeInstalls() {
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			return p
		}
	}
	return ""
}

func absPath(p string) string {
	if abs, err := filepath.Abs(p); err == nil {
		return abs
	}
	return p
}

// pathWith is a PATH of the interpreters' directories, then sys.
func pathWith(sys []string, exes ...string) string {
	var dirs []string
	for _, exe := range exes {
		if exe == "" {
			continue
		}
		if d := filepath.Dir(exe); !containsPath(dirs, d) && !containsPath(sys, d) {
			dirs = append(dirs, d)
		}
	}
	return strings.Join(append(dirs, sys...), string(filepath.ListSeparator))
}

func containsPath(list []string, p string) bool {
	for _, x := range list {
		if samePath(x, p) {
			return true
		}
	}
	return false
}
