package provider

import (
	"context"
	"errors"
	"fmt"
	"testing"
)

func TestCLIErrors(t *testing.T) {
	nf := &NotFoundError{Provider: "codex", Binary: "codex", Looked: []string{"PATH (/bin)", "the npm global prefix (npm is not on PATH)"}, Hint: "npm install -g @openai/codex"}
	if !errors.Is(nf, ErrCLINotFound) || nf.Error() != `codex: CLI "codex" not found (looked in: PATH (/bin); the npm global prefix (npm is not on PATH)); npm install -g @openai/codex` {
		t.Errorf("%q", nf)
	}

	for _, tc := range []struct {
		e    *ExecutionError
		want string
	}{
		{&ExecutionError{Provider: "codex", ExitCode: 2, Stderr: "error: unexpected argument '--x' found\n\n  tip: use '-- --x'\n\nUsage: codex exec"},
			"codex: the CLI failed with exit code 2: error: unexpected argument '--x' found"},
		{&ExecutionError{Provider: "gemini", ExitCode: 0, Err: ErrIncomplete}, "gemini: the CLI stopped before its final result (exit code 0)"},
		{&ExecutionError{Provider: "claude", ExitCode: 1, Message: "max turns reached", Stderr: "noise"}, "claude: the CLI reported an error: max turns reached"},
		{&ExecutionError{Provider: "claude", ExitCode: -1, Err: errors.New("permission denied")}, "claude: cannot start the CLI: permission denied"},
	} {
		if got := tc.e.Error(); got != tc.want {
			t.Errorf("got  %q\nwant %q", got, tc.want)
		}
	}

	pe := &ParseError{Provider: "claude", Line: 7, Raw: `{"type":`, Err: errors.New("unexpected end of JSON input")}
	if pe.Error() != `claude: malformed JSON on output line 7: unexpected end of JSON input (line: "{\"type\":")` {
		t.Errorf("%q", pe)
	}

	part := &Response{Status: StatusPartial, Content: "so far"}
	wrapped := fmt.Errorf("run: %w", &PartialError{Partial: part, Err: fmt.Errorf("claude: call cancelled: %w", context.Canceled)})
	if !errors.Is(wrapped, context.Canceled) || PartialOf(wrapped) != part || PartialOf(errors.New("x")) != nil {
		t.Error("PartialError does not unwrap")
	}
	var ee *ExecutionError
	if !errors.As(&PartialError{Partial: part, Err: tc0()}, &ee) || !errors.Is(ee, ErrIncomplete) {
		t.Error("errors.As through PartialError")
	}
}

func tc0() error { return &ExecutionError{Provider: "p", Err: ErrIncomplete} }
