package sandbox

import (
	"os"
	"testing"
)

// TestMain lets the test binary serve as the sandbox shim, the way main()
// does in the app.
func TestMain(m *testing.M) {
	RunChildIfRequested()
	os.Exit(m.Run())
}
