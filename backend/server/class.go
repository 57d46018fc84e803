package server

import (
	"encoding/json"
	"errors"
	"io/fs"
	"mime"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/loopforge/loopforge/backend/access"
	"github.com/loopforge/loopforge/backend/service"
	"github.com/loopforge/loopforge/backend/wire"
)

// The classroom's web side: students hold a cookie of their own
// (StudentCookie, set by the join), and in class mode the join page and the
// frontend's files are served without any token.

// StudentCookie holds a student's token (HttpOnly, SameSite=Strict).
const StudentCookie = "loopforge_student"

func (s *Server) routeClass() {
	if s.opts.Backend == nil {
		return
	}
	s.mux.HandleFunc("POST /api/class/join", s.join)
	s.mux.HandleFunc("GET /api/class/export", s.classExport)
	if s.opts.Assets != nil {
		s.mux.HandleFunc("GET /join", s.index)
	}
}

// roleOf is the wire role of a request's caller.
func roleOf(r *http.Request) wire.Role {
	if access.From(r.Context()).IsStudent() {
		return wire.RoleStudent
	}
	return wire.RoleInstructor
}

// student returns the caller of a request carrying a valid student cookie.
func (s *Server) student(r *http.Request) (access.Caller, bool) {
	if s.opts.Backend == nil {
		return access.Caller{}, false
	}
	c, err := r.Cookie(StudentCookie)
	if err != nil {
		return access.Caller{}, false
	}
	caller, err := s.opts.Backend.Student(c.Value)
	return caller, err == nil
}

// public serves, in class mode, what a browser without a token may get:
// the join request, the join page and the frontend's files (/ leads to the
// join page). It reports whether it answered.
func (s *Server) public(w http.ResponseWriter, r *http.Request) bool {
	if s.opts.Backend == nil || !s.opts.Backend.InClass() {
		return false
	}
	p := r.URL.Path
	switch {
	case r.Method == http.MethodPost && p == "/api/class/join":
		s.join(w, r)
	case r.Method != http.MethodGet && r.Method != http.MethodHead:
		return false
	case p == "/" && r.URL.Query().Get("token") == "":
		http.Redirect(w, r, "/join", http.StatusSeeOther)
	case p == "/join" && s.opts.Assets != nil:
		s.index(w, r)
	case strings.HasPrefix(p, "/assets/") || p == "/favicon.svg":
		if s.opts.Assets == nil {
			return false
		}
		s.mux.ServeHTTP(w, r)
	default:
		return false
	}
	return true
}

// index serves the single-page app's index.html (its router shows /join).
func (s *Server) index(w http.ResponseWriter, r *http.Request) {
	b, err := fs.ReadFile(s.opts.Assets, "index.html")
	if err != nil {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	_, _ = w.Write(b)
}

// join adds a student: rate-limited per client address (and over all of
// them), it sets the student's cookie and answers with Me.
func (s *Server) join(w http.ResponseWriter, r *http.Request) {
	ip := clientIP(r)
	if wait, blocked := s.joins.blocked(ip, time.Now()); blocked {
		secs := max(1, int(wait.Seconds()+0.999))
		w.Header().Set("Retry-After", strconv.Itoa(secs))
		writeError(w, http.StatusTooManyRequests, coded(service.CodeJoinRate, "too many wrong codes: try again in "+strconv.Itoa(secs)+" seconds", "seconds", strconv.Itoa(secs)))
		return
	}
	var req wire.JoinRequest
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, 4<<10))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		if big, ok := errors.AsType[*http.MaxBytesError](err); ok {
			writeError(w, http.StatusRequestEntityTooLarge, tooLarge(big.Limit))
			return
		}
		writeError(w, http.StatusBadRequest, coded(service.CodeBadInput, "invalid JSON body: "+err.Error(), "detail", "invalid JSON body: "+err.Error()))
		return
	}
	me, tok, err := s.opts.Backend.Join(r.Context(), req.Code, req.Name)
	if errors.Is(err, service.ErrWrongCode) {
		s.joins.failed(ip, time.Now())
	}
	if err != nil {
		s.fail(w, err)
		return
	}
	http.SetCookie(w, &http.Cookie{Name: StudentCookie, Value: tok, Path: "/", HttpOnly: true,
		SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil})
	writeJSON(w, http.StatusOK, wire.FromMe(me))
}

func clientIP(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// Join attempts with a wrong code: at most joinPerIP per client address
// and joinOverall over all addresses within joinWindow; then 429 until the
// oldest failure leaves the window.
const (
	joinPerIP   = 5
	joinOverall = 60
	joinWindow  = time.Minute
)

type joinLimiter struct {
	mu    sync.Mutex
	perIP map[string][]time.Time
	all   []time.Time
}

func recent(ts []time.Time, now time.Time) []time.Time {
	i := 0
	for i < len(ts) && now.Sub(ts[i]) >= joinWindow {
		i++
	}
	return ts[i:]
}

// blocked says whether ip must wait, and how long.
func (l *joinLimiter) blocked(ip string, now time.Time) (time.Duration, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.perIP == nil {
		l.perIP = map[string][]time.Time{}
	}
	l.all = recent(l.all, now)
	mine := recent(l.perIP[ip], now)
	if len(mine) == 0 {
		delete(l.perIP, ip)
	} else {
		l.perIP[ip] = mine
	}
	switch {
	case len(mine) >= joinPerIP:
		return mine[0].Add(joinWindow).Sub(now), true
	case len(l.all) >= joinOverall:
		return l.all[0].Add(joinWindow).Sub(now), true
	}
	return 0, false
}

func (l *joinLimiter) failed(ip string, now time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.perIP == nil {
		l.perIP = map[string][]time.Time{}
	}
	l.perIP[ip] = append(l.perIP[ip], now)
	l.all = append(l.all, now)
}

// classExport downloads the class (instructor only): ?format=zip|csv|md,
// &lang= and &tz= as for a session export,
// &class=ID for a stored class (default: the open one).
func (s *Server) classExport(w http.ResponseWriter, r *http.Request) {
	if roleOf(r) != wire.RoleInstructor {
		writeError(w, http.StatusForbidden, coded(service.CodeStudentOnly, "students cannot export the class", "operation", "ClassExport"))
		return
	}
	q := r.URL.Query()
	name, data, err := s.opts.Backend.ExportClass(r.Context(), q.Get("class"), q.Get("format"), q.Get("lang"), q.Get("tz"))
	if err != nil {
		s.fail(w, err)
		return
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": name}))
	_, _ = w.Write(data)
}
