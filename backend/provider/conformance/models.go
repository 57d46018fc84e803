package conformance

import (
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
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
}

// ModelsAPI is a fake provider API whose models list comes in pages, for
// the tests of a provider's models list and of its model-not-found errors
// (which list the models). It records the target and headers of every list
// request.
type ModelsAPI struct {
	*httptest.Server
	mu      sync.Mutex
	targets []string
	headers []http.Header
}

// NewModelsAPI starts a ModelsAPI that answers the list's page named by the
// cursor with pages[cursor] and, when call is not nil, the model calls with
// call; it closes when the test ends.
func NewModelsAPI(t *testing.T, p Paging, call http.HandlerFunc, pages map[string]string) *ModelsAPI {
	t.Helper()
	m := &ModelsAPI{}
	mux := http.NewServeMux()
	if call != nil {
		mux.HandleFunc(p.Call, call)
	}
	contentType := p.ContentType
	if contentType == "" {
		contentType = "application/json"
	}
	mux.HandleFunc(p.List, func(w http.ResponseWriter, r *http.Request) {
		m.mu.Lock()
		m.targets = append(m.targets, r.URL.RequestURI())
		m.headers = append(m.headers, r.Header.Clone())
		m.mu.Unlock()
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

// Targets returns the path and query of every list request, in order.
func (m *ModelsAPI) Targets() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.targets)
}

// Header returns the headers of list request i (0-based).
func (m *ModelsAPI) Header(t *testing.T, i int) http.Header {
	t.Helper()
	m.mu.Lock()
	defer m.mu.Unlock()
	if i >= len(m.headers) {
		t.Fatalf("only %d models requests reached the server", len(m.headers))
	}
	return m.headers[i]
}
