package judge

import (
	"os"
	"testing"

	"github.com/loopforge/loopforge/backend/sandbox"
)

func TestMain(m *testing.M) {
	sandbox.RunChildIfRequested() // the test binary doubles as the sandbox shim
	os.Exit(m.Run())
}
