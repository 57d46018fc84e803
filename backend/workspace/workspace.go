// Package workspace gives path-confined access to one project folder (the
// workdir): the file tools offered to API models, the commands that validate
// the project, and loopforge's own artifacts under .loopforge/.
//
// Confinement contract: every path a caller (or a model) passes is relative to
// the workdir. Absolute paths, paths that climb out with "..", and paths that
// reach outside through a symlink are refused with a *Error naming the path,
// before anything is read or written. Operations then go through an os.Root
// opened on the workdir, so a symlink swapped in between the check and the
// use still cannot escape (the kernel-level check is os.Root's).
package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Error is a refused or failed workspace operation on Path. Err, when set,
// is the underlying cause.
type Error struct {
	Op     string // read, write, list, search, patch, resolve
	Path   string // as given by the caller
	Reason string
	Err    error
}

func (e *Error) Error() string {
	msg := fmt.Sprintf("workspace: %s %q: %s", e.Op, e.Path, e.Reason)
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

func (e *Error) Unwrap() error { return e.Err }

// ErrOutside is wrapped by every *Error that refuses a path leaving the
// workdir, so callers can test errors.Is(err, ErrOutside).
var ErrOutside = errors.New("path leaves the workspace")

// Workspace is one confined folder. It is safe for concurrent use.
type Workspace struct {
	root string // absolute, symlinks resolved
	fsys *os.Root
}

// Open confines access to dir, which must exist and be a directory.
func Open(dir string) (*Workspace, error) {
	if dir == "" {
		return nil, &Error{Op: "open", Path: dir, Reason: "no workdir given"}
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, &Error{Op: "open", Path: dir, Reason: "cannot make the path absolute", Err: err}
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, &Error{Op: "open", Path: dir, Reason: "cannot resolve the workdir", Err: err}
	}
	st, err := os.Stat(real)
	if err != nil {
		return nil, &Error{Op: "open", Path: dir, Reason: "cannot stat the workdir", Err: err}
	}
	if !st.IsDir() {
		return nil, &Error{Op: "open", Path: dir, Reason: "not a directory"}
	}
	root, err := os.OpenRoot(real)
	if err != nil {
		return nil, &Error{Op: "open", Path: dir, Reason: "cannot open the workdir", Err: err}
	}
	return &Workspace{root: real, fsys: root}, nil
}

// Close releases the directory handle.
func (w *Workspace) Close() error { return w.fsys.Close() }

// Root is the workdir's absolute path with symlinks resolved.
func (w *Workspace) Root() string { return w.root }

// Resolve checks that p stays inside the workdir and returns it cleaned and
// relative to the root ("." for the root itself). Symlinks along the existing
// part of the path are followed and must land inside the workdir too.
func (w *Workspace) Resolve(p string) (string, error) {
	return w.resolve("resolve", p)
}

func (w *Workspace) resolve(op, p string) (string, error) {
	if strings.ContainsRune(p, 0) {
		return "", &Error{Op: op, Path: p, Reason: "the path contains a NUL byte"}
	}
	if p == "" {
		p = "."
	}
	if filepath.IsAbs(p) || strings.HasPrefix(p, "/") {
		return "", &Error{Op: op, Path: p, Reason: "absolute paths are refused; give a path relative to the workspace", Err: ErrOutside}
	}
	rel := filepath.Clean(p)
	if rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", &Error{Op: op, Path: p, Reason: "the path climbs out of the workspace", Err: ErrOutside}
	}
	// Follow symlinks on the longest existing prefix: a link that points
	// outside makes the whole path refused, even for a file not yet created.
	full := filepath.Join(w.root, rel)
	existing, rest := full, ""
	for {
		if _, err := os.Lstat(existing); err == nil {
			break
		}
		parent := filepath.Dir(existing)
		if parent == existing || len(parent) < len(w.root) {
			break
		}
		rest = filepath.Join(filepath.Base(existing), rest)
		existing = parent
	}
	real, err := filepath.EvalSymlinks(existing)
	if err != nil {
		return "", &Error{Op: op, Path: p, Reason: "cannot resolve the path", Err: err}
	}
	if !within(w.root, real) {
		return "", &Error{Op: op, Path: p, Reason: "a symlink on the path points outside the workspace", Err: ErrOutside}
	}
	out, err := filepath.Rel(w.root, filepath.Join(real, rest))
	if err != nil || !within(w.root, filepath.Join(w.root, out)) {
		return "", &Error{Op: op, Path: p, Reason: "the path leaves the workspace", Err: ErrOutside}
	}
	return out, nil
}

// resolveWrite also refuses the repository's own metadata: a model writing
// .git/hooks would get code run by the next git command.
func (w *Workspace) resolveWrite(op, p string) (string, error) {
	rel, err := w.resolve(op, p)
	if err != nil {
		return "", err
	}
	if rel == "." {
		return "", &Error{Op: op, Path: p, Reason: "the workspace root is not a file"}
	}
	first, _, _ := strings.Cut(filepath.ToSlash(rel), "/")
	if first == ".git" {
		return "", &Error{Op: op, Path: p, Reason: "the .git directory is not writable through the workspace"}
	}
	return rel, nil
}

