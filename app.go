//go:build desktop || dev || bindings

package main

import (
	"context"
	"log/slog"

	"github.com/loopforge/loopforge/backend/export"
	"github.com/loopforge/loopforge/backend/service"
	"github.com/loopforge/loopforge/backend/wire"
	"github.com/wailsapp/wails/v2/pkg/runtime"
)

// App is the Wails-bound facade: every exported method is callable from the
// frontend as window.go.main.App.<Name>. The operations of backend/api.Ops
// are generated into app_ops.go, with the same wire types as the HTTP API of
// `loopforge serve`; this file holds the desktop's special cases, which
// backend/api.Specials lists. Methods return (T, error) so errors keep
// their text.
type App struct {
	ctx    context.Context
	svc    *service.Service
	events wire.Endpoint
}

// NewApp wraps a service for binding; events is where the frontend opens the
// event websocket.
func NewApp(svc *service.Service, events wire.Endpoint) *App {
	return &App{svc: svc, events: events}
}

func (a *App) startup(ctx context.Context) {
	a.ctx = ctx
	// A folder dropped anywhere on the window becomes the working directory.
	if takeFolderDrops != nil {
		takeFolderDrops(a.folderDropped)
		return
	}
	runtime.OnFileDrop(ctx, func(_, _ int, paths []string) {
		if len(paths) > 0 {
			a.folderDropped(paths[0])
		}
	})
}

// folderDropped makes a folder dropped on the window the working directory
// and tells the page (or why not).
func (a *App) folderDropped(path string) {
	p, err := a.svc.SetWorkdir(path)
	if err != nil {
		slog.Info("a drop on the window was refused as the working folder", "path", path, "err", err)
		runtime.EventsEmit(a.ctx, "workdir:error", err.Error())
		return
	}
	// Logged: scripts/drop-test.sh (a real drop under Xvfb) waits for this line.
	slog.Info("working folder set by a drop on the window", "path", p)
	runtime.EventsEmit(a.ctx, "workdir:changed", p)
}

// Version reports the application version.
func (a *App) Version() string { return service.Version }

// EventsEndpoint tells the frontend where the event websocket is.
func (a *App) EventsEndpoint() wire.Endpoint { return a.events }

// ExportSession renders a session (format: py, zip, md, html, ipynb, json)
// with its own words in lang (en or pt, the UI's language) and its dates in
// the IANA time zone tz (the UI's; "" = this machine's), and asks where to
// save it with the native dialog. It returns the saved path, or "" when the
// user cancelled.
func (a *App) ExportSession(sessionID, format, runID, lang, tz string) (string, error) {
	name, data, err := a.svc.Export(a.ctx, sessionID, format, runID, lang, tz)
	if err != nil {
		return "", err
	}
	dest, err := runtime.SaveFileDialog(a.ctx, runtime.SaveDialogOptions{
		Title: "Export", DefaultFilename: name, DefaultDirectory: a.svc.Workdir()})
	if err != nil || dest == "" {
		return "", err
	}
	return export.WriteFile(dest, name, data)
}

// ChooseWorkdir opens the native folder dialog; an empty path means the user
// cancelled and nothing changed.
func (a *App) ChooseWorkdir() (wire.Workdir, error) {
	dir, err := runtime.OpenDirectoryDialog(a.ctx, runtime.OpenDialogOptions{Title: "Choose a working folder"})
	if err != nil || dir == "" {
		return wire.Workdir{Path: a.svc.Workdir()}, err
	}
	return a.SetWorkdir(wire.Workdir{Path: dir})
}
