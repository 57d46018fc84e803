package server

import (
	"context"
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/loopforge/loopforge/backend/config"
	"github.com/loopforge/loopforge/backend/loop"
	"github.com/loopforge/loopforge/backend/service"
	"github.com/loopforge/loopforge/backend/store"
)

// Backend is what the API needs from the service (consumer-side interface).
type Backend interface {
	Providers() []service.ProviderStatus
	Defaults() service.Defaults
	Presets() []config.Preset
	StartRun(ctx context.Context, req service.RunRequest) (service.RunInfo, error)
	Cancel(runID string) error
	Sessions(ctx context.Context, query string, limit int) ([]store.SessionSummary, error)
	Session(ctx context.Context, id string) (*service.SessionDetail, error)
	DeleteSession(ctx context.Context, id string) error
	Subscribe(ctx context.Context, runID string, after int64) (*service.Subscription, error)
	Workdir() string
	SetWorkdir(path string) (string, error)
	Folders(path string) (service.FolderListing, error)
	StartCompare(ctx context.Context, req service.CompareRequest) (service.CompareInfo, error)
	Comparison(ctx context.Context, sessionID string) ([]service.ComparisonRow, error)
	Stats(ctx context.Context) (service.Stats, error)
	Export(ctx context.Context, sessionID, format, runID string) (string, []byte, error)
}

// CompareRequest is the wire form of service.CompareRequest.
type CompareRequest struct {
	RunRequest
	Providers []string `json:"providers"`
}

// Workdir is the wire form of the working directory.
type Workdir struct {
	Path string `json:"path"`
}

// RunRequest is the wire form of service.RunRequest: durations in seconds
// so JavaScript needs no Go duration parsing.
type RunRequest struct {
	SessionID      string  `json:"session_id,omitempty"`
	Prompt         string  `json:"prompt"`
	Provider       string  `json:"provider,omitempty"`
	Model          string  `json:"model,omitempty"`
	BaseURL        string  `json:"base_url,omitempty"`
	MaxIterations  int     `json:"max_iterations,omitempty"`
	Reflect        *bool   `json:"reflect,omitempty"`
	TimeoutSeconds float64 `json:"timeout_seconds,omitempty"`
	Language       string  `json:"language,omitempty"`
	Fresh          bool    `json:"fresh,omitempty"` // a new thread in session_id (re-run one provider of a comparison)
	// AllowNetwork lets this run's generated code reach the network (off by default).
	AllowNetwork bool `json:"allow_network,omitempty"`

	// Workspace mode: mode "workspace" edits the project in workdir ("" =
	// the current workdir), runs the validate commands after each attempt,
	// has the auditor profile review it, and commits to a loopforge/ branch.
	Mode     string     `json:"mode,omitempty"`
	Workdir  string     `json:"workdir,omitempty"`
	Validate []string   `json:"validate,omitempty"`
	Auditor  string     `json:"auditor,omitempty"`
	Task     *loop.Task `json:"task,omitempty"` // inputs and constraints (instructions default to prompt)
}

// ToService converts the wire request. A timeout that is not a positive
// number of seconds within config.MaxTimeout is refused (0 or absent: the
// configured default), like the CLI's --timeout.
func (r RunRequest) ToService() (service.RunRequest, error) {
	var timeout time.Duration
	if r.TimeoutSeconds != 0 {
		d, err := config.CheckTimeoutSeconds("timeout_seconds", r.TimeoutSeconds)
		if err != nil {
			return service.RunRequest{}, fmt.Errorf("%w: %w", service.ErrInvalidRequest, err)
		}
		timeout = d
	}
	return service.RunRequest{
		SessionID: r.SessionID, Prompt: r.Prompt, Provider: r.Provider, Model: r.Model, BaseURL: r.BaseURL,
		MaxIterations: r.MaxIterations, Reflect: r.Reflect, Language: r.Language, Fresh: r.Fresh,
		Timeout:      timeout,
		AllowNetwork: r.AllowNetwork,
		Mode:         r.Mode, Workdir: r.Workdir, Validate: r.Validate, Auditor: r.Auditor, Task: r.Task,
	}, nil
}

