//go:build linux || darwin

package sandbox

import (
	"testing"

	"github.com/loopforge/loopforge/backend/testproc"
)

// homeVar is the variable that names the code's home.
const homeVar = "HOME"

// newTestPlain is macOS's plain sandbox (on Linux, with Linux's shim).
func newTestPlain(t *testing.T) *plainRunner {
	t.Helper()
	self := testproc.Self()
	root := realTempDir(t)
	r := &plainRunner{sys: &shimOS{self: self, path: "/usr/bin:/bin", lang: "C.UTF-8"}, python: self,
		tempRoot: root, homes: homeDirs(), cleanup: newCleanups()}
	// Before the temp dir's own clean-up (cleanups run last-in first-out):
	// a run's directory is removed in the background, and on Windows only
	// once its killed processes are gone.
	t.Cleanup(r.cleanup.wait)
	return r
}

func wantPlainReport(t *testing.T, res Result) {
	t.Helper()
	if res.Protections != (Protections{}) || len(res.Layers) != 1 || res.Layers[0] != "rlimits" {
		t.Errorf("protections %+v, layers %v", res.Protections, res.Layers)
	}
}
