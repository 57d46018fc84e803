package claudecli

import (
	"context"
	"slices"
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
	c, err := New(provider.Profile{Name: "claude", Kind: "claude", Binary: bin, Model: "claude-sonnet-4-5",
		BaseURL: srv.URL, APIKeyEnv: "FAKE_ANTHROPIC_KEY", APIKey: "dummy-key-0123456789", Timeout: 2 * time.Minute,
		Env: map[string]string{"HOME": home, "CLAUDE_CONFIG_DIR": home + "/.claude", "CLAUDE_CODE_MAX_RETRIES": "0"}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	v, err := c.(*Client).Check(ctx)
	if err != nil || !strings.Contains(v, "2.1.197") {
		t.Fatalf("version %q, %v", v, err)
	}
	t.Logf("claude --version: %s", v)

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
	if done.Status != provider.StatusSuccess || done.SessionID == "" || done.Model != "claude-sonnet-4-5" {
		t.Errorf("status %q session %q model %q", done.Status, done.SessionID, done.Model)
	}
	if done.Usage.InputTokens != clitest.FakeInputTokens || done.Usage.OutputTokens != clitest.FakeOutputTokens || done.Usage.CostUSD <= 0 {
		t.Errorf("usage %+v", done.Usage)
	}
	reqs := srv.Requests()
	var turns []clitest.ModelRequest
	for _, r := range reqs {
		if strings.HasSuffix(r.Path, "/v1/messages") && strings.Contains(string(r.Body), "Write a hello world program") {
			turns = append(turns, r)
		}
	}
	if len(turns) != 1 || turns[0].Header.Get("X-Api-Key") != "dummy-key-0123456789" {
		t.Fatalf("%d model turns among %d requests", len(turns), len(reqs))
	}
	t.Logf("claude: session %s, %d deltas, %d events, %d requests, warnings %q", done.SessionID, len(deltas), len(done.RawEvents), len(reqs), done.Warnings)

	_, again, err := clitest.Collect(c.Stream(ctx, provider.Request{SessionID: done.SessionID,
		Messages: []provider.Message{{Role: provider.RoleUser, Content: "And now in one line?"}}}))
	if err != nil {
		t.Fatalf("resume: %v\npartial: %+v", err, provider.PartialOf(err))
	}
	reqs = srv.Requests()
	last := string(reqs[len(reqs)-1].Body)
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
