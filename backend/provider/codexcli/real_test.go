//go:build linux

package codexcli

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/loopforge/loopforge/backend/provider"
	"github.com/loopforge/loopforge/backend/provider/cliproc/clitest"
)

// TestRealCLI drives the real codex (installed by `make test-clis`) through
// the adapter against a fake Responses API server: text, session, usage,
// resume. It catches drift in codex's flags and JSON events.
func TestRealCLI(t *testing.T) {
	bin := clitest.RealCLI(t, "codex")
	const answer = "Here is the program:\n\n```python\nprint(\"hello from the fake model\")\n```\n"
	srv := clitest.NewModelServer(t, answer)
	// CODEX_HOME isolates codex's config and sessions; not under /tmp, where
	// codex refuses to set up its sandbox helper.
	home, err := os.MkdirTemp(os.Getenv(clitest.RealCLIsEnv), "codex-home-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(home) })
	c := newClient(t, provider.Profile{Binary: bin, Model: "gpt-5.5",
		BaseURL: srv.URL + "/v1", APIKeyEnv: "FAKE_API_KEY", APIKey: "dummy-key-0123456789",
		Env: map[string]string{"CODEX_HOME": home}, Timeout: 2 * time.Minute})
	clitest.CheckVersion(t, c, "0.169.0")

	deltas, done := clitest.MustStream(t, c, clitest.HelloRequest())
	if done.Content != strings.TrimRight(answer, "\n") && done.Content != answer {
		t.Errorf("content %q", done.Content)
	}
	if strings.Join(deltas, "") != done.Content || done.Status != provider.StatusSuccess || done.SessionID == "" {
		t.Errorf("deltas %q status %q session %q", deltas, done.Status, done.SessionID)
	}
	clitest.CheckFakeUsage(t, done)
	reqs := srv.Requests()
	if len(reqs) == 0 || reqs[0].Header.Get("Authorization") != "Bearer dummy-key-0123456789" ||
		!strings.Contains(string(reqs[0].Body), clitest.HelloPrompt) || !strings.Contains(string(reqs[0].Body), `"gpt-5.5"`) {
		t.Fatalf("requests: %d, first %+v", len(reqs), reqs)
	}
	t.Logf("codex: session %s, %d events, %d warnings %q", done.SessionID, len(done.RawEvents), len(done.Warnings), done.Warnings)

	// Resume: the server sees the first exchange again.
	n := len(reqs)
	_, again := clitest.MustStream(t, c, clitest.ResumeRequest(done.SessionID))
	reqs = srv.Requests()
	last := string(reqs[len(reqs)-1].Body)
	if len(reqs) <= n || !strings.Contains(last, clitest.HelloPrompt) || !strings.Contains(last, clitest.ResumePrompt) {
		t.Errorf("the resumed request does not carry the conversation: %.400s", last)
	}
	if again.SessionID != done.SessionID {
		t.Errorf("resumed session %q, want %q", again.SessionID, done.SessionID)
	}

	// A model that never answers: the call times out and the CLI's whole
	// process group is gone.
	clitest.CheckTimeoutStopsCLI(t, c, srv)
}
