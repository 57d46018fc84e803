package anthropic

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/loopforge/loopforge/backend/provider"
	"github.com/loopforge/loopforge/backend/provider/conformance"
)

// modelsPaging is the Anthropic API's: POST /v1/messages answers with
// messages, GET /v1/models with the page after ?after_id= (has_more,
// last_id).
var modelsPaging = conformance.Paging{List: "GET /v1/models", Cursor: "after_id", Call: "POST /v1/messages",
	Refuse: func(w http.ResponseWriter) {
		errorAnswer(w, http.StatusBadRequest, apiError("invalid_request_error", "after_id: unknown"))
	},
	Profile: provider.Profile{Name: "anthropic-test", Kind: "anthropic", Model: "claude-sonnet-4-5", APIKeyEnv: "ANTHROPIC_API_KEY", APIKey: "sk-ant-test-123"}}

// Two pages, newest first, shaped as GET /v1/models answers.
var anthropicPages = map[string]string{
	"": `{"data":[
  {"type":"model","id":"claude-sonnet-5-5","display_name":"Claude Sonnet 5.5","created_at":"2026-09-28T00:00:00Z"},
  {"type":"model","id":"claude-sonnet-5","display_name":"Claude Sonnet 5","created_at":"2026-06-30T00:00:00Z"}],
 "has_more":true,"first_id":"claude-sonnet-5-5","last_id":"claude-sonnet-5"}`,
	"claude-sonnet-5": `{"data":[
  {"type":"model","id":"claude-haiku-4-5-20251001","display_name":"Claude Haiku 4.5","created_at":"2025-10-01T00:00:00Z"}],
 "has_more":false,"first_id":"claude-haiku-4-5-20251001","last_id":"claude-haiku-4-5-20251001"}`,
}

func TestModelsFollowsPages(t *testing.T) {
	api := conformance.NewModelsAPI(t, modelsPaging, nil, anthropicPages)
	got, err := provider.ListModels(t.Context(), newClient(t, api.Profile()))
	if err != nil {
		t.Fatal(err)
	}
	want := []provider.Model{
		{ID: "claude-haiku-4-5-20251001", Name: "Claude Haiku 4.5"},
		{ID: "claude-sonnet-5", Name: "Claude Sonnet 5"},
		{ID: "claude-sonnet-5-5", Name: "Claude Sonnet 5.5"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("models = %v, want %v", got, want)
	}
	if want := []string{"/v1/models?limit=1000", "/v1/models?after_id=claude-sonnet-5&limit=1000"}; !reflect.DeepEqual(api.Targets(), want) {
		t.Errorf("requests = %v, want %v", api.Targets(), want)
	}
	h := api.Header(t, 0)
	if h.Get("x-api-key") != "sk-ant-test-123" || h.Get("anthropic-version") == "" {
		t.Errorf("headers: x-api-key %q, anthropic-version %q", h.Get("x-api-key"), h.Get("anthropic-version"))
	}
}

func TestModelNotFoundNamesTheModelAndTheList(t *testing.T) {
	api := conformance.NewModelsAPI(t, modelsPaging, func(w http.ResponseWriter, _ *http.Request) {
		errorAnswer(w, http.StatusNotFound, apiError("not_found_error", "model: claude-sonnet-4-5"))
	}, anthropicPages)
	res := drain(t, t.Context(), newClient(t, api.Profile()), provider.Request{
		Messages: []provider.Message{{Role: provider.RoleUser, Content: "hi"}}})
	pe, ok := errors.AsType[*provider.Error](res.Err)
	if !ok || pe.Kind != provider.KindModelNotFound {
		t.Fatalf("err = %v, want model not found", res.Err)
	}
	if want := []string{"claude-haiku-4-5-20251001", "claude-sonnet-5", "claude-sonnet-5-5"}; !reflect.DeepEqual(pe.Available, want) {
		t.Errorf("Available = %v", pe.Available)
	}
	if msg := res.Err.Error(); !strings.Contains(msg, `the model "claude-sonnet-4-5" does not exist`) ||
		!strings.Contains(msg, "claude-sonnet-5-5") {
		t.Errorf("message %q", msg)
	}
}

// The API's message for a missing model is sometimes only "Not found": the
// type decides, not the words.
func TestModelNotFoundByTypeNotWords(t *testing.T) {
	api := conformance.NewModelsAPI(t, modelsPaging, func(w http.ResponseWriter, _ *http.Request) {
		errorAnswer(w, http.StatusNotFound, apiError("not_found_error", "Not found"))
	}, anthropicPages)
	res := drain(t, t.Context(), newClient(t, api.Profile()), provider.Request{
		Messages: []provider.Message{{Role: provider.RoleUser, Content: "hi"}}})
	if !errors.Is(res.Err, provider.ErrModelNotFound) {
		t.Fatalf("err = %v", res.Err)
	}
	// A 404 of another shape (no API behind the base URL) is not one.
	plain := httptest.NewServer(http.NotFoundHandler())
	defer plain.Close()
	p := api.Profile()
	p.BaseURL = plain.URL
	res = drain(t, t.Context(), newClient(t, p), provider.Request{Messages: []provider.Message{{Role: provider.RoleUser, Content: "hi"}}})
	if errors.Is(res.Err, provider.ErrModelNotFound) || !errors.Is(res.Err, provider.ErrBadRequest) {
		t.Errorf("plain 404: err = %v, want a bad request", res.Err)
	}
}
