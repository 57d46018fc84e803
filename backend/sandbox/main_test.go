//go:build linux

package sandbox

import (
	"os"
	"testing"

	"github.com/loopforge/loopforge/backend/testproc"
)

// TestMain lets the test binary serve as the sandbox shim, the way main()
// does in the app.
func TestMain(m *testing.M) {
	RunChildIfRequested()
	testproc.Run() // the plain sandbox's tests use this binary as "python"
	if spec := os.Getenv(helperEnv); spec != "" {
		os.Exit(helperMain(spec))
	}
	if os.Getenv(usernsHelperEnv) != "" {
		os.Exit(usernsHelperMain())
	}
	// A stand-in for an API key in the app's environment: the code must
	// never see it (hostile case 20 also looks in /proc/<app>/environ).
	if err := os.Setenv("LOOPFORGE_TEST_SECRET", testSecret); err != nil {
		panic(err)
	}
	os.Exit(m.Run())
}
