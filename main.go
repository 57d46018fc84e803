// Command loopforge watches AI models write, run and fix code.
//
// main picks the face: no arguments opens the desktop window (Wails);
// `serve` starts the web UI on loopback; anything else is the headless CLI.
// All logic lives in backend/; this file only wires it.
//
// The package builds two binaries: `go build` makes the CLI build (no cgo, no
// GUI library; nodesktop.go), `wails build` the desktop build
// loopforge-desktop (the desktop tag; desktop.go), which the CLI build
// executes when it is run with no command on a display.
package main

import (
	"embed"
	"io/fs"
	"os"

	"github.com/loopforge/loopforge/backend/cli"
	"github.com/loopforge/loopforge/backend/sandbox"
)

// The frontend must be built (npm run build) before any Go command compiles
// this package; scripts/test.sh and scripts/run.sh do that first.
//
//go:embed all:frontend/dist
var assets embed.FS

func main() {
	// The sandbox re-executes this binary as its shim; in that role it applies
	// limits and becomes the interpreter, never reaching the CLI below.
	sandbox.RunChildIfRequested()

	dist, err := fs.Sub(assets, "frontend/dist")
	if err != nil {
		panic(err) // the embed pattern above guarantees the directory
	}
	os.Exit(cli.Main(os.Args[1:], cli.Faces{Assets: dist, Desktop: runDesktop, BindingsOnly: bindingsBuild}))
}
