package server

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/loopforge/loopforge/backend/wire"
)

// TestImageOperation: a picture a run's program wrote comes back as a
// data: URL of its checked type, in JSON (never served as an SVG document
// on this origin); a missing one is 404, a request without its iteration
// or name 400.
func TestImageOperation(t *testing.T) {
	const svg = `<svg xmlns="http://www.w3.org/2000/svg"/>`
	svc := newBackend(t, wordModel{program: "open('dot.svg', 'w').write('" + svg + "')\n"})
	ts, tok := apiServer(t, svc)
	info := startRun(t, ts, tok)
	if _, err := svc.Wait(context.Background(), info.RunID); err != nil {
		t.Fatal(err)
	}
	base := "/api/runs/" + info.RunID + "/image"
	status, body := call(t, ts, tok, "GET", base+"?iteration=1&name=dot.svg", "")
	if status != http.StatusOK {
		t.Fatalf("%d %s", status, body)
	}
	var im wire.ImageData
	if err := json.Unmarshal(body, &im); err != nil {
		t.Fatal(err)
	}
	if want := "data:image/svg+xml;base64," + base64.StdEncoding.EncodeToString([]byte(svg)); im.DataURL != want || im.Name != "dot.svg" || im.MIME != "image/svg+xml" {
		t.Errorf("got %+v", im)
	}
	for q, want := range map[string]int{
		"?iteration=1&name=other.svg": http.StatusNotFound,
		"?iteration=2&name=dot.svg":   http.StatusNotFound,
		"?name=dot.svg":               http.StatusBadRequest,
		"?iteration=1":                http.StatusBadRequest,
	} {
		status, body := call(t, ts, tok, "GET", base+q, "")
		if status != want || errorOf(t, body) == "" {
			t.Errorf("%s: %d %s, want %d with a message", q, status, body, want)
		}
	}
	if status, _ := call(t, ts, tok, "GET", "/api/runs/no-such-run/image?iteration=1&name=dot.svg", ""); status != http.StatusNotFound {
		t.Errorf("unknown run: %d", status)
	}
}
