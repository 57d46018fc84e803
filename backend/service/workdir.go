package service

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// workdir is the folder the user chose (by drag and drop, a dialog, or a
// path field). Runs use it for context and exports; it is validated here so
// every face gets the same checks.
type workdir struct {
	mu   sync.Mutex
	path string
}

// Workdir returns the chosen working directory ("" = none yet).
func (s *Service) Workdir() string {
	s.workdir.mu.Lock()
	defer s.workdir.mu.Unlock()
	return s.workdir.path
}

// SetWorkdir validates path (it must exist and be a directory) and makes it
// the working directory. It returns the cleaned absolute path.
func (s *Service) SetWorkdir(path string) (string, error) {
	if path == "" {
		return "", invalid(CodeWorkdirEmpty, nil, "the folder path is empty")
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", invalid(CodeWorkdirUnreadable, map[string]string{"path": path, "detail": err.Error()}, "%v", err)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	st, err := os.Stat(abs)
	switch {
	case os.IsNotExist(err):
		return "", invalid(CodeWorkdirMissing, map[string]string{"path": abs}, "%s does not exist", abs)
	case err != nil:
		return "", invalid(CodeWorkdirUnreadable, map[string]string{"path": abs, "detail": errors.Unwrap(err).Error()}, "%s: %v", abs, err)
	case !st.IsDir():
		return "", invalid(CodeWorkdirNotFolder, map[string]string{"path": abs}, "%s is a file, not a folder", abs)
	}
	s.workdir.mu.Lock()
	s.workdir.path = abs
	s.workdir.mu.Unlock()
	return abs, nil
}

// Folder is one entry of a FolderListing.
type Folder struct {
	Name string `json:"name"`
	Path string `json:"path"`
}

// FolderListing is what a folder picker shows: a folder, its parent and its
// subfolders (hidden ones left out).
type FolderListing struct {
	Path    string   `json:"path"`
	Parent  string   `json:"parent"` // "" at the root
	Folders []Folder `json:"folders"`
}

// Folders lists the subfolders of path, for the web face's folder picker
// (a browser cannot hand the page a real path). "" starts at the working
// directory, else the home directory.
func (s *Service) Folders(path string) (FolderListing, error) {
	if path == "" {
		path = s.Workdir()
		// A working folder deleted since it was chosen must not leave the
		// picker with nowhere to start.
		if st, err := os.Stat(path); path != "" && (err != nil || !st.IsDir()) {
			path = ""
		}
	}
	if path == "" {
		path, _ = os.UserHomeDir()
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return FolderListing{}, invalid(CodeWorkdirUnreadable, map[string]string{"path": path, "detail": err.Error()}, "%v", err)
	}
	entries, err := os.ReadDir(abs)
	if err != nil {
		return FolderListing{}, invalid(CodeWorkdirUnreadable, map[string]string{"path": abs, "detail": fmt.Sprint(errors.Unwrap(err))}, "cannot list %s: %v", abs, errors.Unwrap(err))
	}
	l := FolderListing{Path: abs, Folders: []Folder{}}
	if parent := filepath.Dir(abs); parent != abs {
		l.Parent = parent
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			continue
		}
		p := filepath.Join(abs, e.Name())
		if st, err := os.Stat(p); err == nil && st.IsDir() { // follows symlinks to folders
			l.Folders = append(l.Folders, Folder{Name: e.Name(), Path: p})
		}
	}
	return l, nil
}
