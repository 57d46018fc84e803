package cli

import (
	"bytes"
	"context"
	"iter"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/loopforge/loopforge/backend/config"
	"github.com/loopforge/loopforge/backend/provider"
	"github.com/loopforge/loopforge/backend/sandbox"
	"github.com/loopforge/loopforge/backend/service"
)

// flakyModel fails its first call with failure (after some text, carrying
// what arrived, as an HTTP provider does), then answers like okModel.
type flakyModel struct {
	mu      sync.Mutex
	calls   int
	failure error
}

func (*flakyModel) Name() string                        { return "fake" }
func (*flakyModel) Capabilities() provider.Capabilities { return provider.Capabilities{} }
func (m *flakyModel) Stream(ctx context.Context, req provider.Request) iter.Seq2[provider.Delta, error] {
	m.mu.Lock()
	m.calls++
	first := m.calls == 1
	m.mu.Unlock()
	if !first {
		return okModel{}.Stream(ctx, req)
	}
	return func(yield func(provider.Delta, error) bool) {
		if yield(provider.Delta{Text: "```python\nprint("}, nil) {
			yield(provider.Delta{}, provider.WithPartial(m.failure,
				&provider.Response{Content: "```python\nprint(", Usage: provider.Usage{InputTokens: 40, OutputTokens: 3}}))
		}
	}
}

// cliRunWith runs the CLI in-process against home (kept between calls),
// with a "fake" profile answering with m.
func cliRunWith(t *testing.T, home string, m provider.Provider, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	needSandbox(t)
	vars := map[string]string{"LOOPFORGE_HOME": home}
	var out, errb bytes.Buffer
	e := &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb}
	e.newService = func(ctx context.Context, workdir string) (*service.Service, error) {
		cfg, err := config.Load(config.Options{Workdir: workdir, LookupEnv: func(k string) (string, bool) { v, ok := vars[k]; return v, ok }})
		if err != nil {
			return nil, err
		}
		cfg.Profiles["fake"] = provider.Profile{Name: "fake", Kind: "fake"}
		cfg.Order = append(cfg.Order, "fake")
		reg := service.DefaultRegistry()
		reg["fake"] = func(provider.Profile) (provider.Provider, error) { return m, nil }
		return service.New(ctx, service.Options{Config: cfg, Registry: reg})
	}
	code = e.main(context.Background(), args)
	return code, out.String(), errb.String()
}

var retryHint = regexp.MustCompile(`to try this iteration again: loopforge run --retry (\S+)`)

func TestABrokenOffAnswerSaysHowToTryAgain(t *testing.T) {
	home := t.TempDir()
	m := &flakyModel{failure: &provider.Error{Provider: "fake", Kind: provider.KindInterrupted, URL: "http://127.0.0.1:9/v1",
		Message: "connection closed mid-response", Err: provider.ErrStreamCut}}
	code, stdout, stderr := cliRunWith(t, home, m, "run", "-p", "fake", "-n", "2", "print ok")
	if code != ExitProvider || stdout != "" {
		t.Fatalf("exit %d, stdout %q:\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stderr, "error: fake: the connection to http://127.0.0.1:9/v1 broke off before the answer was complete") ||
		strings.Contains(stderr, "format") {
		t.Errorf("stderr does not name the broken connection:\n%s", stderr)
	}
	hint := retryHint.FindStringSubmatch(stderr)
	if hint == nil {
		t.Fatalf("no retry hint:\n%s", stderr)
	}

	code, stdout, stderr = cliRunWith(t, home, m, "run", "--retry", hint[1])
	if code != ExitOK || stdout != "print('ok')\n" {
		t.Fatalf("the retry: exit %d, stdout %q:\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stderr, "loopforge: fake, up to 2 iterations") {
		t.Errorf("the retry should keep the run's provider and iteration limit:\n%s", stderr)
	}

	code, _, stderr = cliRunWith(t, home, m, "run", "--retry", hint[1], "another prompt")
	if code != ExitUsage || !strings.Contains(stderr, "--retry goes on with the run's own prompt") {
		t.Errorf("a prompt with --retry: exit %d:\n%s", code, stderr)
	}
}

func TestARefusalIsNotOfferedAgain(t *testing.T) {
	m := &flakyModel{failure: &provider.Error{Provider: "fake", Kind: provider.KindRefusal, Category: "cyber", Message: "Declined."}}
	code, _, stderr := cliRunWith(t, t.TempDir(), m, "run", "-p", "fake", "print ok")
	if code != ExitProvider || !strings.Contains(stderr, "error: fake: the model refused to answer (cyber): Declined.") {
		t.Fatalf("exit %d:\n%s", code, stderr)
	}
	if retryHint.MatchString(stderr) {
		t.Errorf("a refusal would be refused again; no retry hint:\n%s", stderr)
	}
}

// needSandbox skips a test whose runs execute code where no sandbox can be
// made (Windows without Python, as under Wine in CI).
func needSandbox(t *testing.T) {
	t.Helper()
	if _, err := sandbox.NewRunner(sandbox.Options{}); err != nil {
		t.Skipf("no sandbox on this machine: %v", err)
	}
}
