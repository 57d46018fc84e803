package config

import (
	"fmt"
	"net/url"
	"time"
	"unicode/utf8"
)

// Bounds of a run's settings, shared by loopforge.yml, the CLI's flags and
// the API (service.settings checks every run request against them).
const (
	// MaxIterationsLimit caps max_iterations: each iteration is a paid
	// model call, and a loop that has not converged by then will not.
	MaxIterationsLimit = 50
	// MaxTimeout caps the time limit of one execution of generated code.
	MaxTimeout = 24 * time.Hour
	// MaxStdinBytes caps the text given to the generated code's standard
	// input: typed answers and small data, kept with every run in the
	// history.
	MaxStdinBytes = 64 << 10
	// MaxPromptBytes caps a prompt (UTF-8 bytes): about 64,000 tokens,
	// more than any lesson's prompt, and each iteration sends it again.
	// Every face checks it (service.settings); the web form counts against
	// it before sending (wire.Defaults.MaxPromptBytes), and the server's
	// body limit leaves room for it however JSON escapes it.
	MaxPromptBytes = 256 << 10
)

// CheckPrompt says what is wrong with a prompt's size.
func CheckPrompt(text string) error {
	if len(text) > MaxPromptBytes {
		return fmt.Errorf("the prompt is too long: %d bytes (%d characters); at most %d bytes (256 KiB) are accepted",
			len(text), utf8.RuneCountInString(text), MaxPromptBytes)
	}
	return nil
}

// ValueError is a setting with a value out of bounds. Name is the setting
// as the caller named it (the run request's JSON field, a loopforge.yml key),
// Problem what is wrong, worded to follow the name: a face that spells the
// setting another way (the CLI: its flag) words it from the two.
type ValueError struct{ Name, Problem string }

func (e *ValueError) Error() string { return e.Name + " " + e.Problem }

func valueErrorf(name, format string, args ...any) *ValueError {
	return &ValueError{Name: name, Problem: fmt.Sprintf(format, args...)}
}

// CheckStdin says what is wrong with the text for the code's standard
// input, naming it as the caller's face spells it (stdin, --stdin).
func CheckStdin(name, text string) error {
	if len(text) > MaxStdinBytes {
		return valueErrorf(name, "is too long: at most 64 KiB (%d bytes) can be given to the program", MaxStdinBytes)
	}
	return nil
}

// CheckMaxIterations says what is wrong with an iteration limit, naming it
// as the caller's face spells it (max_iterations, --max-iterations).
func CheckMaxIterations(name string, n int) error {
	switch {
	case n < 1:
		return valueErrorf(name, "must be at least 1 (got %d)", n)
	case n > MaxIterationsLimit:
		return valueErrorf(name, "must be at most %d (got %d): a loop that has not converged by then will not", MaxIterationsLimit, n)
	}
	return nil
}

// CheckTimeout says what is wrong with the time limit of one execution.
func CheckTimeout(name string, d time.Duration) error {
	switch {
	case d <= 0:
		return valueErrorf(name, "must be positive (got %s)", d)
	case d > MaxTimeout:
		return valueErrorf(name, "must be at most %s (got %s)", MaxTimeout, d)
	}
	return nil
}

// CheckTimeoutSeconds is CheckTimeout for a number of seconds from JSON,
// which may be negative, fractional or far beyond what a time.Duration holds.
func CheckTimeoutSeconds(name string, secs float64) (time.Duration, error) {
	switch {
	case secs != secs || secs <= 0: // secs != secs: NaN
		return 0, valueErrorf(name, "must be positive (got %g)", secs)
	case secs > MaxTimeout.Seconds():
		return 0, valueErrorf(name, "must be at most %g (%s; got %g)", MaxTimeout.Seconds(), MaxTimeout, secs)
	}
	return time.Duration(secs * float64(time.Second)), nil
}

// parseTimeout reads an execution time limit from loopforge.yml.
func parseTimeout(s string) (time.Duration, error) {
	d, err := ParseDuration(s)
	if err != nil {
		return 0, err
	}
	if d > MaxTimeout {
		return 0, fmt.Errorf("%q is more than %s", s, MaxTimeout)
	}
	return d, nil
}

// CheckBaseURL says what is wrong with an API endpoint (a profile's
// base_url, --base-url, the API's base_url): it must be an http or https
// URL with a host. The error is an *Error (a configuration mistake).
func CheckBaseURL(raw string) error {
	u, err := url.Parse(raw)
	switch {
	case err != nil:
		return &Error{Msg: fmt.Sprintf("base_url %q is not a URL; give one like https://api.example.com/v1", raw)}
	case u.Scheme != "http" && u.Scheme != "https":
		return &Error{Msg: fmt.Sprintf("base_url %q must start with http:// or https://, e.g. https://api.example.com/v1", raw)}
	case u.Host == "" || u.Hostname() == "":
		return &Error{Msg: fmt.Sprintf("base_url %q has no host; give one like https://api.example.com/v1", raw)}
	}
	return nil
}
