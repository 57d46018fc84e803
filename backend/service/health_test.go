package service

import (
	"testing"
	"time"

	"github.com/loopforge/loopforge/backend/provider"
)

// A rejected key is remembered with its code and parameters, so that each
// face words it in its own language (issue 24: a Portuguese picker showed
// "Chave recusada às 03:33: the API key was rejected…"); the provider's own
// words stay in the "message" parameter, quoted as they came.
func TestKeyRejectionIsCoded(t *testing.T) {
	var h keyHealth
	prof := provider.Profile{Name: "openai", Kind: "openai", APIKey: "sk-wrong"}
	err := &provider.Error{Provider: "openai", Kind: provider.KindAuth, Status: 401, EnvVar: "OPENAI_API_KEY",
		Message: "Incorrect API key provided"}
	h.reject(prof, err, time.Date(2026, 11, 21, 3, 33, 0, 0, time.UTC))
	r := h.rejection(prof)
	if r == nil {
		t.Fatal("no rejection recorded")
	}
	if r.Code != CodeProviderAuth {
		t.Errorf("code = %q; want %q", r.Code, CodeProviderAuth)
	}
	for k, want := range map[string]string{"status": "401", "env": "OPENAI_API_KEY", "message": "Incorrect API key provided"} {
		if r.Params[k] != want {
			t.Errorf("params[%s] = %q; want %q (all: %v)", k, r.Params[k], want, r.Params)
		}
	}
	if r.Message != "the API key was rejected (HTTP 401); check OPENAI_API_KEY: Incorrect API key provided" {
		t.Errorf("message = %q", r.Message)
	}
}
