package server

import (
	"crypto/subtle"
	"net/http"
	"strings"
	"sync"
	"time"
)

// A launch code stands in for the token in the URL handed to a browser
// (`loopforge` with no desktop window opens one). Whatever starts the
// browser carries that URL on its command line, which other users of a
// shared lab machine can read in the process list while it runs; a code
// that works once, within a short time, is worth nothing to them after the
// browser used it. The first visit trades it for the token's cookie, as
// ?token= does.
const launchTTL = 2 * time.Minute

// LaunchParam is the query parameter that carries a launch code.
const LaunchParam = "launch"

type launchCodes struct {
	mu    sync.Mutex
	codes map[string]time.Time // code → expiry
}

// LaunchCode returns a new code that opens the UI once, within two minutes.
func (s *Server) LaunchCode() string {
	code := NewToken()
	s.launch.mu.Lock()
	defer s.launch.mu.Unlock()
	if s.launch.codes == nil {
		s.launch.codes = map[string]time.Time{}
	}
	s.launch.codes[code] = time.Now().Add(launchTTL)
	return code
}

// take spends code: true when it was issued, unused and in time.
func (l *launchCodes) take(code string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := time.Now()
	ok := false
	for c, exp := range l.codes {
		if now.After(exp) {
			delete(l.codes, c)
			continue
		}
		if subtle.ConstantTimeCompare([]byte(c), []byte(code)) == 1 {
			delete(l.codes, c)
			ok = true
		}
	}
	return ok
}

// redeemLaunch answers a page request carrying a valid launch code: the
// token's cookie, and the same page without the code. It reports whether
// it answered.
func (s *Server) redeemLaunch(w http.ResponseWriter, r *http.Request) bool {
	code := r.URL.Query().Get(LaunchParam)
	if code == "" || r.Method != http.MethodGet || strings.HasPrefix(r.URL.Path, "/api/") || s.opts.Token == "" {
		return false
	}
	if !s.launch.take(code) {
		return false
	}
	s.setTokenCookie(w, r, s.opts.Token, LaunchParam)
	return true
}