func (s *Server) routeAPI() {
	b := s.opts.Backend
	if b == nil {
		return
	}
	s.mux.HandleFunc("GET /api/providers", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, b.Providers())
	})
	s.mux.HandleFunc("GET /api/defaults", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, b.Defaults())
	})
	s.mux.HandleFunc("GET /api/presets", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, b.Presets())
	})
	s.mux.HandleFunc("POST /api/runs", func(w http.ResponseWriter, r *http.Request) {
		var wire RunRequest
		if !decode(w, r, &wire) {
			return
		}
		req, err := wire.ToService()
		if err != nil {
			s.fail(w, err)
			return
		}
		info, err := b.StartRun(r.Context(), req)
		if err != nil {
			s.fail(w, err)
			return
		}
		writeJSON(w, http.StatusCreated, info)
	})
	s.mux.HandleFunc("POST /api/compare", func(w http.ResponseWriter, r *http.Request) {
		var wire CompareRequest
		if !decode(w, r, &wire) {
			return
		}
		req, err := wire.ToService()
		if err != nil {
			s.fail(w, err)
			return
		}
		info, err := b.StartCompare(r.Context(), service.CompareRequest{RunRequest: req, Providers: wire.Providers})
		if err != nil {
			s.fail(w, err)
			return
		}
		writeJSON(w, http.StatusCreated, info)
	})
	s.mux.HandleFunc("GET /api/sessions/{id}/comparison", func(w http.ResponseWriter, r *http.Request) {
		rows, err := b.Comparison(r.Context(), r.PathValue("id"))
		if err != nil {
			s.fail(w, err)
			return
		}
		writeJSON(w, http.StatusOK, rows)
	})
	s.mux.HandleFunc("POST /api/runs/{id}/cancel", func(w http.ResponseWriter, r *http.Request) {
		if err := b.Cancel(r.PathValue("id")); err != nil {
			s.fail(w, err)
			return
		}
		writeJSON(w, http.StatusOK, map[string]bool{"ok": true})
	})
	s.mux.HandleFunc("GET /api/sessions", func(w http.ResponseWriter, r *http.Request) {
		limit, _ := strconv.Atoi(r.URL.Query().Get("limit"))
		if limit <= 0 || limit > 500 {
			limit = 100
		}
		list, err := b.Sessions(r.Context(), r.URL.Query().Get("q"), limit)
		if err != nil {
			s.fail(w, err)
			return
		}
		if list == nil {
			list = []store.SessionSummary{}
		}
		writeJSON(w, http.StatusOK, list)
	})
	s.mux.HandleFunc("GET /api/sessions/{id}", func(w http.ResponseWriter, r *http.Request) {
		d, err := b.Session(r.Context(), r.PathValue("id"))
		if err != nil {
			s.fail(w, err)
			return
		}
		writeJSON(w, http.StatusOK, d)
	})
	s.mux.HandleFunc("DELETE /api/sessions/{id}", func(w http.ResponseWriter, r *http.Request) {
		if err := b.DeleteSession(r.Context(), r.PathValue("id")); err != nil {
			s.fail(w, err)
			return
		}
		writeJSON(w, http.StatusOK, map[string]bool{"ok": true})
	})
	s.mux.HandleFunc("GET /api/workdir", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, Workdir{Path: b.Workdir()})
	})
	s.mux.HandleFunc("GET /api/folders", func(w http.ResponseWriter, r *http.Request) {
		l, err := b.Folders(r.URL.Query().Get("path"))
		if err != nil {
			s.fail(w, err)
			return
		}
		writeJSON(w, http.StatusOK, l)
	})
	s.mux.HandleFunc("PUT /api/workdir", func(w http.ResponseWriter, r *http.Request) {
		var req Workdir
		if !decode(w, r, &req) {
			return
		}
		p, err := b.SetWorkdir(req.Path)
		if err != nil {
			s.fail(w, err)
			return
		}
		writeJSON(w, http.StatusOK, Workdir{Path: p})
	})
	// Exports download as attachments: an HTML handout holds model output and
	// must never render on this origin.
	s.mux.HandleFunc("GET /api/sessions/{id}/export", func(w http.ResponseWriter, r *http.Request) {
		name, data, err := b.Export(r.Context(), r.PathValue("id"), r.URL.Query().Get("format"), r.URL.Query().Get("run"))
		if err != nil {
			s.fail(w, err)
			return
		}
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Header().Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": name}))
		_, _ = w.Write(data)
	})
	s.mux.HandleFunc("GET /api/stats", func(w http.ResponseWriter, r *http.Request) {
		st, err := b.Stats(r.Context())
		if err != nil {
			s.fail(w, err)
			return
		}
		writeJSON(w, http.StatusOK, st)
	})
	s.mux.HandleFunc("GET /api/ws", s.websocket)
}

// decode reads a JSON body of at most 1 MiB, rejecting unknown fields.
func decode(w http.ResponseWriter, r *http.Request, v any) bool {
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<20))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		writeError(w, http.StatusBadRequest, "invalid JSON body: "+err.Error())
		return false
	}
	return true
}

// httpStatus turns service.Classify's verdict into an HTTP status.
var httpStatus = map[service.Class]int{
	service.ClassInternal:      http.StatusInternalServerError,
	service.ClassInvalid:       http.StatusBadRequest,
	service.ClassNotFound:      http.StatusNotFound,
	service.ClassUnavailable:   http.StatusConflict,
	service.ClassProviderSetup: http.StatusBadRequest,
	service.ClassProvider:      http.StatusBadGateway,
}

// fail answers a domain error with the status of its class and its first
// line; only internal errors are logged (the others are the caller's to fix).
func (s *Server) fail(w http.ResponseWriter, err error) {
	class := service.Classify(err)
	if class == service.ClassInternal {
		s.opts.Logger.Error("api call failed", "err", err)
	}
	msg := err.Error()
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = msg[:i]
	}
	writeError(w, httpStatus[class], msg)
}
