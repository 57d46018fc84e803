// Package server is the web face: the embedded frontend and a JSON API on
// loopback, guarded by a random token (like Jupyter's).
//
// Every request must carry the token: as `Authorization: Bearer TOKEN`, as
// the cookie set when the printed URL (…/?token=TOKEN) is first opened, or as
// a `token` query parameter. Requests with a foreign Origin are refused, and
// no CORS headers are ever sent.
package server

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/loopforge/loopforge/backend/access"
	"github.com/loopforge/loopforge/backend/service"
	"github.com/loopforge/loopforge/backend/wire"
)

// CookieName holds the token after the first visit.
const CookieName = "loopforge_token"

// Options configure a Server.
type Options struct {
	Assets  fs.FS  // the built frontend (index.html at its root)
	Token   string // required on every request; NewToken makes one
	Version string
	Logger  *slog.Logger
	// Backend serves the operations of backend/api and the event
	// websocket; nil = health only.
	Backend *service.Service
	// ExtraOrigins are accepted besides the server's own, e.g. the desktop
	// webview's "wails://wails" when it opens the event websocket.
	ExtraOrigins []string
	// PingInterval is how often the event websocket pings its client; a
	// client silent for two intervals (no pong, no message) is dropped.
	// 0 means 30 s.
	PingInterval time.Duration
}

// Server is an http.Handler.
type Server struct {
	opts Options
	mux  *http.ServeMux
	// wsSubs counts the websocket subscriptions still streaming, over all
	// connections.
	wsSubs atomic.Int64
	// joins limits the join attempts with a wrong class code.
	joins joinLimiter
	// launch holds the one-time codes handed to a browser (launch.go).
	launch launchCodes
}

// NewToken returns 32 random hex characters.
func NewToken() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b) // crypto/rand never fails on Linux
	return hex.EncodeToString(b)
}

// New builds the handler.
func New(o Options) *Server {
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	s := &Server{opts: o, mux: http.NewServeMux()}
	s.mux.HandleFunc("GET /api/health", s.health)
	s.routeAPI()
	s.routeClass()
	s.mux.HandleFunc("/api/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, coded(service.CodeNoEndpoint, "no such API endpoint: "+r.Method+" "+r.URL.Path,
			"method", r.Method, "path", r.URL.Path))
	})
	if o.Assets != nil {
		s.mux.Handle("/", http.FileServerFS(o.Assets))
	}
	return s
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer") // the token must not leak through Referer
	h.Set("X-Frame-Options", "DENY")
	h.Set("Content-Security-Policy", "default-src 'self'; connect-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'")

	if !s.originAllowed(r) {
		writeError(w, http.StatusForbidden, coded(service.CodeOrigin, "cross-origin request refused"))
		return
	}
	tok, fromQuery := s.token(r)
	if subtle.ConstantTimeCompare([]byte(tok), []byte(s.opts.Token)) != 1 || s.opts.Token == "" {
		if s.redeemLaunch(w, r) {
			return
		}
		if caller, ok := s.student(r); ok {
			s.mux.ServeHTTP(w, r.WithContext(access.With(r.Context(), caller)))
			return
		}
		if s.public(w, r) {
			return
		}
		if strings.HasPrefix(r.URL.Path, "/api/") {
			writeError(w, http.StatusUnauthorized, coded(service.CodeToken, "missing or wrong token: open the URL printed by `loopforge serve`"))
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = w.Write([]byte(`<!doctype html><title>loopforge</title><p style="font:16px system-ui;margin:3em">` +
			`This loopforge server needs its access token. Open the full URL that <code>loopforge serve</code> printed (it ends in <code>?token=…</code>).</p>`))
		return
	}
	if fromQuery && r.Method == http.MethodGet && !strings.HasPrefix(r.URL.Path, "/api/") {
		s.setTokenCookie(w, r, tok, "token") // first visit
		return
	}
	s.mux.ServeHTTP(w, r.WithContext(access.With(r.Context(), access.Caller{Role: access.Instructor})))
}

// setTokenCookie keeps tok in a cookie and sends the browser back to the
// same page without param, so the address bar shows no secret.
func (s *Server) setTokenCookie(w http.ResponseWriter, r *http.Request, tok, param string) {
	http.SetCookie(w, &http.Cookie{Name: CookieName, Value: tok, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
	u := *r.URL
	q := u.Query()
	q.Del(param)
	u.RawQuery = q.Encode()
	http.Redirect(w, r, u.RequestURI(), http.StatusSeeOther)
}

func (s *Server) token(r *http.Request) (tok string, fromQuery bool) {
	if a := r.Header.Get("Authorization"); strings.HasPrefix(a, "Bearer ") {
		return strings.TrimPrefix(a, "Bearer "), false
	}
	if q := r.URL.Query().Get("token"); q != "" {
		return q, true
	}
	if c, err := r.Cookie(CookieName); err == nil {
		return c.Value, false
	}
	return "", false
}

// originAllowed accepts requests without an Origin (curl, same-origin GETs),
// those whose Origin is this server's own http://host:port, and ExtraOrigins.
func (s *Server) originAllowed(r *http.Request) bool {
	o := r.Header.Get("Origin")
	if o == "" {
		return true
	}
	for _, x := range s.opts.ExtraOrigins {
		if strings.EqualFold(o, x) {
			return true
		}
	}
	u, err := url.Parse(o)
	if err != nil {
		return false
	}
	return (u.Scheme == "http" || u.Scheme == "https") && strings.EqualFold(u.Host, r.Host)
}

func (s *Server) health(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, wire.Health{Status: "ok", Version: s.opts.Version})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// writeError answers with the body every failure has (wire.ErrorBody).
func writeError(w http.ResponseWriter, status int, e wire.ErrorBody) {
	writeJSON(w, status, e)
}

// IsLoopback reports whether host (an IP or "localhost") is a loopback address.
func IsLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
