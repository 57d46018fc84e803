//go:build (desktop || dev) && linux && !bindings

package main

/*
#cgo pkg-config: gtk+-3.0
#include <gtk/gtk.h>
void loopforgeTakeFolderDrops(void);
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

// folderDropped gets the path of a folder dropped on the window (set by takeFolderDrops).
var folderDropped func(path string)

// takeFolderDrops makes GTK hand every folder dropped on the window to
// onFolder (desktop_drop_gtk.c). Not Wails' file drop: with Wails v2.15 on
// Linux, DisableWebViewDrop leaves the webview no drop site at all (every
// drop refused), and without it WebKit opens the dropped folder in place of
// the app after Wails has read it (wailsapp/wails#3563, #3686); both seen
// with a real drop under Xvfb (scripts/drop-test.sh).
var takeFolderDrops = func(onFolder func(path string)) {
	folderDropped = onFolder
	C.loopforgeTakeFolderDrops()
}

//export loopforgeFolderDropped
func loopforgeFolderDropped(path *C.char) {
	p := C.GoString(path)
	// Off GTK's main loop: setting the folder stats it, and the event goes to the page.
	go folderDropped(p)
}
