//go:build !((desktop || dev) && linux && !bindings)

package main

// windowCheck: only GTK's window can fail to open a display this way
// (desktop_gtk.go); the CLI build has no window, and WebView2 and Cocoa
// report their own errors.
var windowCheck func() error

// takeFolderDrops: nil here, where Wails' own file drop is used (desktop.go).
//
//nolint:unused // read by app.go, which only the desktop builds compile
var takeFolderDrops func(onFolder func(path string))
