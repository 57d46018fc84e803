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
		return wire.FromProviders(s.ProvidersFor(ctx)), nil
	}).forStudents(),
	// The models a profile's key can use, from its API's models list (a
	// request to the provider, bounded by provider.ModelsTimeout). Not for
	// students: they may not choose the model.
	op("ProviderModels", "GET /api/providers/{name}/models", http.StatusOK, func(ctx context.Context, s *service.Service, in wire.ProviderRef) (wire.ProviderModels, error) {
		ms, err := s.ProviderModels(ctx, in.Name)
		return wire.FromModels(in.Name, ms), err
	}),
	// The configured run settings (loopforge.yml).
	op("Defaults", "GET /api/defaults", http.StatusOK, func(ctx context.Context, s *service.Service, _ wire.None) (wire.Defaults, error) {
		return wire.FromDefaults(s.DefaultsFor(ctx)), nil
	}).forStudents(),
	// Built-in and configured prompts.
	op("Presets", "GET /api/presets", http.StatusOK, func(ctx context.Context, s *service.Service, _ wire.None) ([]wire.Preset, error) {
		return wire.FromPresets(s.PresetsFor(ctx)), nil
	}).forStudents(),
	// What a first run needs: where the configuration goes on this machine,
	// whether generated code can run (Python) and why not.
	op("Setup", "GET /api/setup", http.StatusOK, func(_ context.Context, s *service.Service, _ wire.None) (wire.Setup, error) {
		return wire.FromSetup(s.Setup()), nil
	}),
	// Reads loopforge.yml and the .env files again (a key added since is
	// picked up without a restart) and checks the providers and Python anew.
	op("ReloadConfig", "POST /api/setup/reload", http.StatusOK, func(ctx context.Context, s *service.Service, _ wire.None) (wire.Setup, error) {
		st, err := s.Reload(ctx)
		return wire.FromSetup(st), err
	}),
	// Starts a loop; its events arrive on the websocket.
	op("StartRun", "POST /api/runs", http.StatusCreated, func(ctx context.Context, s *service.Service, req wire.RunRequest) (wire.RunInfo, error) {
		info, err := s.StartRun(ctx, req)
		return wire.FromRunInfo(info), err
	}).forStudents(),
	// Starts one loop per provider in a new comparison session (all validated first).
	op("StartCompare", "POST /api/compare", http.StatusCreated, func(ctx context.Context, s *service.Service, req wire.CompareRequest) (wire.CompareInfo, error) {
		info, err := s.StartCompare(ctx, req.ToService())
		return wire.FromCompareInfo(info), err
	}).forStudents(),
	// One row per run of a comparison session, in start order.
	op("Comparison", "GET /api/sessions/{id}/comparison", http.StatusOK, func(ctx context.Context, s *service.Service, in wire.SessionRef) ([]wire.ComparisonRow, error) {
		rows, err := s.Comparison(ctx, in.ID)
		return wire.FromComparison(rows), err
	}).forStudents(),
	// Repeats a comparison to measure it (pass^N, pass@1, iterations to
	// green, cost, per provider × reflection): answers once the first round
	// has started; the rounds are comparison sessions in the history.
	op("StartRepeat", "POST /api/repeats", http.StatusCreated, func(ctx context.Context, s *service.Service, req wire.RepeatRequest) (wire.RepeatStatus, error) {
		st, err := s.StartRepeat(ctx, req.ToService())
		return wire.FromRepeatStatus(st), err
	}),
	// A repeat's progress and summary, once its version is past after
	// (a long poll: at most about 25 s, then the same status again).
	op("Repeat", "GET /api/repeats/{id}", http.StatusOK, func(ctx context.Context, s *service.Service, in wire.RepeatRef) (wire.RepeatStatus, error) {
		st, err := s.RepeatStatus(ctx, in.ID, in.After)
		return wire.FromRepeatStatus(st), err
	}),
	// Stops a repeat: its round's runs are cancelled, no other round starts.
	op("CancelRepeat", "POST /api/repeats/{id}/cancel", http.StatusOK, func(ctx context.Context, s *service.Service, in wire.RepeatID) (wire.OK, error) {
		return wire.OK{OK: true}, s.CancelRepeat(ctx, in.ID)
	}),
	// Stops a run; its run_finished event (status cancelled) follows.
	op("CancelRun", "POST /api/runs/{id}/cancel", http.StatusOK, func(ctx context.Context, s *service.Service, in wire.RunRef) (wire.OK, error) {
		return wire.OK{OK: true}, s.CancelRun(ctx, in.ID)
	}).forStudents(),
	// Stored sessions, most recent first.
	op("Sessions", "GET /api/sessions", http.StatusOK, func(ctx context.Context, s *service.Service, in wire.SessionsQuery) ([]wire.SessionSummary, error) {
		if in.Limit <= 0 || in.Limit > 500 {
			in.Limit = 100
		}
		list, err := s.Sessions(ctx, in.Q, in.Limit)
		return wire.FromSessions(list), err
	}).forStudents(),
	// One session with its runs and their iterations.
	op("Session", "GET /api/sessions/{id}", http.StatusOK, func(ctx context.Context, s *service.Service, in wire.SessionRef) (wire.SessionDetail, error) {
		d, err := s.Session(ctx, in.ID)
		if err != nil {
			return wire.SessionDetail{}, err
		}
		return wire.FromSessionDetail(d), nil
	}).forStudents(),
	// One picture a run's program left (exec_finished and the stored
	// iteration name it), as a data: URL for an <img>.
	op("Image", "GET /api/runs/{run_id}/image", http.StatusOK, func(ctx context.Context, s *service.Service, in wire.ImageRef) (wire.ImageData, error) {
		im, err := s.Image(ctx, in.RunID, in.Iteration, in.Name)
		if err != nil {
			return wire.ImageData{}, err
		}
		return wire.FromImage(im), nil
	}).forStudents(),
	// Removes a session and everything in it.
	op("DeleteSession", "DELETE /api/sessions/{id}", http.StatusOK, func(ctx context.Context, s *service.Service, in wire.SessionRef) (wire.OK, error) {
		return wire.OK{OK: true}, s.DeleteSession(ctx, in.ID)
	}).forStudents(),
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

	// The classroom (`loopforge class`; see README "Teaching a class").
	// Who is calling: every face asks first (class is absent outside class mode).
	op("Me", "GET /api/me", http.StatusOK, func(ctx context.Context, s *service.Service, _ wire.None) (wire.Me, error) {
		me, err := s.Me(ctx)
		return wire.FromMe(me), err
	}).forStudents(),
	// Replaces the students' limits.
	op("ClassSettings", "PUT /api/class/limits", http.StatusOK, func(ctx context.Context, s *service.Service, in wire.ClassLimits) (wire.ClassView, error) {
		v, err := s.SetClassLimits(ctx, in.ToService())
		return wire.FromClassView(v), err
	}),
	// Pushes an assignment to every student's form (an empty prompt clears it).
	op("Assign", "PUT /api/class/assignment", http.StatusOK, func(ctx context.Context, s *service.Service, in wire.Assignment) (wire.ClassView, error) {
		v, err := s.Assign(ctx, in.ToService())
		return wire.FromClassView(v), err
	}),
	// Stops students from starting runs, or lets them again.
	op("PauseClass", "PUT /api/class/pause", http.StatusOK, func(ctx context.Context, s *service.Service, in wire.Pause) (wire.ClassView, error) {
		v, err := s.PauseClass(ctx, in.Paused)
		return wire.FromClassView(v), err
	}),
	// Puts a run on the stage ("" = none).
	op("SetSpotlight", "PUT /api/class/spotlight", http.StatusOK, func(ctx context.Context, s *service.Service, in wire.Spotlight) (wire.ClassView, error) {
		v, err := s.SetSpotlight(ctx, in.RunID)
		return wire.FromClassView(v), err
	}),
	// Every student's line, in join order (then live on the websocket).
	op("Wall", "GET /api/class/wall", http.StatusOK, func(ctx context.Context, s *service.Service, _ wire.None) ([]wire.WallEntry, error) {
		w, err := s.Wall(ctx)
		return wire.FromWall(w), err
	}),
	// A student's learning path: every run in order, with its iterations, errors, reflections and tokens.
	op("LearningPath", "GET /api/class/students/{id}/path", http.StatusOK, func(ctx context.Context, s *service.Service, in wire.PathRequest) (wire.LearningPath, error) {
		p, err := s.LearningPath(ctx, in.ClassID, in.StudentID)
		return wire.FromLearningPath(p), err
	}),
	// Removes a student: its cookie stops working, its sockets close, its runs are cancelled.
	op("RemoveStudent", "DELETE /api/class/students/{id}", http.StatusOK, func(ctx context.Context, s *service.Service, in wire.StudentRef) (wire.OK, error) {
		return wire.OK{OK: true}, s.RemoveStudent(ctx, in.ID)
	}),
	// The stored classes, most recent first.
	op("Classes", "GET /api/classes", http.StatusOK, func(ctx context.Context, s *service.Service, _ wire.None) ([]wire.ClassSummary, error) {
		cs, err := s.Classes(ctx)
		return wire.FromClasses(cs), err
	}),
	// A stored class as it was.
	op("ClassDetail", "GET /api/classes/{id}", http.StatusOK, func(ctx context.Context, s *service.Service, in wire.ClassRef) (wire.ClassDetail, error) {
		d, err := s.ClassDetail(ctx, in.ID)
		return wire.FromClassDetail(d), err
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
	{Name: "Join", Face: Web, Route: "POST /api/class/join",
		Why: "a student joins with the class's code (wire.JoinRequest → wire.Me): the one request without a token, rate-limited, and it sets the student's cookie; backend/server/class.go"},
	{Name: "ClassExport", Face: Web, Route: "GET /api/class/export",
		Why: "the class's scripts, summary, attempts and grade sheet as a download (?format=zip|csv|md|attempts|grades|grade-tests, &class=ID for a stored one); backend/server/class.go"},
	{Name: "Export", Face: Web, Route: "GET /api/sessions/{id}/export",
		Why: "a file download (an attachment, never JSON or a page: an HTML handout holds model output); backend/server/api.go"},
	{Name: "ExportSession", Face: Desktop,
		Why: "renders an export and saves it through the native save dialog; app.go"},
	{Name: "ChooseWorkdir", Face: Desktop,
		Why: "the native folder dialog, then SetWorkdir; app.go"},
	{Name: "workdir:changed, workdir:error", Face: Desktop,
		Why: "Wails runtime events: a folder dropped on the window becomes the workdir; app.go startup"},
}
