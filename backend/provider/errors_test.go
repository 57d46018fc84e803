package provider

import (
	"errors"
	"fmt"
	"testing"
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
		{"auth 403",
			&Error{Provider: "openai", Kind: KindAuth, Status: 403, EnvVar: "OPENAI_API_KEY"},
			"openai: the API key was rejected (HTTP 403); check OPENAI_API_KEY"},
		{"auth mid-stream has no status",
			&Error{Provider: "openai", Kind: KindAuth, EnvVar: "OPENAI_API_KEY", Message: "invalid api key"},
			"openai: the API key was rejected; check OPENAI_API_KEY: invalid api key"},
		{"auth without a variable",
			&Error{Provider: "ollama", Kind: KindAuth, Status: 401},
			"ollama: the API key was rejected (HTTP 401)"},
		{"rate limit after retries",
			&Error{Provider: "claude", Kind: KindRateLimit, Status: 429, Message: "Number of requests has exceeded your rate limit"},
			"claude: rate limited (HTTP 429) after retries: Number of requests has exceeded your rate limit"},
		{"rate limit mid-stream",
			&Error{Provider: "openai", Kind: KindRateLimit, Message: "quota exceeded"},
			"openai: rate limited: quota exceeded"},
		{"server error after retries",
			&Error{Provider: "gemini", Kind: KindServer, Status: 503, Message: "The model is overloaded."},
			"gemini: server error (HTTP 503) after retries: The model is overloaded."},
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
		{"timeout from HTTP 408",
			&Error{Provider: "openai", Kind: KindTimeout, Status: 408, Message: "Request Timeout"},
			"openai: call timed out: Request Timeout"},
		{"protocol",
			&Error{Provider: "openai", Kind: KindProtocol, Message: "stream ended without a finish_reason"},
			"openai: protocol: stream ended without a finish_reason"},
		{"missing variable of a CLI",
			&Error{Provider: "codex", Kind: KindMissingEnv, EnvVar: "AZURE_KEY", Message: "export it"},
			"codex: the CLI needs the environment variable AZURE_KEY: export it"},
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
		KindRateLimit:   ErrRateLimit,
		KindServer:      ErrServer,
		KindBadRequest:  ErrBadRequest,
		KindUnreachable: ErrUnreachable,
		KindProtocol:    ErrProtocol,
		KindTimeout:     ErrTimeout,
		KindMissingEnv:  ErrMissingEnv,
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
