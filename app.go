//go:build desktop || dev || bindings

package main

import (
	"context"

	"github.com/loopforge/loopforge/backend/config"
	"github.com/loopforge/loopforge/backend/export"
	"github.com/loopforge/loopforge/backend/server"
	"github.com/loopforge/loopforge/backend/service"
	"github.com/loopforge/loopforge/backend/store"
	"github.com/wailsapp/wails/v2/pkg/runtime"
)

// App is the Wails-bound facade: every exported method is callable from the
// frontend as window.go.main.App.<Name>, with the same names and wire types
// as the HTTP API of `loopforge serve` (backend/server). Methods stay thin and
// delegate to backend/service; they return (T, error) so errors keep their text.
type App struct {
	ctx    context.Context
	svc    *service.Service
	events server.Endpoint
}

// NewApp wraps a service for binding; events is where the frontend opens the
// event websocket.
func NewApp(svc *service.Service, events server.Endpoint) *App {
	return &App{svc: svc, events: events}
}

func (a *App) startup(ctx context.Context) {
	a.ctx = ctx
	// A folder dropped anywhere on the window becomes the working directory.
	runtime.OnFileDrop(ctx, func(_, _ int, paths []string) {
		if len(paths) == 0 {
			return
		}
		if p, err := a.svc.SetWorkdir(paths[0]); err != nil {
			runtime.EventsEmit(ctx, "workdir:error", err.Error())
		} else {
			runtime.EventsEmit(ctx, "workdir:changed", p)
		}
	})
}

// Version reports the application version.
func (a *App) Version() string { return service.Version }

// EventsEndpoint tells the frontend where the event websocket is.
func (a *App) EventsEndpoint() server.Endpoint { return a.events }

// Providers lists every profile and whether it is ready.
func (a *App) Providers() []service.ProviderStatus { return a.svc.Providers() }

// Defaults are the configured run settings a form starts from.
func (a *App) Defaults() service.Defaults { return a.svc.Defaults() }

// Presets lists the built-in prompts.
func (a *App) Presets() []config.Preset { return a.svc.Presets() }

// StartRun starts a loop; its events arrive on the websocket.
func (a *App) StartRun(req server.RunRequest) (service.RunInfo, error) {
	r, err := req.ToService()
	if err != nil {
		return service.RunInfo{}, err
	}
	return a.svc.StartRun(a.ctx, r)
}

// StartCompare runs one prompt on several providers at once.
func (a *App) StartCompare(req server.CompareRequest) (service.CompareInfo, error) {
	r, err := req.ToService()
	if err != nil {
		return service.CompareInfo{}, err
	}
	return a.svc.StartCompare(a.ctx, service.CompareRequest{RunRequest: r, Providers: req.Providers})
}

// Comparison returns the side-by-side table of a session's runs.
func (a *App) Comparison(sessionID string) ([]service.ComparisonRow, error) {
	return a.svc.Comparison(a.ctx, sessionID)
}

// Stats summarises the history per provider and model.
func (a *App) Stats() (service.Stats, error) { return a.svc.Stats(a.ctx) }

// ExportSession renders a session (format: py, zip, md, html, ipynb, json)
// and asks where to save it with the native dialog. It returns the saved
// path, or "" when the user cancelled.
func (a *App) ExportSession(sessionID, format, runID string) (string, error) {
	name, data, err := a.svc.Export(a.ctx, sessionID, format, runID)
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

// CancelRun stops a run (its generated code's process group is killed).
func (a *App) CancelRun(runID string) error { return a.svc.Cancel(runID) }

// Sessions lists stored sessions, most recent first.
func (a *App) Sessions(query string, limit int) ([]store.SessionSummary, error) {
	return a.svc.Sessions(a.ctx, query, limit)
}

// Session returns one session with its runs and iterations.
func (a *App) Session(id string) (*service.SessionDetail, error) { return a.svc.Session(a.ctx, id) }

// DeleteSession removes a session.
func (a *App) DeleteSession(id string) error { return a.svc.DeleteSession(a.ctx, id) }

// Workdir returns the working directory ("" = none chosen).
func (a *App) Workdir() server.Workdir { return server.Workdir{Path: a.svc.Workdir()} }

// SetWorkdir validates and sets the working directory.
func (a *App) SetWorkdir(path string) (server.Workdir, error) {
	p, err := a.svc.SetWorkdir(path)
	return server.Workdir{Path: p}, err
}

// ChooseWorkdir opens the native folder dialog; an empty path means the user
// cancelled and nothing changed.
func (a *App) ChooseWorkdir() (server.Workdir, error) {
	dir, err := runtime.OpenDirectoryDialog(a.ctx, runtime.OpenDialogOptions{Title: "Choose a working folder"})
	if err != nil || dir == "" {
		return server.Workdir{Path: a.svc.Workdir()}, err
	}
	return a.SetWorkdir(dir)
}
