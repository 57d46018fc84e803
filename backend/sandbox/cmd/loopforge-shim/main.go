// Command loopforge-shim is the sandbox shim alone: the part of loopforge
// that applies the isolation layers and execs the interpreter.
//
// The app re-executes itself as the shim unless this binary sits next to it
// (see sandbox.Options.Self). Worth it because every run starts the shim: the
// full app pays its package initialisation (~20 ms) and, as the Wails desktop
// build, the dynamic loading of GTK and WebKit (~80 ms) before main even
// runs; this binary, built with CGO_ENABLED=0, starts in ~2 ms.
//
//	CGO_ENABLED=0 go build -o build/bin/loopforge-shim ./backend/sandbox/cmd/loopforge-shim
package main

import (
	"fmt"
	"os"

	"github.com/loopforge/loopforge/backend/sandbox"
)

func main() {
	sandbox.RunChildIfRequested()
	fmt.Fprintln(os.Stderr, "loopforge-shim is started by loopforge to run generated code; it does nothing on its own")
	os.Exit(2)
}
