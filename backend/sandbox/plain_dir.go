package sandbox

// Request.Dir for the plain sandbox (Windows, macOS): the same refusals as
// on Linux (dir.go) where they still mean something. Without file
// isolation the code can write anywhere the user can, so nothing here
// keeps the code in Dir; the refusals keep a user's mistake (a home folder,
// a system folder, a whole drive as "the project") from becoming the cwd of
// code that is told it may change everything beneath it.

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
)

// plainSystemDirs are the system's own directories: never a run's Dir
// (on Windows, nothing beneath them either: Windows and the programs
// installed for every user).
func plainSystemDirs() []string {
	if runtime.GOOS == "windows" {
		var dirs []string
		for _, env := range []string{"SystemRoot", "ProgramFiles", "ProgramFiles(x86)", "ProgramData", "ProgramW6432"} {
			if v := os.Getenv(env); v != "" && filepath.IsAbs(v) {
				dirs = append(dirs, filepath.Clean(v))
			}
		}
		return dirs
	}
	return []string{"/System", "/Library", "/Applications", "/Users", "/usr", "/bin", "/sbin", "/etc",
		"/var", "/private", "/private/etc", "/private/var", "/private/tmp", "/tmp", "/opt", "/Volumes", "/dev"}
}

// foldCase: Windows and macOS (by default) name files case-insensitively.
var foldCase = runtime.GOOS == "windows" || runtime.GOOS == "darwin"

func samePath(a, b string) bool {
	if foldCase {
		return strings.EqualFold(a, b)
	}
	return a == b
}

// beneath reports whether p is dir or lies beneath it (both clean and
// absolute).
func beneath(p, dir string) bool {
	if samePath(p, dir) {
		return true
	}
	prefix := dir
	if !strings.HasSuffix(prefix, string(filepath.Separator)) {
		prefix += string(filepath.Separator)
	}
	return len(p) > len(prefix) && samePath(p[:len(prefix)], prefix)
}

// isVolumeRoot: "/", or "C:\" (and \\server\share\) on Windows.
func isVolumeRoot(p string) bool {
	return p == filepath.VolumeName(p)+string(filepath.Separator)
}

// checkDir validates a Request.Dir and returns it with symlinks resolved.
// The error is a *DirError.
func (r *plainRunner) checkDir(dir string) (string, error) {
	refuse := func(reason string, err error) (string, error) {
		return "", &DirError{Dir: dir, Reason: reason, Err: err}
	}
	real, err := resolveDir(dir)
	if err != nil {
		return "", err
	}
	if isVolumeRoot(real) {
		return refuse("is the root directory", nil)
	}
	if slices.ContainsFunc(r.homes, func(h string) bool { return samePath(h, real) }) {
		return refuse("is your home directory; choose a project folder inside it", nil)
	}
	for _, s := range plainSystemDirs() {
		if beneath(real, s) && (samePath(real, s) || runtime.GOOS == "windows") {
			return refuse("is a system directory", nil)
		}
	}
	for _, h := range r.homes {
		if beneath(h, real) {
			return refuse("contains your home directory ("+h+")", nil)
		}
	}
	if beneath(r.tempRoot, real) {
		return refuse("contains the sandbox's temp root ("+r.tempRoot+")", nil)
	}
	return real, nil
}
