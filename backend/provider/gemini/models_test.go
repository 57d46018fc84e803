package gemini

import (
	"errors"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/loopforge/loopforge/backend/provider"
	"github.com/loopforge/loopforge/backend/provider/conformance"
)

// modelsPaging is the Gemini API's: generateContent calls go to the
// handler given, models.list (GET /v1beta/models) answers with the page of
// ?pageToken=.
var modelsPaging = conformance.Paging{List: "GET /v1beta/models", Cursor: "pageToken", Call: "POST /v1beta/models/{call}",
	ContentType: "application/json; charset=UTF-8",
	Refuse: func(w http.ResponseWriter) {
		errorAnswer(w, http.StatusBadRequest, apiError(400, "INVALID_ARGUMENT", "bad page token"))
	},
	Profile: provider.Profile{Name: "gemini-test", Kind: "gemini-api", Model: "gemini-2.5-flash", APIKeyEnv: "GEMINI_API_KEY", APIKey: "AIza-test-123"}}

// Two pages as models.list answers them: an embedding model (no
// generateContent) is left out.
var geminiPages = map[string]string{
	"": `{"models":[
  {"name":"models/gemini-3.8-flash","version":"3.8","displayName":"Gemini 3.8 Flash","inputTokenLimit":1048576,"outputTokenLimit":65536,
   "supportedGenerationMethods":["generateContent","countTokens","createCachedContent","batchGenerateContent"]},
  {"name":"models/gemini-embedding-001","version":"001","displayName":"Gemini Embedding 001",
   "supportedGenerationMethods":["embedContent","countTextTokens","countTokens"]}],
 "nextPageToken":"Ch9tb2RlbHMvZ2VtaW5p"}`,
	"Ch9tb2RlbHMvZ2VtaW5p": `{"models":[
  {"name":"models/gemini-3.7-flash","version":"3.7","displayName":"Gemini 3.7 Flash",
   "supportedGenerationMethods":["generateContent","countTokens"]}]}`,
}

func TestModelsFollowsPageTokensAndKeepsGenerators(t *testing.T) {
	api := conformance.NewModelsAPI(t, modelsPaging, nil, geminiPages)
	got, err := provider.ListModels(t.Context(), newClient(t, api.Profile()))
	if err != nil {
		t.Fatal(err)
	}
	want := []provider.Model{{ID: "gemini-3.7-flash", Name: "Gemini 3.7 Flash"}, {ID: "gemini-3.8-flash", Name: "Gemini 3.8 Flash"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("models = %v, want %v", got, want)
	}
	if want := []string{"/v1beta/models?pageSize=1000", "/v1beta/models?pageSize=1000&pageToken=Ch9tb2RlbHMvZ2VtaW5p"}; !reflect.DeepEqual(api.Targets(), want) {
		t.Errorf("requests = %v, want %v", api.Targets(), want)
	}
	if api.Header(t, 0).Get("x-goog-api-key") != "AIza-test-123" {
		t.Errorf("x-goog-api-key = %q", api.Header(t, 0).Get("x-goog-api-key"))
	}
}

func TestModelNotFoundNamesTheModelAndTheList(t *testing.T) {
	api := conformance.NewModelsAPI(t, modelsPaging, func(w http.ResponseWriter, _ *http.Request) {
		errorAnswer(w, http.StatusNotFound, apiError(404, "NOT_FOUND",
			"models/gemini-2.5-flash is not found for API version v1beta, or is not supported for generateContent. "+
				"Call ListModels to see the list of available models and their supported methods."))
	}, geminiPages)
	res := drain(t, t.Context(), newClient(t, api.Profile()), provider.Request{
		Messages: []provider.Message{{Role: provider.RoleUser, Content: "hi"}}})
	pe, ok := errors.AsType[*provider.Error](res.Err)
	if !ok || pe.Kind != provider.KindModelNotFound || pe.Model != "gemini-2.5-flash" {
		t.Fatalf("err = %v, want model gemini-2.5-flash not found", res.Err)
	}
	if want := []string{"gemini-3.7-flash", "gemini-3.8-flash"}; !reflect.DeepEqual(pe.Available, want) {
		t.Errorf("Available = %v", pe.Available)
	}
	if !strings.Contains(res.Err.Error(), "models this key can use: gemini-3.7-flash, gemini-3.8-flash") {
		t.Errorf("message %q", res.Err)
	}
}

// A 404 without the API's NOT_FOUND status (no Gemini API behind the base
// URL) is not a missing model.
func TestPlain404IsNotAMissingModel(t *testing.T) {
	api := conformance.NewModelsAPI(t, modelsPaging, func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "<html>404 page not found</html>", http.StatusNotFound)
	}, geminiPages)
	res := drain(t, t.Context(), newClient(t, api.Profile()), provider.Request{
		Messages: []provider.Message{{Role: provider.RoleUser, Content: "hi"}}})
	if errors.Is(res.Err, provider.ErrModelNotFound) || !errors.Is(res.Err, provider.ErrBadRequest) {
		t.Fatalf("err = %v, want a bad request", res.Err)
	}
	if len(api.Targets()) != 0 {
		t.Errorf("models were listed: %v", api.Targets())
	}
}
