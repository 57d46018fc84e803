package workspace

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"strings"
	"time"
)

// ArtifactsDir is loopforge's folder inside a workdir. It ignores itself in
// git (a .gitignore of "*"), so writing run metadata never dirties the
// repository nor ends up in a commit.
const ArtifactsDir = ".loopforge"

// WriteRunMeta stores v as JSON in .loopforge/runs/<timestamp>.json and
// returns that relative path. Timestamps are UTC; a clash gets a suffix.
func (w *Workspace) WriteRunMeta(at time.Time, v any) (string, error) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return "", fmt.Errorf("workspace: encoding run metadata: %w", err)
	}
	return w.writeRunFile(at.UTC().Format("20060102T150405.000Z"), append(b, '\n'))
}

// CopyRunMeta copies the run metadata files of from (a comparison's git
// worktree, about to be removed) into w, keeping their names unless taken.
func (w *Workspace) CopyRunMeta(from *Workspace) error {
	entries, err := fs.ReadDir(from.fsys.FS(), path.Join(ArtifactsDir, "runs"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return &Error{Op: "read", Path: path.Join(ArtifactsDir, "runs"), Reason: "cannot list", Err: err}
	}
	for _, e := range entries {
		if e.IsDir() || path.Ext(e.Name()) != ".json" {
			continue
		}
		b, err := from.fsys.ReadFile(path.Join(ArtifactsDir, "runs", e.Name()))
		if err != nil {
			return &Error{Op: "read", Path: e.Name(), Reason: "cannot read", Err: err}
		}
		if _, err := w.writeRunFile(strings.TrimSuffix(e.Name(), ".json"), b); err != nil {
			return err
		}
	}
	return nil
}

// writeRunFile creates .loopforge/runs/<stem>.json (or <stem>-N.json when
// taken) holding b, and the folder's .gitignore first.
func (w *Workspace) writeRunFile(stem string, b []byte) (string, error) {
	if err := w.fsys.MkdirAll(path.Join(ArtifactsDir, "runs"), 0o755); err != nil {
		return "", &Error{Op: "write", Path: ArtifactsDir, Reason: "cannot create the artifacts folder", Err: err}
	}
	ignore := path.Join(ArtifactsDir, ".gitignore")
	if _, err := w.fsys.Stat(ignore); err != nil {
		if err := w.fsys.WriteFile(ignore, []byte("# written by loopforge: its run artifacts are never committed\n*\n"), 0o644); err != nil {
			return "", &Error{Op: "write", Path: ignore, Reason: "cannot write", Err: err}
		}
	}
	for i := 1; ; i++ {
		name := path.Join(ArtifactsDir, "runs", stem+".json")
		if i > 1 {
			name = path.Join(ArtifactsDir, "runs", fmt.Sprintf("%s-%d.json", stem, i))
		}
		f, err := w.fsys.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if os.IsExist(err) {
			continue
		}
		if err != nil {
			return "", &Error{Op: "write", Path: name, Reason: "cannot create", Err: err}
		}
		_, werr := f.Write(b)
		cerr := f.Close()
		if werr != nil || cerr != nil {
			return "", &Error{Op: "write", Path: name, Reason: "cannot write", Err: errorsJoin(werr, cerr)}
		}
		return name, nil
	}
}

func errorsJoin(a, b error) error {
	if a != nil {
		return a
	}
	return b
}