func within(root, p string) bool {
	return p == root || strings.HasPrefix(p, root+string(filepath.Separator))
}

// MaxReadBytes caps ReadFile: a model asking for a huge file gets an error
// it can act on (read a line range) instead of flooding its context.
const MaxReadBytes = 512 << 10

// ReadFile returns the content of a file inside the workspace.
func (w *Workspace) ReadFile(p string) ([]byte, error) {
	rel, err := w.resolve("read", p)
	if err != nil {
		return nil, err
	}
	st, err := w.fsys.Stat(rel)
	if err != nil {
		return nil, &Error{Op: "read", Path: p, Reason: "cannot stat", Err: err}
	}
	if st.IsDir() {
		return nil, &Error{Op: "read", Path: p, Reason: "is a directory (use list_files)"}
	}
	if st.Size() > MaxReadBytes {
		return nil, &Error{Op: "read", Path: p, Reason: fmt.Sprintf("file is %d bytes, more than the %d-byte limit; read a line range", st.Size(), MaxReadBytes)}
	}
	b, err := w.fsys.ReadFile(rel)
	if err != nil {
		return nil, &Error{Op: "read", Path: p, Reason: "cannot read", Err: err}
	}
	return b, nil
}

// WriteFile creates or replaces a file, creating its parent directories.
func (w *Workspace) WriteFile(p string, data []byte) error {
	rel, err := w.resolveWrite("write", p)
	if err != nil {
		return err
	}
	if dir := filepath.Dir(rel); dir != "." {
		if err := w.fsys.MkdirAll(dir, 0o755); err != nil {
			return &Error{Op: "write", Path: p, Reason: "cannot create the parent directory", Err: err}
		}
	}
	perm := fs.FileMode(0o644)
	if st, err := w.fsys.Stat(rel); err == nil {
		if st.IsDir() {
			return &Error{Op: "write", Path: p, Reason: "is a directory"}
		}
		perm = st.Mode().Perm() // keep an executable script executable
	}
	if err := w.fsys.WriteFile(rel, data, perm); err != nil {
		return &Error{Op: "write", Path: p, Reason: "cannot write", Err: err}
	}
	return nil
}

// Remove deletes a file (used by patches that delete files).
func (w *Workspace) Remove(p string) error {
	rel, err := w.resolveWrite("remove", p)
	if err != nil {
		return err
	}
	if err := w.fsys.Remove(rel); err != nil {
		return &Error{Op: "remove", Path: p, Reason: "cannot remove", Err: err}
	}
	return nil
}

// Entry is one item of a listing.
type Entry struct {
	Path  string // slash-separated, relative to the workspace
	Dir   bool
	Size  int64
	Link  bool
	Extra string // "" or a note such as "symlink"
}

// skipDir are directories listings and searches never descend into.
var skipDir = map[string]bool{".git": true, ".loopforge": true, "node_modules": true, "__pycache__": true, ".venv": true}

// MaxListEntries caps List.
const MaxListEntries = 2000

// List returns the entries under p (recursively when recursive is set),
// sorted by path, skipping VCS and dependency folders. truncated reports
// that MaxListEntries was reached.
func (w *Workspace) List(p string, recursive bool) (entries []Entry, truncated bool, err error) {
	rel, err := w.resolve("list", p)
	if err != nil {
		return nil, false, err
	}
	start := filepath.Join(w.root, rel)
	st, err := os.Stat(start)
	if err != nil {
		return nil, false, &Error{Op: "list", Path: p, Reason: "cannot stat", Err: err}
	}
	if !st.IsDir() {
		return []Entry{{Path: filepath.ToSlash(rel), Size: st.Size()}}, false, nil
	}
	// WalkDir does not follow symlinks, so the walk itself stays inside.
	err = filepath.WalkDir(start, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // unreadable entries are skipped, not fatal
		}
		if path == start {
			return nil
		}
		if d.IsDir() && skipDir[d.Name()] {
			return filepath.SkipDir
		}
		if len(entries) >= MaxListEntries {
			truncated = true
			return filepath.SkipAll
		}
		r, _ := filepath.Rel(w.root, path)
		e := Entry{Path: filepath.ToSlash(r), Dir: d.IsDir(), Link: d.Type()&fs.ModeSymlink != 0}
		if info, err := d.Info(); err == nil && !e.Dir {
			e.Size = info.Size()
		}
		entries = append(entries, e)
		if d.IsDir() && !recursive {
			return filepath.SkipDir
		}
		return nil
	})
	if err != nil {
		return nil, false, &Error{Op: "list", Path: p, Reason: "cannot list", Err: err}
	}
	return entries, truncated, nil
}

// Tree renders a listing as an indented tree (for input folders shown in a
// prompt).
func Tree(entries []Entry) string {
	var b strings.Builder
	for _, e := range entries {
		depth := strings.Count(e.Path, "/")
		name := e.Path[strings.LastIndexByte(e.Path, '/')+1:]
		if e.Dir {
			name += "/"
		}
		b.WriteString(strings.Repeat("  ", depth))
		b.WriteString(name)
		b.WriteByte('\n')
	}
	return b.String()
}
