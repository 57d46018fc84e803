//go:build !linux

package sandbox

import (
	"os"
	"testing"

	"github.com/loopforge/loopforge/backend/testproc"
)

// TestMain lets the test binary serve as the sandbox shim (macOS), and as
// the plain sandbox's "python" (testproc).
func TestMain(m *testing.M) {
	RunChildIfRequested()
	testproc.Run()
	// A stand-in for an API key in the app's environment: the code must
	// never see it.
	if err := os.Setenv("LOOPFORGE_TEST_SECRET", "sk-loopforge-canary-7f3a9c"); err != nil {
		panic(err)
	}
	os.Exit(m.Run())
}
