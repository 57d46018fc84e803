//go:build (desktop || dev) && linux && !bindings

package main

/*
#cgo pkg-config: gtk+-3.0
#include <gtk/gtk.h>
*/
import "C"

import (
	"fmt"
	"os"
	"runtime"

	"github.com/loopforge/loopforge/backend/cli"
)

// windowCheck opens GTK's display before the window is made: Wails panics
// with a stack trace when it cannot ("failed to init GTK", e.g. a DISPLAY
// naming a display that is gone, as over a closed ssh -X). The CLI serves
// the web UI instead when this fails.
//
// It runs on the goroutine (locked to its thread, as Wails locks it) that
// then runs wails.Run, and sets GDK_BACKEND as Wails would, so GTK is
// initialised exactly as Wails would have done it; Wails' own
// gtk_init_check then finds it done.
var windowCheck = func() error {
	runtime.LockOSThread()
	if st := os.Getenv("XDG_SESSION_TYPE"); os.Getenv("GDK_BACKEND") == "" && (st == "" || st == "unspecified" || st == "x11") {
		_ = os.Setenv("GDK_BACKEND", "x11")
	}
	if C.gtk_init_check(nil, nil) != 1 {
		return fmt.Errorf("%w: GTK cannot open the display %q", cli.ErrNoWindow, os.Getenv("DISPLAY")+os.Getenv("WAYLAND_DISPLAY"))
	}
	return nil
}
