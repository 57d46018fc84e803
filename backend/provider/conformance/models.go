package conformance

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/loopforge/loopforge/backend/provider"
)

// Paging says how a provider's API pages its models list: the list's route,
// the query parameter that names the next page, and the API's own refusal
// of a cursor it does not know.
type Paging struct {
	// List is the list's route pattern, e.g. "GET /v1/models".
	List string
	// Cursor is the query parameter naming the page ("after", "after_id",
	// "pageToken"); without it the first page (pages[""]) is asked for.
	Cursor string
	// ContentType is a page's (default application/json).
	ContentType string
	// Call is the route pattern of the API's model calls, e.g.
	// "POST /v1/chat/completions"; NewModelsAPI serves it when given a
	// handler.
	Call string
	// Refuse answers a cursor that names no page, as the API does (a 400).
	Refuse func(w http.ResponseWriter)
	// Profile is the provider's profile for this API; its BaseURL is the
	// path after the server's address ("/v1" or "").
	Profile provider.Profile
}

// ModelsAPI is a fake provider API whose models list comes in pages, for
// the tests of a provider's models list and of its model-not-found errors
// (which list the models). It records every list request (Header, Target,
// Targets).
type ModelsAPI struct {
	*httptest.Server
	requests
	profile provider.Profile
}

// NewModelsAPI starts a ModelsAPI that answers the list's page named by the
// cursor with pages[cursor] and, when call is not nil, the model calls with
// call; it closes when the test ends.
func NewModelsAPI(t *testing.T, p Paging, call http.HandlerFunc, pages map[string]string) *ModelsAPI {
	t.Helper()
	m := &ModelsAPI{profile: p.Profile}
	mux := http.NewServeMux()
	if call != nil {
		mux.HandleFunc(p.Call, call)
	}
	contentType := p.ContentType
	if contentType == "" {
		contentType = "application/json"
	}
	mux.HandleFunc(p.List, func(w http.ResponseWriter, r *http.Request) {
		m.record(r, nil)
		body, ok := pages[r.URL.Query().Get(p.Cursor)]
		if !ok {
			p.Refuse(w)
			return
		}
		w.Header().Set("Content-Type", contentType)
		_, _ = io.WriteString(w, body)
	})
	m.Server = httptest.NewServer(mux)
	t.Cleanup(m.Close)
	return m
}

// Profile is the Paging's profile at this server, with FastRetry.
func (m *ModelsAPI) Profile() provider.Profile {
	p := m.profile
	p.BaseURL = m.URL + p.BaseURL
	p.Retry = FastRetry()
	return p
}
