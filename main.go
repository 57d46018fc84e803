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

// The desktop methods (app_ops.go) and the frontend's types and routes
// (frontend/src/api/gen) come from backend/api.Ops; see backend/api/gen.
//
//go:generate go run ./backend/api/cmd/gen

import (
	"embed"
	"io/fs"
	"os"

	"github.com/loopforge/loopforge/backend/cli"
	"github.com/loopforge/loopforge/backend/sandbox"
)

// The built frontend. frontend/dist/ui-missing.html is committed (and copied
// there again by every frontend build), so a fresh clone compiles, vets and
// tests the Go code before any npm step; such a binary serves that page.
//
//go:embed all:frontend/dist
var assets embed.FS

// uiAssets is the frontend to serve: dist itself, or, when the frontend was
// not built, dist with ui-missing.html standing in for index.html.
func uiAssets(dist fs.FS) fs.FS {
	if _, err := fs.Stat(dist, "index.html"); err == nil {
		return dist
	}
	return missingUI{dist}
}

// missingUI serves ui-missing.html as the index page.
type missingUI struct{ fs.FS }

func (m missingUI) Open(name string) (fs.File, error) {
	if name == "index.html" {
		return m.FS.Open("ui-missing.html")
	}
	return m.FS.Open(name)
}

func main() {
	// The sandbox re-executes this binary as its shim; in that role it applies
	// limits and becomes the interpreter, never reaching the CLI below.
	sandbox.RunChildIfRequested()

	dist, err := fs.Sub(assets, "frontend/dist")
	if err != nil {
		panic(err) // the embed pattern above guarantees the directory
	}
	os.Exit(cli.Main(os.Args[1:], cli.Faces{Assets: uiAssets(dist), Desktop: runDesktop, WindowCheck: windowCheck, BindingsOnly: bindingsBuild}))
}
