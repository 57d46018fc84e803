package sandbox

import (
	"path/filepath"
	"testing"
)

// realTempDir is a test temp dir with symlinks resolved (macOS's is
// beneath /var, a link to /private/var), as NewRunner resolves TempRoot.
func realTempDir(t *testing.T) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return dir
}
