package clitest

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/loopforge/loopforge/backend/provider"
)

// HelloAnswer is the answer in the captures of a hello world request
// (testdata/*-text*.jsonl of each adapter).
const HelloAnswer = "Here is a tiny Python program:\n\n```python\ndef greet(name):\n    return f\"Hello, {name}!\"\n\nprint(greet(\"world\"))\n```\n\nRun it with `python3 hello.py`."

// UUID matches a version 4 UUID, such as the session ids an adapter picks.
var UUID = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

// Ask is a request of one user message.
func Ask(prompt string) provider.Request {
	return provider.Request{Messages: []provider.Message{{Role: provider.RoleUser, Content: prompt}}}
}

// ClientMaker returns a test's newClient: it builds the provider newFn makes
// for a profile of kind (named kind unless it has a name) and fails the test
// when newFn does.
func ClientMaker(kind string, newFn func(provider.Profile) (provider.Provider, error)) func(testing.TB, provider.Profile) provider.Provider {
	return func(t testing.TB, p provider.Profile) provider.Provider {
		t.Helper()
		if p.Name == "" {
			p.Name = kind
		}
		p.Kind = kind
		c, err := newFn(p)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
}

// MustStream runs one call of p to its end and fails the test, showing what
// arrived, when the call fails.
func MustStream(t testing.TB, p provider.Provider, req provider.Request) (deltas []string, done *provider.Response) {
	t.Helper()
	deltas, done, err := Collect(p.Stream(context.Background(), req))
	if err != nil {
		t.Fatalf("%v\npartial: %+v", err, provider.PartialOf(err))
	}
	return deltas, done
}

// The two turns of a real CLI test.
const (
	HelloPrompt  = "Write a hello world program"
	ResumePrompt = "And now in one line?"
)

// HelloRequest is the first turn of a real CLI test: a system prompt and
// HelloPrompt.
func HelloRequest() provider.Request {
	return provider.Request{System: "Answer with one Python program.",
		Messages: []provider.Message{{Role: provider.RoleUser, Content: HelloPrompt}}}
}

// ResumeRequest is the second turn of a real CLI test: ResumePrompt in
// session.
func ResumeRequest(session string) provider.Request {
	req := Ask(ResumePrompt)
	req.SessionID = session
	return req
}

// CheckVersion runs p's Check (a CLI provider's) and fails the test unless
// the version it reports contains want.
func CheckVersion(t testing.TB, p provider.Provider, want string) {
	t.Helper()
	c, ok := p.(interface {
		Check(context.Context) (string, error)
	})
	if !ok {
		t.Fatalf("%T has no Check", p)
	}
	v, err := c.Check(context.Background())
	if err != nil || !strings.Contains(v, want) {
		t.Fatalf("version %q, %v", v, err)
	}
	t.Logf("%s --version: %s", p.Name(), v)
}

// CheckStreamed checks the first turn of a real CLI that streams token
// deltas and picks its session id: the answer in two deltas or more, the
// session id from the command line, success, the model and the usage.
func CheckStreamed(t testing.TB, deltas []string, done *provider.Response, answer, model string) {
	t.Helper()
	if done.Content != answer || strings.Join(deltas, "") != answer || len(deltas) < 2 {
		t.Errorf("content %q from %d deltas", done.Content, len(deltas))
	}
	if !slices.Contains(done.Command, done.SessionID) {
		t.Errorf("the session id %q is not the one chosen in the command line %q", done.SessionID, done.Command)
	}
	if done.Status != provider.StatusSuccess || done.SessionID == "" || done.Model != model {
		t.Errorf("status %q session %q model %q", done.Status, done.SessionID, done.Model)
	}
	CheckFakeUsage(t, done)
}

// CheckFakeUsage checks that done reports the tokens ModelServer counts.
func CheckFakeUsage(t testing.TB, done *provider.Response) {
	t.Helper()
	if done.Usage.InputTokens != FakeInputTokens || done.Usage.OutputTokens != FakeOutputTokens {
		t.Errorf("usage %+v", done.Usage)
	}
}
