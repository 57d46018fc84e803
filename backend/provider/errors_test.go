package provider

import (
	"errors"
	"fmt"
	"io"
	"testing"
	"time"
)

func TestErrorText(t *testing.T) {
	cause := errors.New("dial tcp: connection refused")
	tests := []struct {
		name string
		err  *Error
		want string
	}{
		{"missing key names the variable",
			&Error{Provider: "openrouter", Kind: KindMissingKey, EnvVar: "OPENROUTER_API_KEY", Err: cause},
			"openrouter: no API key: set OPENROUTER_API_KEY in the environment or in a .env file"},
		{"auth names the variable",
			&Error{Provider: "openai", Kind: KindAuth, Status: 401, EnvVar: "OPENAI_API_KEY", Message: "Incorrect API key provided: [redacted]."},
			"openai: the API key was rejected (HTTP 401); check OPENAI_API_KEY: Incorrect API key provided: [redacted]."},
		{"403 names the model and says what it means",
			&Error{Provider: "gemini-api", Kind: KindForbidden, Status: 403, Model: "gemini-2.5-pro", Message: "The caller does not have permission"},
			`gemini-api: no access to model "gemini-2.5-pro" (HTTP 403): The caller does not have permission; ` +
				"the API key or login was accepted, but its account or project may not use this model (or not from this region): " +
				"enable the model for it, or pick another model"},
		{"403 without a model",
			&Error{Provider: "claude", Kind: KindForbidden, Status: 403},
			"claude: no access to this model (HTTP 403); the API key or login was accepted, but its account or project may not use " +
				"this model (or not from this region): enable the model for it, or pick another model"},
		{"auth mid-stream has no status",
			&Error{Provider: "openai", Kind: KindAuth, EnvVar: "OPENAI_API_KEY", Message: "invalid api key"},
			"openai: the API key was rejected; check OPENAI_API_KEY: invalid api key"},
		{"auth without a variable",
			&Error{Provider: "ollama", Kind: KindAuth, Status: 401},
			"ollama: the API key was rejected (HTTP 401)"},
		{"rate limit after retries",
			&Error{Provider: "claude", Kind: KindRateLimit, Status: 429, Attempts: 4, Message: "Number of requests has exceeded your rate limit"},
			"claude: rate limited (HTTP 429) after 4 attempts: Number of requests has exceeded your rate limit"},
		{"rate limit with a wait too long to retry",
			&Error{Provider: "claude", Kind: KindRateLimit, Status: 429, RetryAfter: time.Hour, Message: "daily quota"},
			"claude: rate limited (HTTP 429) (the server asks to wait 1h0m0s): daily quota"},
		{"rate limit mid-stream",
			&Error{Provider: "openai", Kind: KindRateLimit, Message: "quota exceeded"},
			"openai: rate limited: quota exceeded"},
		{"server error after retries",
			&Error{Provider: "gemini", Kind: KindServer, Status: 503, Attempts: 4, Message: "The model is overloaded."},
			"gemini: server error (HTTP 503) after 4 attempts: The model is overloaded."},
		{"server error sent once",
			&Error{Provider: "gemini", Kind: KindServer, Status: 500, Attempts: 1, Message: "boom"},
			"gemini: server error (HTTP 500): boom"},
		{"server error mid-stream",
			&Error{Provider: "openai", Kind: KindServer, Message: "The server had an error while processing your request."},
			"openai: server error: The server had an error while processing your request."},
		{"bad request",
			&Error{Provider: "openai", Kind: KindBadRequest, Status: 404, Message: "model 'x' not found"},
			"openai: request rejected (HTTP 404): model 'x' not found"},
		{"bad request before any call",
			&Error{Provider: "gemini", Kind: KindBadRequest, Message: "prompt blocked: SAFETY"},
			"gemini: request rejected: prompt blocked: SAFETY"},
		{"unreachable names the URL",
			&Error{Provider: "ollama", Kind: KindUnreachable, URL: "http://localhost:11434/v1", Message: "connect: connection refused", Err: cause},
			"ollama: cannot reach http://localhost:11434/v1: connect: connection refused"},
		{"timeout falls back to the cause",
			&Error{Provider: "openai", Kind: KindTimeout, Err: errors.New("context deadline exceeded")},
			"openai: call timed out: context deadline exceeded"},
		{"our own time limit says which key raises it",
			&Error{Provider: "openai", Kind: KindTimeout, Err: &TimeoutError{Provider: "openai", Phase: PhaseFirstByte, Limit: 2 * time.Minute}},
			`openai: no answer within 2m0s (first_byte_timeout); to wait longer, raise first_byte_timeout in the "openai" profile of loopforge.yml`},
		{"idle limit",
			&Error{Provider: "openai", Kind: KindTimeout, Err: &TimeoutError{Provider: "openai", Phase: PhaseIdle, Limit: time.Minute}},
			`openai: the answer stalled: nothing arrived for 1m0s (idle_timeout); to wait longer, raise idle_timeout in the "openai" profile of loopforge.yml`},
		{"overall limit",
			&Error{Provider: "openai", Kind: KindTimeout, Err: &TimeoutError{Provider: "openai", Phase: PhaseOverall, Limit: 10 * time.Minute}},
			`openai: the call took longer than 10m0s (timeout); to wait longer, raise timeout in the "openai" profile of loopforge.yml`},
		{"timeout from HTTP 408",
			&Error{Provider: "openai", Kind: KindTimeout, Status: 408, Message: "Request Timeout"},
			"openai: call timed out: Request Timeout"},
		{"protocol",
			&Error{Provider: "openai", Kind: KindProtocol, Message: "stream ended without a finish_reason"},
			"openai: protocol: stream ended without a finish_reason"},
		{"missing variable of a CLI",
			&Error{Provider: "codex", Kind: KindMissingEnv, EnvVar: "AZURE_KEY", Message: "export it"},
			"codex: the CLI needs the environment variable AZURE_KEY: export it"},
		{"refusal with a category",
			&Error{Provider: "claude", Kind: KindRefusal, Category: "cyber", Message: "This request was declined."},
			"claude: the model refused to answer (cyber): This request was declined."},
		{"refusal in the model's words",
			&Error{Provider: "openai", Kind: KindRefusal, Message: "I can't help with that."},
			"openai: the model refused to answer: I can't help with that."},
		{"interrupted names the endpoint",
			&Error{Provider: "ollama", Kind: KindInterrupted, URL: "http://localhost:11434/v1", Message: "connection closed mid-response", Err: io.ErrUnexpectedEOF},
			"ollama: the connection to http://localhost:11434/v1 broke off before the answer was complete: connection closed mid-response"},
		{"a refused cap field says which to use",
			&Error{Provider: "azure", Kind: KindBadRequest, Status: 400, Message: "Unsupported parameter: 'max_tokens'",
				Err: &FieldError{Profile: "azure", Field: "max_tokens", Other: "max_completion_tokens", Unsupported: true, Value: 4096}},
			"azure: request rejected (HTTP 400): Unsupported parameter: 'max_tokens'; the server does not accept the field max_tokens " +
				`for the answer's token cap: set max_tokens_field: max_completion_tokens in the "azure" profile of loopforge.yml`},
		{"a refused cap value",
			&Error{Provider: "deepseek", Kind: KindBadRequest, Status: 400, Message: "Invalid max_tokens value, the valid range of max_tokens is [1, 8192]",
				Err: &FieldError{Profile: "deepseek", Field: "max_tokens", Other: "max_completion_tokens", Value: 16384}},
			"deepseek: request rejected (HTTP 400): Invalid max_tokens value, the valid range of max_tokens is [1, 8192]; the server refused " +
				"the answer's token cap (max_tokens: 16384): lower max_output_tokens, or, if it wants the other field, set " +
				`max_tokens_field: max_completion_tokens, in the "deepseek" profile of loopforge.yml`},
		{"protocol without a provider",
			&Error{Kind: KindProtocol, Message: "stream ended without a final response"},
			": protocol: stream ended without a final response"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.err.Error(); got != tt.want {
				t.Errorf("Error() =\n  %q\nwant\n  %q", got, tt.want)
			}
		})
	}
}

