package api

import (
	"context"
	"net/http"

	"github.com/loopforge/loopforge/backend/service"
	"github.com/loopforge/loopforge/backend/wire"
)

// Ops is every operation of the frontend, in one table: name (the desktop
// method), HTTP route, success status, and the call (input → output, both
// from backend/wire). After a change here run `go generate` at the
// repository root.
var Ops = []Operation{
	// Every configured provider profile, ready or not (reason says why not).
	op("Providers", "GET /api/providers", http.StatusOK, func(ctx context.Context, s *service.Service, _ wire.None) ([]wire.ProviderStatus, error) {
		return wire.FromProviders(s.ProvidersContext(ctx)), nil
	}),
	// The configured run settings (loopforge.yml).
	op("Defaults", "GET /api/defaults", http.StatusOK, func(_ context.Context, s *service.Service, _ wire.None) (wire.Defaults, error) {
		return wire.FromDefaults(s.Defaults()), nil
	}),
	// Built-in and configured prompts.
	op("Presets", "GET /api/presets", http.StatusOK, func(_ context.Context, s *service.Service, _ wire.None) ([]wire.Preset, error) {
		return wire.FromPresets(s.Presets()), nil
	}),
	// Starts a loop; its events arrive on the websocket.
	op("StartRun", "POST /api/runs", http.StatusCreated, func(ctx context.Context, s *service.Service, req wire.RunRequest) (wire.RunInfo, error) {
		r, err := req.ToService()
		if err != nil {
			return wire.RunInfo{}, err
		}
		info, err := s.StartRun(ctx, r)
		return wire.FromRunInfo(info), err
	}),
	// Starts one loop per provider in a new comparison session (all validated first).
	op("StartCompare", "POST /api/compare", http.StatusCreated, func(ctx context.Context, s *service.Service, req wire.CompareRequest) (wire.CompareInfo, error) {
		r, err := req.ToService()
		if err != nil {
			return wire.CompareInfo{}, err
		}
		info, err := s.StartCompare(ctx, r)
		return wire.FromCompareInfo(info), err
	}),
	// One row per run of a comparison session, in start order.
	op("Comparison", "GET /api/sessions/{id}/comparison", http.StatusOK, func(ctx context.Context, s *service.Service, in wire.SessionRef) ([]wire.ComparisonRow, error) {
		rows, err := s.Comparison(ctx, in.ID)
		return wire.FromComparison(rows), err
	}),
	// Stops a run; its run_finished event (status cancelled) follows.
	op("CancelRun", "POST /api/runs/{id}/cancel", http.StatusOK, func(_ context.Context, s *service.Service, in wire.RunRef) (wire.OK, error) {
		return wire.OK{OK: true}, s.Cancel(in.ID)
	}),
	// Stored sessions, most recent first.
	op("Sessions", "GET /api/sessions", http.StatusOK, func(ctx context.Context, s *service.Service, in wire.SessionsQuery) ([]wire.SessionSummary, error) {
		if in.Limit <= 0 || in.Limit > 500 {
			in.Limit = 100
		}
		list, err := s.Sessions(ctx, in.Q, in.Limit)
		return wire.FromSessions(list), err
	}),
	// One session with its runs and their iterations.
	op("Session", "GET /api/sessions/{id}", http.StatusOK, func(ctx context.Context, s *service.Service, in wire.SessionRef) (wire.SessionDetail, error) {
		d, err := s.Session(ctx, in.ID)
		if err != nil {
			return wire.SessionDetail{}, err
		}
		return wire.FromSessionDetail(d), nil
	}),
	// Removes a session and everything in it.
	op("DeleteSession", "DELETE /api/sessions/{id}", http.StatusOK, func(ctx context.Context, s *service.Service, in wire.SessionRef) (wire.OK, error) {
		return wire.OK{OK: true}, s.DeleteSession(ctx, in.ID)
	}),
	// The working directory ("" = none chosen).
	op("Workdir", "GET /api/workdir", http.StatusOK, func(_ context.Context, s *service.Service, _ wire.None) (wire.Workdir, error) {
		return wire.Workdir{Path: s.Workdir()}, nil
	}),
	// Validates and sets the working directory.
	op("SetWorkdir", "PUT /api/workdir", http.StatusOK, func(_ context.Context, s *service.Service, in wire.Workdir) (wire.Workdir, error) {
		p, err := s.SetWorkdir(in.Path)
		return wire.Workdir{Path: p}, err
	}),
	// The subfolders of a folder, for the web face's folder picker.
	op("Folders", "GET /api/folders", http.StatusOK, func(_ context.Context, s *service.Service, in wire.FolderQuery) (wire.FolderListing, error) {
		l, err := s.Folders(in.Path)
		return wire.FromFolderListing(l), err
	}),
	// The history summarised, in total and per provider and model.
	op("Stats", "GET /api/stats", http.StatusOK, func(ctx context.Context, s *service.Service, _ wire.None) (wire.Stats, error) {
		st, err := s.Stats(ctx)
		return wire.FromStats(st), err
	}),
}

// Specials are the things that are not a plain call, each wired by hand in
// its face: a test checks that every desktop method is an operation or
// listed here, and that every web route here is served.
var Specials = []Special{
	{Name: "Health", Face: Web, Route: "GET /api/health",
		Why: "the server's own answer (wire.Health), served even without a backend; backend/server/server.go"},
	{Name: "Version", Face: Desktop,
		Why: "the desktop's Health: the version as a string; app.go"},
	{Name: "Events", Face: Web, Route: "GET /api/ws",
		Why: "the event websocket (wire.StreamRequest in, backend/event envelopes out), used by both faces; backend/server/ws.go"},
	{Name: "EventsEndpoint", Face: Desktop,
		Why: "where the desktop finds the event websocket and its token (wire.Endpoint); app.go"},
	{Name: "Export", Face: Web, Route: "GET /api/sessions/{id}/export",
		Why: "a file download (an attachment, never JSON or a page: an HTML handout holds model output); backend/server/api.go"},
	{Name: "ExportSession", Face: Desktop,
		Why: "renders an export and saves it through the native save dialog; app.go"},
	{Name: "ChooseWorkdir", Face: Desktop,
		Why: "the native folder dialog, then SetWorkdir; app.go"},
	{Name: "workdir:changed, workdir:error", Face: Desktop,
		Why: "Wails runtime events: a folder dropped on the window becomes the workdir; app.go startup"},
}
