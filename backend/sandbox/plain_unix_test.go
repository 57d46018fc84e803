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
	return &plainRunner{sys: &shimOS{self: self, path: "/usr/bin:/bin", lang: "C.UTF-8"}, python: self,
		tempRoot: root, homes: homeDirs(), cleanup: newCleanups()}
}

func wantPlainReport(t *testing.T, res Result) {
	t.Helper()
	if res.Protections != (Protections{}) || len(res.Layers) != 1 || res.Layers[0] != "rlimits" {
		t.Errorf("protections %+v, layers %v", res.Protections, res.Layers)
	}
}
