//go:build linux

package sandbox

// Request.Dir: running in the user's project directory (workspace mode).
// The directory is validated here, before anything starts; the layers then
// add it as a second writable place next to the run dir (landlock.go's RW
// rule, bwrap.go's read-write bind at the same path).

import (
	"cmp"
	"slices"
	"strings"
)

// sharedDirs may never be a run's Dir themselves: making one writable would
// open the whole system, or every user's files, to the code.
var sharedDirs = []string{
	"/etc", "/boot", "/dev", "/proc", "/sys", "/run", "/var", "/var/tmp", "/tmp", "/dev/shm",
	"/home", "/root", "/usr/local", "/opt", "/srv", "/mnt", "/media", "/snap", "/nix", "/nix/store",
}

// kernelFS are pseudo file systems: no project lives beneath them.
var kernelFS = []string{"/proc", "/sys", "/dev"}

// within reports whether p is dir or lies beneath it (both clean and
// absolute).
func within(p, dir string) bool {
	return p == dir || dir == "/" || strings.HasPrefix(p, dir+"/")
}

// checkDir validates a Request.Dir and returns it with symlinks resolved
// (resolveDir). The error is a *DirError.
func (r *Runner) checkDir(dir string) (string, error) {
	refuse := func(reason string, err error) (string, error) {
		return "", &DirError{Dir: dir, Reason: reason, Err: err}
	}
	real, err := resolveDir(dir)
	if err != nil {
		return "", err
	}
	if real == "/" {
		return refuse("is the root directory", nil)
	}
	if slices.Contains(r.homes, real) {
		return refuse("is your home directory; choose a project folder inside it", nil)
	}
	if slices.Contains(systemDirs, real) || slices.Contains(sharedDirs, real) {
		return refuse("is a system directory", nil)
	}
	for _, k := range kernelFS {
		if within(real, k) {
			return refuse("is in a kernel file system ("+k+")", nil)
		}
	}
	for _, h := range r.homes {
		if within(h, real) {
			return refuse("contains your home directory ("+h+")", nil)
		}
	}
	for _, s := range etcSecrets {
		if within(real, s) || within(s, real) {
			return refuse("holds system credentials ("+s+")", nil)
		}
	}
	if within(r.tempRoot, real) {
		return refuse("contains the sandbox's temp root ("+r.tempRoot+")", nil)
	}
	// The shim runs before any layer applies, so a shim the code could
	// rewrite would run unconfined next time. bwrap binds it read-only over
	// Dir; without a mount namespace nothing can keep it read-only.
	if self := cmp.Or(resolved(r.self), r.self); r.bwrap == nil && within(self, real) {
		return refuse("contains the sandbox's own program ("+self+"), which the code could rewrite at this isolation level", nil)
	}
	return real, nil
}
