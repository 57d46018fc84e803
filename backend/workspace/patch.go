package workspace

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"

	"github.com/bluekeyes/go-gitdiff/gitdiff"
)

// ApplyPatch applies a unified diff (git or traditional format, one or more
// files) and returns the paths it changed. It is all or nothing: every file
// is patched in memory first, and nothing is written if any hunk does not
// apply. Parsing and applying are github.com/bluekeyes/go-gitdiff's (a
// maintained, dependency-free implementation of git's apply rules); this
// function only adds the confinement.
func (w *Workspace) ApplyPatch(patch string) ([]string, error) {
	files, _, err := gitdiff.Parse(strings.NewReader(patch))
	if err != nil {
		return nil, &Error{Op: "patch", Path: "", Reason: "cannot parse the patch", Err: err}
	}
	if len(files) == 0 {
		return nil, &Error{Op: "patch", Path: "", Reason: "the patch holds no file changes (expected ---/+++ headers and @@ hunks)"}
	}
	type change struct {
		path   string
		data   []byte
		remove bool
	}
	var changes []change
	var changed []string
	for _, f := range files {
		if f.IsBinary {
			return nil, &Error{Op: "patch", Path: f.NewName, Reason: "binary patches are not supported"}
		}
		oldName, newName := w.patchName(f.OldName), w.patchName(f.NewName)
		var src []byte
		if !f.IsNew {
			src, err = w.ReadFile(oldName)
			if err != nil {
				return nil, err
			}
		}
		if f.IsDelete {
			if _, err := w.resolveWrite("patch", oldName); err != nil {
				return nil, err
			}
			changes = append(changes, change{path: oldName, remove: true})
			changed = append(changed, oldName)
			continue
		}
		if f.IsNew {
			if rel, err := w.resolve("patch", newName); err == nil {
				if _, err := os.Lstat(filepath.Join(w.root, rel)); err == nil {
					return nil, &Error{Op: "patch", Path: newName, Reason: "the patch creates a file that already exists"}
				}
			}
		}
		if _, err := w.resolveWrite("patch", newName); err != nil {
			return nil, err
		}
		var out bytes.Buffer
		if err := gitdiff.Apply(&out, bytes.NewReader(src), f); err != nil {
			reason := "the patch does not apply"
			if errors.Is(err, &gitdiff.Conflict{}) {
				reason = "the patch does not match the current content (re-read the file and patch against it)"
			}
			return nil, &Error{Op: "patch", Path: newName, Reason: reason, Err: err}
		}
		if f.IsRename && oldName != newName {
			changes = append(changes, change{path: oldName, remove: true})
			changed = append(changed, oldName)
		}
		changes = append(changes, change{path: newName, data: out.Bytes()})
		changed = append(changed, newName)
	}
	for _, c := range changes {
		var err error
		if c.remove {
			err = w.Remove(c.path)
		} else {
			err = w.WriteFile(c.path, c.data)
		}
		if err != nil {
			return nil, err
		}
	}
	return changed, nil
}

// patchName strips the a/ or b/ prefix of traditional diffs (git-format
// headers are stripped by the parser) unless a path with it exists.
func (w *Workspace) patchName(name string) string {
	if !strings.HasPrefix(name, "a/") && !strings.HasPrefix(name, "b/") {
		return name
	}
	if rel, err := w.resolve("patch", name); err == nil {
		if _, err := os.Lstat(filepath.Join(w.root, rel)); err == nil {
			return name
		}
	}
	return name[2:]
}
