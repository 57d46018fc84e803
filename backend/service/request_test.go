package service

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/loopforge/loopforge/backend/config"
	"github.com/loopforge/loopforge/backend/event"
	"github.com/loopforge/loopforge/backend/runreq"
)

// requestConfig is the configuration the settings tests check against:
// loaded like every face's, from an empty home.
func requestConfig(t *testing.T) *config.Config {
	t.Helper()
	home := t.TempDir()
	cfg, err := config.Load(config.Options{LookupEnv: func(k string) (string, bool) {
		if k == "LOOPFORGE_HOME" {
			return home, true
		}
		return "", false
	}})
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// TestSettingsDefaults: zero options take the configuration's values, and
// given ones win; a test suite's first visible input becomes the stdin.
func TestSettingsDefaults(t *testing.T) {
	cfg := requestConfig(t)
	set, lang, err := settings(cfg, RunRequest{Prompt: "p"})
	if err != nil {
		t.Fatal(err)
	}
	if set.MaxIterations != cfg.MaxIterations || set.Limits.Timeout != cfg.Timeout || set.Reflect != cfg.Reflect ||
		set.Language != cfg.Language || set.AllowNetwork || set.Tests != nil || lang.Fence == "" {
		t.Errorf("defaults: %+v (language %+v)", set, lang)
	}
	no := false
	set, _, err = settings(cfg, RunRequest{Prompt: "p", MaxIterations: 7, TimeoutSeconds: 2.5, Reflect: &no, Language: "sh",
		AllowNetwork: true, Tests: "- {stdin: '2 3', expected: '5'}\n"})
	if err != nil {
		t.Fatal(err)
	}
	if set.MaxIterations != 7 || set.Limits.Timeout != 2500*time.Millisecond || set.Reflect || set.Language != "sh" ||
		!set.AllowNetwork || set.Tests.Empty() || set.Stdin != "2 3" {
		t.Errorf("given: %+v", set)
	}
}

// TestSettingsRefusals: every refusal is an invalid request with its code,
// and one about a single option's value names it by its JSON field (what
// the CLI turns into its flag).
func TestSettingsRefusals(t *testing.T) {
	cfg := requestConfig(t)
	big := strings.Repeat("x", config.MaxStdinBytes+1)
	tests := []struct {
		name   string
		req    RunRequest
		code   Code
		option string // the *config.ValueError's name ("": none)
	}{
		{"iterations over the cap", RunRequest{MaxIterations: config.MaxIterationsLimit + 1}, CodeMaxIterations, "max_iterations"},
		{"negative iterations", RunRequest{MaxIterations: -1}, CodeMaxIterations, "max_iterations"},
		{"negative timeout", RunRequest{TimeoutSeconds: -1}, CodeTimeout, "timeout_seconds"},
		{"timeout over the cap", RunRequest{TimeoutSeconds: 1e300}, CodeTimeout, "timeout_seconds"},
		{"unknown language", RunRequest{Language: "cobol"}, CodeLanguage, ""},
		{"unknown mode", RunRequest{Mode: "notebook"}, CodeMode, ""},
		{"validate without workspace", RunRequest{Validate: []string{"make"}}, CodeNeedsWorkspace, ""},
		{"task without workspace", RunRequest{Task: &runreq.Task{Instructions: "i"}}, CodeNeedsWorkspace, ""},
		{"stdin too long", RunRequest{Stdin: big}, CodeInvalid, "stdin"},
		{"stdin in workspace mode", RunRequest{Mode: event.ModeWorkspace, Stdin: "x"}, CodeInvalid, "stdin"},
		{"tests that do not parse", RunRequest{Tests: "tests: {"}, CodeTests, ""},
		{"tests in workspace mode", RunRequest{Mode: event.ModeWorkspace, Tests: "- {stdin: '1', expected: '1'}\n"}, CodeTests, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.req.Prompt = "p"
			_, _, err := settings(cfg, tt.req)
			if Classify(err) != ClassInvalid || !errors.Is(err, ErrInvalidRequest) {
				t.Fatalf("err = %v (class %s), want an invalid request", err, Classify(err))
			}
			if got := Explain(err).Code; got != tt.code {
				t.Errorf("code %q, want %q (%v)", got, tt.code, err)
			}
			ve, ok := errors.AsType[*config.ValueError](err)
			if tt.option == "" && ok || tt.option != "" && (!ok || ve.Name != tt.option) {
				t.Errorf("value error %+v, want one about %q (%v)", ve, tt.option, err)
			}
		})
	}
	for _, prompt := range []string{" \n", strings.Repeat("x", config.MaxPromptBytes+1)} {
		if _, _, err := settings(cfg, RunRequest{Prompt: prompt}); Classify(err) != ClassInvalid {
			t.Errorf("a prompt of %d bytes: %v", len(prompt), err)
		}
	}
}

// TestClampTimeout: a class clamps a timeout to its limit, and leaves one
// out of bounds for settings to refuse (not clamped into a valid one).
func TestClampTimeout(t *testing.T) {
	limit := 30 * time.Second
	for _, tc := range []struct{ in, want float64 }{{0, 30}, {10, 10}, {60, 30}, {-1, -1}, {1e300, 1e300}} {
		if got := clampTimeout(tc.in, limit); got != tc.want {
			t.Errorf("clampTimeout(%g, %s) = %g, want %g", tc.in, limit, got, tc.want)
		}
	}
}
