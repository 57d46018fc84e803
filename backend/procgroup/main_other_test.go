//go:build !linux

package procgroup

import (
	"os"
	"testing"

	"github.com/loopforge/loopforge/backend/testproc"
)

// The test binary plays the children of the tests (testproc).
func TestMain(m *testing.M) {
	testproc.Run()
	os.Exit(m.Run())
}
