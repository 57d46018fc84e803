package openai

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/loopforge/loopforge/backend/provider"
	"github.com/loopforge/loopforge/backend/provider/conformance"
)

// modelsPaging is an OpenAI-compatible API's: POST /v1/chat/completions
// answers the chat, GET /v1/models the pages of models (a server that pages
// follows OpenAI's cursor convention: has_more, last_id, ?after=).
var modelsPaging = conformance.Paging{List: "GET /v1/models", Cursor: "after", Call: "POST /v1/chat/completions",
	Refuse: func(w http.ResponseWriter) {
		errorAnswer(w, http.StatusBadRequest, `{"error":{"message":"unknown cursor","type":"invalid_request_error","code":null}}`)
	},
	Profile: provider.Profile{Name: "openai-test", Kind: "openai", Model: "gpt-gone", BaseURL: "/v1", APIKeyEnv: "OPENAI_API_KEY", APIKey: "sk-test-123"}}

// OpenAI's own list is one page, shaped as GET /v1/models answers it.
const openAIModels = `{"object":"list","data":[
 {"id":"gpt-4o-mini","object":"model","created":1721172741,"owned_by":"system"},
 {"id":"text-embedding-3-small","object":"model","created":1705948997,"owned_by":"system"},
 {"id":"gpt-6-luna","object":"model","created":1790000000,"owned_by":"system","shutdown_date":null}]}`

func ids(ms []provider.Model) []string {
	out := []string{}
	for _, m := range ms {
		out = append(out, m.ID)
	}
	return out
}

func TestModelsListsOnePageSorted(t *testing.T) {
	api := conformance.NewModelsAPI(t, modelsPaging, nil, map[string]string{"": openAIModels})
	got, err := provider.ListModels(t.Context(), newClient(t, api.Profile()))
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"gpt-4o-mini", "gpt-6-luna", "text-embedding-3-small"}; !reflect.DeepEqual(ids(got), want) {
		t.Errorf("models = %v, want %v", ids(got), want)
	}
	if api.Header(t, 0).Get("Authorization") != "Bearer sk-test-123" {
		t.Errorf("Authorization = %q", api.Header(t, 0).Get("Authorization"))
	}
}

func TestModelsFollowsCursorPages(t *testing.T) {
	api := conformance.NewModelsAPI(t, modelsPaging, nil, map[string]string{
		"":       `{"object":"list","data":[{"id":"m-b","name":"Model B"},{"id":"m-a"}],"has_more":true,"last_id":"m-a"}`,
		"m-a":    `{"object":"list","data":[{"id":"m-c"}],"has_more":true}`,
		"m-c":    `{"object":"list","data":[{"id":"m-d"}],"has_more":false,"last_id":"m-d"}`,
		"m-loop": `{}`,
	})
	got, err := provider.ListModels(t.Context(), newClient(t, api.Profile()))
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"m-a", "m-b", "m-c", "m-d"}; !reflect.DeepEqual(ids(got), want) {
		t.Errorf("models = %v, want %v", ids(got), want)
	}
	if got[1].Name != "Model B" {
		t.Errorf("display name %q (OpenRouter's name field)", got[1].Name)
	}
	// Without last_id the next cursor is the page's last id.
	if want := []string{"/v1/models", "/v1/models?after=m-a", "/v1/models?after=m-c"}; !reflect.DeepEqual(api.Targets(), want) {
		t.Errorf("requests = %v, want %v", api.Targets(), want)
	}
}

func TestModelsRejectedKeyIsAuthError(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		errorAnswer(w, http.StatusUnauthorized, `{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","code":"invalid_api_key"}}`)
	}))
	defer srv.Close()
	p := provider.Profile{Name: "openai-test", Kind: "openai", BaseURL: srv.URL + "/v1", APIKeyEnv: "OPENAI_API_KEY", APIKey: "sk-bad-key-1"}
	_, err := provider.ListModels(t.Context(), newClient(t, p))
	if !errors.Is(err, provider.ErrAuth) {
		t.Fatalf("err = %v, want an auth error", err)
	}
}

// modelNotFound is OpenAI's answer to a model that does not exist or
// that the key may not use.
const modelNotFound = `{"error":{"message":"The model ` + "`gpt-gone`" + ` does not exist or you do not have access to it.","type":"invalid_request_error","param":null,"code":"model_not_found"}}`

func TestModelNotFoundNamesTheModelAndTheList(t *testing.T) {
	api := conformance.NewModelsAPI(t, modelsPaging, func(w http.ResponseWriter, _ *http.Request) {
		errorAnswer(w, http.StatusNotFound, modelNotFound)
	}, map[string]string{"": openAIModels})
	res := drain(t, t.Context(), newClient(t, api.Profile()), conversation)
	var pe *provider.Error
	if !errors.As(res.Err, &pe) || pe.Kind != provider.KindModelNotFound || !errors.Is(res.Err, provider.ErrModelNotFound) {
		t.Fatalf("err = %#v, want a model-not-found *provider.Error", res.Err)
	}
	if pe.Model != "gpt-gone" || pe.Status != 404 {
		t.Errorf("model %q status %d", pe.Model, pe.Status)
	}
	if want := []string{"gpt-4o-mini", "gpt-6-luna", "text-embedding-3-small"}; !reflect.DeepEqual(pe.Available, want) {
		t.Errorf("Available = %v, want %v", pe.Available, want)
	}
	msg := res.Err.Error()
	for _, want := range []string{`"gpt-gone" does not exist`, "models this key can use: gpt-4o-mini, gpt-6-luna"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q lacks %q", msg, want)
		}
	}
}

// A 404 that is not OpenAI's model_not_found (a wrong base URL, a proxy's
// page) stays a bad request: the model is not blamed, nothing is listed.
func TestOther404IsNotAMissingModel(t *testing.T) {
	api := conformance.NewModelsAPI(t, modelsPaging, func(w http.ResponseWriter, _ *http.Request) {
		errorAnswer(w, http.StatusNotFound, `{"error":{"message":"Not Found","type":"invalid_request_error","code":"unknown_url"}}`)
	}, map[string]string{"": openAIModels})
	res := drain(t, t.Context(), newClient(t, api.Profile()), conversation)
	if !errors.Is(res.Err, provider.ErrBadRequest) || errors.Is(res.Err, provider.ErrModelNotFound) {
		t.Fatalf("err = %v, want a bad request", res.Err)
	}
	if len(api.Targets()) != 0 {
		t.Errorf("the models were listed: %v", api.Targets())
	}
}

// When the list cannot be had either, the error says how to get it.
func TestModelNotFoundWhenTheListFails(t *testing.T) {
	api := conformance.NewModelsAPI(t, modelsPaging, func(w http.ResponseWriter, _ *http.Request) {
		errorAnswer(w, http.StatusNotFound, modelNotFound)
	}, map[string]string{}) // every models request is refused
	res := drain(t, context.Background(), newClient(t, api.Profile()), conversation)
	var pe *provider.Error
	if !errors.As(res.Err, &pe) || pe.Kind != provider.KindModelNotFound {
		t.Fatalf("err = %v", res.Err)
	}
	if pe.ListErr == nil || pe.Available != nil {
		t.Errorf("ListErr %v, Available %v", pe.ListErr, pe.Available)
	}
	if !strings.Contains(res.Err.Error(), "to see the models this key can use: loopforge providers --models") {
		t.Errorf("message %q does not say how to list the models", res.Err)
	}
}
