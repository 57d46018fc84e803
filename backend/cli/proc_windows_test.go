package cli

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/loopforge/loopforge/backend/testproc"
)

// Windows's stand-in for exec runs the desktop build, waits for it and
// hands its exit status back for Main to exit with.
func TestExecProcessWaitsAndReturnsTheStatus(t *testing.T) {
	self := testproc.Self()
	if err := execProcess(self, []string{self, "-I", "-c", "exit 0"}, os.Environ()); err != nil {
		t.Errorf("exit 0: %v", err)
	}
	err := execProcess(self, []string{self, "-I", "-c", "exit 3"}, os.Environ())
	var ee *exitError
	if !errors.As(err, &ee) || ee.code != 3 {
		t.Errorf("exit 3: %v", err)
	}
	if err := execProcess(filepath.Join(t.TempDir(), desktopFile), []string{"x"}, nil); err == nil || errors.As(err, &ee) {
		t.Errorf("a missing program: %v", err)
	}
}