func TestErrorIs(t *testing.T) {
	sentinels := map[ErrorKind]error{
		KindMissingKey:  ErrMissingKey,
		KindAuth:        ErrAuth,
		KindForbidden:   ErrForbidden,
		KindRateLimit:   ErrRateLimit,
		KindServer:      ErrServer,
		KindBadRequest:  ErrBadRequest,
		KindUnreachable: ErrUnreachable,
		KindProtocol:    ErrProtocol,
		KindTimeout:     ErrTimeout,
		KindMissingEnv:  ErrMissingEnv,
		KindRefusal:     ErrRefused,
		KindInterrupted: ErrInterrupted,
	}
	cause := errors.New("cause")
	for kind, sentinel := range sentinels {
		t.Run(string(kind), func(t *testing.T) {
			e := &Error{Provider: "p", Kind: kind, Err: cause}
			wrapped := fmt.Errorf("turn 3: %w", e)
			if !errors.Is(e, sentinel) || !errors.Is(wrapped, sentinel) {
				t.Errorf("errors.Is(%s error, %v) = false", kind, sentinel)
			}
			if !errors.Is(wrapped, cause) {
				t.Error("the cause is not reachable through Unwrap")
			}
			for other, s := range sentinels {
				if other != kind && errors.Is(e, s) {
					t.Errorf("a %s error matches %v", kind, s)
				}
			}
			if errors.Is(e, ErrUnknownProvider) || errors.Is(e, nil) {
				t.Error("matches ErrUnknownProvider or nil")
			}
		})
	}
	if errors.Is(&Error{Kind: "other"}, nil) {
		t.Error("an unknown kind matches nil")
	}
	var pe *Error
	if !errors.As(fmt.Errorf("x: %w", &Error{Kind: KindAuth}), &pe) || pe.Kind != KindAuth {
		t.Error("errors.As does not find the *Error")
	}
}

