package service

import (
	"context"
	"errors"
	"io"
	"net/http"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/loopforge/loopforge/backend/event"
	"github.com/loopforge/loopforge/backend/provider"
)

// anthropicModels answers GET /v1/models with one page, as the API does.
func anthropicModels(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "application/json")
	io.WriteString(w, `{"data":[{"type":"model","id":"claude-sonnet-5","display_name":"Claude Sonnet 5","created_at":"2026-06-30T00:00:00Z"},`+
		`{"type":"model","id":"claude-haiku-4-5-20251001","display_name":"Claude Haiku 4.5","created_at":"2025-10-01T00:00:00Z"}],`+
		`"has_more":false,"first_id":"claude-sonnet-5","last_id":"claude-haiku-4-5-20251001"}`)
}

func TestMissingModelEndsTheRunNamingTheModelAndTheList(t *testing.T) {
	var posts atomic.Int32
	svc, _ := anthropicService(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && r.URL.Path == "/v1/models" {
			anthropicModels(w)
			return
		}
		posts.Add(1)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, `{"type":"error","error":{"type":"not_found_error","message":"model: claude-test"},"request_id":"req_1"}`)
	})
	ctx := context.Background()
	info, err := svc.StartRun(ctx, RunRequest{Prompt: "print 42", Provider: "anthropic", MaxIterations: 3})
	if err != nil {
		t.Fatal(err)
	}
	run, err := svc.Wait(ctx, info.RunID)
	if run == nil || run.Status != event.RunStatusError || !errors.Is(err, provider.ErrModelNotFound) {
		t.Fatalf("run %+v, err %v: want a run ended by a missing model", run, err)
	}
	if posts.Load() != 1 {
		t.Errorf("%d requests: a missing model is not asked again", posts.Load())
	}
	_, fin := finished(t, svc, info.RunID)
	want := map[string]string{"provider": "anthropic", "model": "claude-test", "status": "404",
		"models": "claude-haiku-4-5-20251001, claude-sonnet-5", "listed": "true", "message": "model: claude-test"}
	if fin.ErrorCode != string(CodeModelNotFound) || !reflect.DeepEqual(fin.ErrorParams, want) {
		t.Errorf("run_finished code %q params %v, want %v", fin.ErrorCode, fin.ErrorParams, want)
	}
	for _, w := range []string{`"claude-test" does not exist`, "claude-haiku-4-5-20251001, claude-sonnet-5"} {
		if !strings.Contains(fin.Error, w) {
			t.Errorf("run_finished error %q lacks %q", fin.Error, w)
		}
	}
	if r := storedRun(t, svc, info.SessionID); r.ErrorCode != string(CodeModelNotFound) || r.ErrorParams["models"] != want["models"] {
		t.Errorf("stored run: code %q params %v", r.ErrorCode, r.ErrorParams)
	}
	if p := Explain(err); p.Class != ClassProvider || !p.Code.IsProvider() || p.Code.Retryable() {
		t.Errorf("class %v code %q: a provider failure that asking again does not cure", p.Class, p.Code)
	}
}

func TestProviderModels(t *testing.T) {
	svc, _ := anthropicService(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/models" || r.Header.Get("x-api-key") != "sk-ant-test" {
			http.Error(w, "unexpected "+r.URL.Path, http.StatusTeapot)
			return
		}
		anthropicModels(w)
	})
	ctx := context.Background()
	got, err := svc.ProviderModels(ctx, "anthropic")
	want := []provider.Model{{ID: "claude-haiku-4-5-20251001", Name: "Claude Haiku 4.5"}, {ID: "claude-sonnet-5", Name: "Claude Sonnet 5"}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("models %v, err %v", got, err)
	}
	if _, err := svc.ProviderModels(ctx, "nope"); !errors.Is(err, provider.ErrUnknownProvider) {
		t.Errorf("unknown profile: %v", err)
	}
	// openai has no key in this environment: the listing fails as a run would.
	if _, err := svc.ProviderModels(ctx, "openai"); Explain(err).Code != CodeMissingKey {
		t.Errorf("no key: %v (%s)", err, Explain(err).Code)
	}
	_, err = svc.ProviderModels(ctx, "codex")
	if p := Explain(err); p.Code != CodeNoModelList || p.Class != ClassInvalid || p.Params["provider"] != "codex" {
		t.Errorf("coding CLI: %v → %+v", err, p)
	}
}
