package service

import (
	"fmt"
	"os"
	"path/filepath"
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
		return "", fmt.Errorf("%w: the folder path is empty", ErrInvalidRequest)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrInvalidRequest, err)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	st, err := os.Stat(abs)
	switch {
	case os.IsNotExist(err):
		return "", fmt.Errorf("%w: %s does not exist", ErrInvalidRequest, abs)
	case err != nil:
		return "", fmt.Errorf("%w: %s: %v", ErrInvalidRequest, abs, err)
	case !st.IsDir():
		return "", fmt.Errorf("%w: %s is a file, not a folder", ErrInvalidRequest, abs)
	}
	s.workdir.mu.Lock()
	s.workdir.path = abs
	s.workdir.mu.Unlock()
	return abs, nil
}
