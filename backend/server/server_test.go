package server

import (
	"encoding/json"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"
)

func newTestServer(t *testing.T) (*httptest.Server, string) {
	t.Helper()
	tok := NewToken()
	assets := fstest.MapFS{"index.html": {Data: []byte(`<div id="root"></div>`)}}
	ts := httptest.NewServer(New(Options{Assets: assets, Token: tok, Version: "9.9.9"}))
	t.Cleanup(ts.Close)
	return ts, tok
}

func TestTokenRequired(t *testing.T) {
	ts, tok := newTestServer(t)
	for _, path := range []string{"/api/health", "/", "/index.html"} {
		resp, err := http.Get(ts.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("%s without token: %d, want 401", path, resp.StatusCode)
		}
	}
	req, _ := http.NewRequest("GET", ts.URL+"/api/health", nil)
	req.Header.Set("Authorization", "Bearer "+tok+"x")
	resp, _ := http.DefaultClient.Do(req)
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("wrong token: %d", resp.StatusCode)
	}
	req.Header.Set("Authorization", "Bearer "+tok)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body map[string]string
	_ = json.NewDecoder(resp.Body).Decode(&body)
	if resp.StatusCode != 200 || body["version"] != "9.9.9" {
		t.Fatalf("%d %v", resp.StatusCode, body)
	}
}

func TestTokenURLSetsCookieAndRedirects(t *testing.T) {
	ts, tok := newTestServer(t)
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar}
	resp, err := c.Get(ts.URL + "/?token=" + tok)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || strings.Contains(resp.Request.URL.RawQuery, "token") {
		t.Fatalf("%d, final URL %s: want 200 with the token dropped from the URL", resp.StatusCode, resp.Request.URL)
	}
	resp, err = c.Get(ts.URL + "/api/health")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("cookie did not authorise the API: %d", resp.StatusCode)
	}
	if resp.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Fatal("CORS header sent")
	}
}

func TestForeignOriginRefused(t *testing.T) {
	ts, tok := newTestServer(t)
	req, _ := http.NewRequest("GET", ts.URL+"/api/health", nil)
	req.Header.Set("Authorization", "Bearer "+tok)
	req.Header.Set("Origin", "http://evil.example")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("foreign origin: %d, want 403", resp.StatusCode)
	}
	req.Header.Set("Origin", ts.URL)
	resp, _ = http.DefaultClient.Do(req)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("own origin: %d", resp.StatusCode)
	}
}

func TestIsLoopback(t *testing.T) {
	for h, want := range map[string]bool{"127.0.0.1": true, "::1": true, "localhost": true, "0.0.0.0": false, "192.168.1.2": false, "": false} {
		if IsLoopback(h) != want {
			t.Errorf("%q", h)
		}
	}
}
