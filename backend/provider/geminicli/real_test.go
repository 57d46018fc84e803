package geminicli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loopforge/loopforge/backend/provider"
	"github.com/loopforge/loopforge/backend/provider/cliproc/clitest"
)

// TestRealCLI drives the real gemini (installed by `make test-clis`) through
// the adapter against a fake Gemini API server: token streaming, session,
// usage, and a resume from a fresh private workdir (gemini files sessions
// per project directory). It catches drift in gemini's flags and events.
func TestRealCLI(t *testing.T) {
	bin := clitest.RealCLI(t, "gemini")
	const answer = "Here is the program:\n\n```python\nprint(\"hello from the fake model\")\n```"
	srv := clitest.NewModelServer(t, answer)
	home := t.TempDir()
	settings := `{"security":{"auth":{"selectedType":"gemini-api-key"}},"privacy":{"usageStatisticsEnabled":false},` +
		`"telemetry":{"enabled":false},"general":{"disableAutoUpdate":true,"disableUpdateNag":true}}`
	if err := os.MkdirAll(filepath.Join(home, ".gemini"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".gemini", "settings.json"), []byte(settings), 0o600); err != nil {
		t.Fatal(err)
	}
	c := newClient(t, provider.Profile{Binary: bin, Model: "gemini-2.5-flash",
		BaseURL: srv.URL, APIKeyEnv: "FAKE_GEMINI_KEY", APIKey: "dummy-key-0123456789", Timeout: 2 * time.Minute,
		Env: map[string]string{"HOME": home}})
	clitest.CheckVersion(t, c, "0.61.0")

	deltas, done := clitest.MustStream(t, c, clitest.HelloRequest())
	clitest.CheckStreamed(t, deltas, done, answer, "gemini-2.5-flash")
	reqs := srv.Requests()
	var turns []clitest.ModelRequest
	for _, r := range reqs {
		if strings.HasSuffix(r.Path, ":streamGenerateContent") {
			turns = append(turns, r)
		}
	}
	if len(turns) != 1 || turns[0].Header.Get("X-Goog-Api-Key") != "dummy-key-0123456789" ||
		!strings.Contains(turns[0].Path, "gemini-2.5-flash") {
		t.Fatalf("%d model turns among %d requests", len(turns), len(reqs))
	}
	t.Logf("gemini: session %s, %d deltas, %d events, %d requests, warnings %q", done.SessionID, len(deltas), len(done.RawEvents), len(reqs), done.Warnings)

	_, again := clitest.MustStream(t, c, clitest.ResumeRequest(done.SessionID))
	reqs = srv.Requests()
	var last string
	for _, r := range reqs {
		if strings.HasSuffix(r.Path, ":streamGenerateContent") {
			last = string(r.Body)
		}
	}
	if !strings.Contains(last, clitest.HelloPrompt) || !strings.Contains(last, clitest.ResumePrompt) {
		t.Errorf("the resumed request does not carry the conversation: %.300s", last)
	}
	if again.SessionID != done.SessionID || again.Content != answer {
		t.Errorf("resumed: session %q content %q", again.SessionID, again.Content)
	}

	// A model that never answers: the call times out and the CLI's whole
	// process group is gone.
	clitest.CheckTimeoutStopsCLI(t, c, srv)
}
