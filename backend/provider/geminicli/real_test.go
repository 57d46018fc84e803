package geminicli

import (
	"context"
	"os"
	"path/filepath"
	"slices"
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
	c, err := New(provider.Profile{Name: "gemini", Kind: "gemini", Binary: bin, Model: "gemini-2.5-flash",
		BaseURL: srv.URL, APIKeyEnv: "FAKE_GEMINI_KEY", APIKey: "dummy-key-0123456789", Timeout: 2 * time.Minute,
		Env: map[string]string{"HOME": home}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	v, err := c.(*Client).Check(ctx)
	if err != nil || !strings.Contains(v, "0.61.0") {
		t.Fatalf("version %q, %v", v, err)
	}
	t.Logf("gemini --version: %s", v)

	deltas, done, err := clitest.Collect(c.Stream(ctx, provider.Request{
		System:   "Answer with one Python program.",
		Messages: []provider.Message{{Role: provider.RoleUser, Content: "Write a hello world program"}}}))
	if err != nil {
		t.Fatalf("%v\npartial: %+v", err, provider.PartialOf(err))
	}
	if done.Content != answer || strings.Join(deltas, "") != answer || len(deltas) < 2 {
		t.Errorf("content %q from %d deltas", done.Content, len(deltas))
	}
	if !slices.Contains(done.Command, done.SessionID) {
		t.Errorf("the session id %q is not the one chosen in the command line %q", done.SessionID, done.Command)
	}
	if done.Status != provider.StatusSuccess || done.SessionID == "" || done.Model != "gemini-2.5-flash" {
		t.Errorf("status %q session %q model %q", done.Status, done.SessionID, done.Model)
	}
	if done.Usage.InputTokens != clitest.FakeInputTokens || done.Usage.OutputTokens != clitest.FakeOutputTokens {
		t.Errorf("usage %+v", done.Usage)
	}
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

	_, again, err := clitest.Collect(c.Stream(ctx, provider.Request{SessionID: done.SessionID,
		Messages: []provider.Message{{Role: provider.RoleUser, Content: "And now in one line?"}}}))
	if err != nil {
		t.Fatalf("resume: %v\npartial: %+v", err, provider.PartialOf(err))
	}
	reqs = srv.Requests()
	var last string
	for _, r := range reqs {
		if strings.HasSuffix(r.Path, ":streamGenerateContent") {
			last = string(r.Body)
		}
	}
	if !strings.Contains(last, "Write a hello world program") || !strings.Contains(last, "And now in one line?") {
		t.Errorf("the resumed request does not carry the conversation: %.300s", last)
	}
	if again.SessionID != done.SessionID || again.Content != answer {
		t.Errorf("resumed: session %q content %q", again.SessionID, again.Content)
	}

	// A model that never answers: the call times out and the CLI's whole
	// process group is gone.
	clitest.CheckTimeoutStopsCLI(t, c, srv)
}
