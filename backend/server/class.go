package server

import (
	"context"
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

// join adds a student. Wrong codes are limited per client address; a
// flood of them over all addresses rotates the class's code instead of
// closing the door, so a student with the right code always gets in.
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
	if errors.Is(err, service.ErrWrongCode) && s.joins.failed(ip, time.Now()) {
		s.rotateJoinCode()
	}
	if err != nil {
		s.fail(w, err)
		return
	}
	http.SetCookie(w, &http.Cookie{Name: StudentCookie, Value: tok, Path: "/", HttpOnly: true,
		SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil})
	writeJSON(w, http.StatusOK, wire.FromMe(me))
}

// rotateJoinCode answers a flood of wrong codes: whoever is guessing now
// guesses against a code nobody has seen, and the instructor's page shows
// the new one. It acts as the server, not as the request's caller.
func (s *Server) rotateJoinCode() {
	ctx := access.With(context.Background(), access.Caller{Role: access.Instructor})
	if _, err := s.opts.Backend.RotateJoinCode(ctx); err != nil {
		s.opts.Logger.Warn("rotating the join code after a flood of wrong codes", "err", err)
		return
	}
	s.opts.Logger.Warn("join code rotated: a flood of wrong codes", "per_minute", joinOverall)
}

// clientIP is the request's peer address. X-Forwarded-For and the like are
// not read: loopforge is not meant to sit behind a proxy, and a header any
// client can set would let one machine pose as many.
func clientIP(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// Join attempts with a wrong code: at most joinPerIP per client address
// within joinWindow, then that address waits (429) until its oldest failure
// leaves the window. joinOverall wrong codes within joinWindow over all
// addresses is a flood: the code rotates and the count starts again; no
// one is refused for what other addresses did. joinMaxTracked bounds the
// addresses remembered, so a flood from many addresses cannot grow memory
// without end.
const (
	joinPerIP      = 5
	joinOverall    = 60
	joinWindow     = time.Minute
	joinMaxTracked = 4096
)

// joinLimiter counts wrong join codes. Hand-written: the per-address
// limiter libraries (x/time/rate) count every request, not only failures,
// and know nothing of a flood over all addresses.
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
	mine := recent(l.perIP[ip], now)
	if len(mine) == 0 {
		delete(l.perIP, ip)
	} else {
		l.perIP[ip] = mine
	}
	if len(mine) >= joinPerIP {
		return mine[0].Add(joinWindow).Sub(now), true
	}
	return 0, false
}

// failed records a wrong code from ip. It reports a flood (joinOverall
// within joinWindow over all addresses), once: the count starts again.
func (l *joinLimiter) failed(ip string, now time.Time) (flood bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.perIP == nil {
		l.perIP = map[string][]time.Time{}
	}
	if len(l.perIP) >= joinMaxTracked {
		l.forget(now)
	}
	l.perIP[ip] = append(l.perIP[ip], now)
	l.all = append(recent(l.all, now), now)
	if len(l.all) < joinOverall {
		return false
	}
	l.all = nil
	return true
}

// forget drops the addresses whose failures left the window and, if that
// is not enough, every address: a flood that large rotates the code
// anyway, and an address forgotten early only gets 5 more guesses; l.mu is
// held.
func (l *joinLimiter) forget(now time.Time) {
	for ip, ts := range l.perIP {
		if len(recent(ts, now)) == 0 {
			delete(l.perIP, ip)
		}
	}
	if len(l.perIP) >= joinMaxTracked {
		clear(l.perIP)
	}
}

// classExport downloads the class (instructor only): ?format=zip|csv|md|attempts|grades|grade-tests,
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
