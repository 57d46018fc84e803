package server

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"testing/fstest"
	"time"
)

// TestLaunchCode: a launch code opens the UI once (the token's cookie and a
// redirect without the code), never twice, never after it expired, and
// never as an API credential.
func TestLaunchCode(t *testing.T) {
	s := New(Options{Token: "tok", Assets: fstest.MapFS{"index.html": {Data: []byte("<div id=\"root\">")}}})
	visit := func(method, target string) *httptest.ResponseRecorder {
		w := httptest.NewRecorder()
		s.ServeHTTP(w, httptest.NewRequest(method, target, nil))
		return w
	}
	code := s.LaunchCode()
	if w := visit(http.MethodGet, "/api/health?launch="+code); w.Code != http.StatusUnauthorized {
		t.Fatalf("API with a launch code: %d, want 401", w.Code)
	}
	if w := visit(http.MethodPost, "/?launch="+code); w.Code != http.StatusUnauthorized {
		t.Fatalf("POST with a launch code: %d, want 401", w.Code)
	}
	w := visit(http.MethodGet, "/?launch="+code+"&x=1")
	if w.Code != http.StatusSeeOther || w.Header().Get("Location") != "/?x=1" {
		t.Fatalf("first visit: %d to %q, want 303 to /?x=1", w.Code, w.Header().Get("Location"))
	}
	if c := w.Result().Cookies(); len(c) != 1 || c[0].Name != CookieName || c[0].Value != "tok" || !c[0].HttpOnly {
		t.Fatalf("cookies %v, want the token's", c)
	}
	if w := visit(http.MethodGet, "/?launch="+code); w.Code != http.StatusUnauthorized {
		t.Fatalf("second visit: %d, want 401", w.Code)
	}
	if w := visit(http.MethodGet, "/?launch=not-issued"); w.Code != http.StatusUnauthorized {
		t.Fatalf("unknown code: %d, want 401", w.Code)
	}
	old := s.LaunchCode()
	s.launch.mu.Lock()
	s.launch.codes[old] = time.Now().Add(-time.Second)
	s.launch.mu.Unlock()
	if w := visit(http.MethodGet, "/?launch="+old); w.Code != http.StatusUnauthorized {
		t.Fatalf("expired code: %d, want 401", w.Code)
	}
}