func TestTimeoutErrorMatches(t *testing.T) {
	te := &TimeoutError{Provider: "p", Phase: PhaseIdle, Limit: time.Second}
	err := fmt.Errorf("turn 2: %w", &Error{Provider: "p", Kind: KindTimeout, Err: te})
	var got *TimeoutError
	var pe *Error
	if !errors.Is(err, ErrTimeout) || !errors.As(err, &got) || got != te || !errors.As(err, &pe) {
		t.Errorf("%v: want ErrTimeout, the *TimeoutError and the *Error", err)
	}
	if !errors.Is(te, ErrTimeout) || errors.Is(te, ErrServer) {
		t.Error("a bare *TimeoutError must match ErrTimeout only")
	}
}

func TestWithPartial(t *testing.T) {
	cause := &Error{Provider: "p", Kind: KindInterrupted}
	if err := WithPartial(cause, &Response{Model: "m"}); err != cause {
		t.Errorf("nothing arrived but the model: got %v, want the error alone", err)
	}
	if err := WithPartial(nil, &Response{Content: "x"}); err != nil {
		t.Errorf("no error: got %v", err)
	}
	got := &Response{Content: "print(", Model: "m", Usage: Usage{InputTokens: 12}}
	err := WithPartial(cause, got)
	p := PartialOf(err)
	if p == nil || p.Content != "print(" || p.Usage.InputTokens != 12 || p.Status != StatusPartial || !errors.Is(err, ErrInterrupted) {
		t.Fatalf("err %v, partial %+v", err, p)
	}
	if got.Status != "" {
		t.Error("the answer given was changed")
	}
	if again := WithPartial(err, &Response{Content: "other"}); PartialOf(again).Content != "print(" {
		t.Error("a second partial replaced the first")
	}
}
