package service

import (
	"cmp"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/loopforge/loopforge/backend/config"
	"github.com/loopforge/loopforge/backend/event"
	"github.com/loopforge/loopforge/backend/judge"
	"github.com/loopforge/loopforge/backend/loop"
	"github.com/loopforge/loopforge/backend/runreq"
)

// RunRequest asks for one loop: the options of a run, declared once in
// backend/runreq (the faces send it as it is) and checked here, by settings.
type RunRequest = runreq.Request

// settings checks the options of req against cfg and turns them into the
// loop's settings, with the configured defaults for those left zero: the
// one place a run request's limits, defaults and combinations are checked
// (the workspace's own, which need the disk, are prepareWorkspace's). Its
// errors are *Error with a Code; one about a single option's value wraps a
// *config.ValueError naming the option by its JSON field, for the CLI to
// name by its flag.
func settings(cfg *config.Config, req RunRequest) (loop.Settings, loop.Language, error) {
	// Zero limit fields take the sandbox's defaults, which it derives from
	// the timeout (the CPU-time backstop), so only configured ones are set.
	set := loop.Settings{MaxIterations: cmp.Or(req.MaxIterations, cfg.MaxIterations), Reflect: cfg.Reflect,
		Language: cmp.Or(req.Language, cfg.Language), Limits: cfg.Limits, AllowNetwork: req.AllowNetwork}
	if err := config.CheckMaxIterations("max_iterations", set.MaxIterations); err != nil {
		return set, loop.Language{}, &Error{Code: CodeMaxIterations, Err: fmt.Errorf("%w: %w", ErrInvalidRequest, err),
			Params: map[string]string{"n": strconv.Itoa(set.MaxIterations), "max": strconv.Itoa(config.MaxIterationsLimit)}}
	}
	if req.Reflect != nil {
		set.Reflect = *req.Reflect
	}
	lang, err := loop.LookupLanguage(set.Language)
	if err != nil {
		return set, lang, &Error{Code: CodeLanguage, Params: map[string]string{"language": set.Language},
			Err: fmt.Errorf("%w: %w", ErrInvalidRequest, err)}
	}
	if set.Limits.Timeout, err = timeout(cfg, req.TimeoutSeconds); err != nil {
		return set, lang, err
	}
	if err := checkMode(req); err != nil {
		return set, lang, err
	}
	if set.Stdin, set.Tests, err = input(req, lang); err != nil {
		return set, lang, err
	}
	return set, lang, checkPrompt(req.Prompt)
}

// timeout is the time limit of one execution: secs (0: the configured one).
func timeout(cfg *config.Config, secs float64) (time.Duration, error) {
	if secs == 0 {
		return cfg.Timeout, nil
	}
	d, err := config.CheckTimeoutSeconds("timeout_seconds", secs)
	if err != nil {
		return 0, &Error{Code: CodeTimeout, Err: fmt.Errorf("%w: %w", ErrInvalidRequest, err),
			Params: map[string]string{"value": fmt.Sprintf("%g s", secs), "max": config.MaxTimeout.String()}}
	}
	return d, nil
}

// clampTimeout is a request's timeout (in seconds) within limit: limit for
// none or a longer one. A value out of bounds stays, for settings to
// refuse as it would anyone's.
func clampTimeout(secs float64, limit time.Duration) float64 {
	d, err := config.CheckTimeoutSeconds("timeout_seconds", secs)
	if secs == 0 || err == nil && d > limit {
		return limit.Seconds()
	}
	return secs
}

// checkMode refuses an unknown mode, and what only workspace mode has (a
// task, validation commands, an auditor) in script mode.
func checkMode(req RunRequest) error {
	switch req.Mode {
	case "", event.ModeScript:
		if req.Task != nil || len(req.Validate) > 0 || req.Auditor != "" {
			return invalid(CodeNeedsWorkspace, nil, "a task, validation commands and an auditor need --mode workspace")
		}
	case event.ModeWorkspace:
	default:
		return invalid(CodeMode, map[string]string{"mode": string(req.Mode)}, "unknown mode %q (script or workspace)", req.Mode)
	}
	return nil
}

// input is what the generated program reads and what judges it: the
// request's stdin and tests, both for script mode only.
func input(req RunRequest, lang loop.Language) (string, *judge.Suite, error) {
	if err := config.CheckStdin("stdin", req.Stdin); err != nil {
		return "", nil, fmt.Errorf("%w: %w", ErrInvalidRequest, err)
	}
	if req.Stdin != "" && req.Mode == event.ModeWorkspace {
		return "", nil, fmt.Errorf("%w: %w", ErrInvalidRequest,
			&config.ValueError{Name: "stdin", Problem: "is for script mode, where the generated program runs: workspace commands read no input"})
	}
	if req.Tests == "" {
		return req.Stdin, nil, nil
	}
	tests, err := judge.Parse([]byte(req.Tests))
	if err != nil {
		return "", nil, TestsError(err)
	}
	if tests.Empty() {
		return req.Stdin, nil, nil
	}
	if req.Mode == event.ModeWorkspace {
		return "", nil, TestsError(&judge.Error{Msg: "tests judge a script-mode program; a workspace run has its validation commands"})
	}
	if err := tests.CheckLanguage(lang.Sandbox); err != nil {
		return "", nil, TestsError(err)
	}
	if req.Stdin == "" {
		// A program judged by IO tests reads its input: its own run gets
		// the first visible test's (never a hidden one's) rather than an
		// EOFError beside passing tests, and the run keeps and shows it as
		// its input.
		return tests.SampleInput(), tests, nil
	}
	return req.Stdin, tests, nil
}

// checkPrompt refuses an empty prompt and one over config.MaxPromptBytes.
func checkPrompt(prompt string) error {
	if strings.TrimSpace(prompt) == "" {
		return invalid(CodePromptEmpty, nil, "the prompt is empty")
	}
	if err := config.CheckPrompt(prompt); err != nil {
		return &Error{Code: CodePromptTooLong, Err: fmt.Errorf("%w: %w", ErrInvalidRequest, err),
			Params: map[string]string{"bytes": strconv.Itoa(len(prompt)),
				"chars": strconv.Itoa(utf8.RuneCountInString(prompt)), "max": strconv.Itoa(config.MaxPromptBytes)}}
	}
	return nil
}
