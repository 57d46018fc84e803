//go:build linux

package sandbox

import (
	"os"
	"testing"
)

// TestMain lets the test binary serve as the sandbox shim, the way main()
// does in the app.
func TestMain(m *testing.M) {
	RunChildIfRequested()
	if spec := os.Getenv(helperEnv); spec != "" {
		os.Exit(helperMain(spec))
	}
	// A stand-in for an API key in the app's environment: the code must
	// never see it (hostile case 20 also looks in /proc/<app>/environ).
	os.Setenv("LOOPFORGE_TEST_SECRET", testSecret)
	os.Exit(m.Run())
}
