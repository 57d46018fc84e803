package claudecli

import (
	"strings"
	"testing"
	"time"

	"github.com/loopforge/loopforge/backend/provider"
	"github.com/loopforge/loopforge/backend/provider/cliproc/clitest"
)

// TestRealCLI drives the real claude (installed by `make test-clis`) through
// the adapter against a fake Messages API server: token streaming, session,
// usage, and a resume from a fresh private workdir (claude files sessions by
// cwd). It catches drift in claude's flags and stream-json events.
func TestRealCLI(t *testing.T) {
	bin := clitest.RealCLI(t, "claude")
	const answer = "Here is the program:\n\n```python\nprint(\"hello from the fake model\")\n```"
	srv := clitest.NewModelServer(t, answer)
	home := t.TempDir()
	c := newClient(t, provider.Profile{Binary: bin, Model: "claude-sonnet-4-5",
		BaseURL: srv.URL, APIKeyEnv: "FAKE_ANTHROPIC_KEY", APIKey: "dummy-key-0123456789", Timeout: 2 * time.Minute,
		Env: map[string]string{"HOME": home, "CLAUDE_CONFIG_DIR": home + "/.claude", "CLAUDE_CODE_MAX_RETRIES": "0"}})
	clitest.CheckVersion(t, c, "2.1.197")

	deltas, done := clitest.MustStream(t, c, clitest.HelloRequest())
	clitest.CheckStreamed(t, deltas, done, answer, "claude-sonnet-4-5")
	if done.Usage.CostUSD <= 0 {
		t.Errorf("no cost: usage %+v", done.Usage)
	}
	reqs := srv.Requests()
	var turns []clitest.ModelRequest
	for _, r := range reqs {
		if strings.HasSuffix(r.Path, "/v1/messages") && strings.Contains(string(r.Body), clitest.HelloPrompt) {
			turns = append(turns, r)
		}
	}
	if len(turns) != 1 || turns[0].Header.Get("X-Api-Key") != "dummy-key-0123456789" {
		t.Fatalf("%d model turns among %d requests", len(turns), len(reqs))
	}
	t.Logf("claude: session %s, %d deltas, %d events, %d requests, warnings %q", done.SessionID, len(deltas), len(done.RawEvents), len(reqs), done.Warnings)

	_, again := clitest.MustStream(t, c, clitest.ResumeRequest(done.SessionID))
	reqs = srv.Requests()
	last := string(reqs[len(reqs)-1].Body)
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
