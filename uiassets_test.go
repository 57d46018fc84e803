package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"
)

// A binary built before the frontend serves the "not built" page at /; a
// built one serves the app.
func TestUIAssets(t *testing.T) {
	missing := &fstest.MapFile{Data: []byte("<h1>The loopforge UI is not built</h1>")}
	for name, tt := range map[string]struct {
		fs   fstest.MapFS
		want string
	}{
		"not built": {fstest.MapFS{"ui-missing.html": missing}, "not built"},
		"built": {fstest.MapFS{"ui-missing.html": missing, "index.html": {Data: []byte(`<div id="root"></div>`)},
			"assets/app.js": {Data: []byte("1")}}, `<div id="root">`},
	} {
		t.Run(name, func(t *testing.T) {
			srv := httptest.NewServer(http.FileServerFS(uiAssets(tt.fs)))
			defer srv.Close()
			res, err := http.Get(srv.URL + "/")
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if res.StatusCode != http.StatusOK || !strings.Contains(string(body), tt.want) {
				t.Fatalf("GET /: %d %q, want %q", res.StatusCode, body, tt.want)
			}
		})
	}
}
