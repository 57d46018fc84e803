//go:build !desktop && !dev && !bindings

package main

import (
	"io/fs"

	"github.com/loopforge/loopforge/backend/service"
)

// This is the CLI build (`go build`, no cgo): it links neither Wails nor GTK
// and WebKit, so every command starts like a plain Go program. With no
// command it replaces itself with the desktop build next to it
// (cli.DesktopName, made by `wails build`; see desktop.go).
var runDesktop func(*service.Service, fs.FS) error
