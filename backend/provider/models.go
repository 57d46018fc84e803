package provider

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"net/http"
	"slices"
	"time"
)

// Model is one model a key can use, as its API's models list names it.
type Model struct {
	// ID is what a profile's model: takes ("gpt-4o-mini", not Gemini's
	// "models/…" resource name).
	ID string `json:"id"`
	// Name is the API's display name, when it gives one.
	Name string `json:"name,omitempty"`
}

// ModelLister is implemented by the HTTP providers: each API has a models
// list (OpenAI and compatible servers GET /models, Anthropic GET
// /v1/models, Gemini models.list), which says what the profile's key may
// ask for.
type ModelLister interface {
	Models(ctx context.Context) ([]Model, error)
}

// ErrNoModelList is matched by a *NoModelListError.
var ErrNoModelList = errors.New("this kind of provider has no models list")

// NoModelListError: the profile's kind has no models list (a coding CLI,
// which chooses among its own models).
type NoModelListError struct {
	Provider string // profile name
}

func (e *NoModelListError) Error() string {
	return fmt.Sprintf("%s: a coding CLI has no models list to ask; its own documentation names its models", e.Provider)
}

// Is lets errors.Is(err, ErrNoModelList) match.
func (e *NoModelListError) Is(target error) bool { return target == ErrNoModelList }

// ModelsTimeout bounds a whole listing, every page included: a models list
// is small, and a command that shows it must not hang on a silent server.
const ModelsTimeout = 20 * time.Second

// maxModelPages bounds a paginated listing, so that a server that keeps
// answering with a next page cannot keep a listing going forever.
const maxModelPages = 50

// ListModels asks p for the models its key can use, within ModelsTimeout,
// sorted by ID without duplicates. A provider that has no models list
// fails with a *NoModelListError; a failed request with an *Error (no key,
// rejected key, unreachable, timeout…).
func ListModels(ctx context.Context, p Provider) ([]Model, error) {
	l, ok := p.(ModelLister)
	if !ok {
		return nil, &NoModelListError{Provider: p.Name()}
	}
	ctx, cancel := context.WithTimeout(ctx, ModelsTimeout)
	defer cancel()
	list, err := l.Models(ctx)
	if err != nil {
		return nil, err
	}
	slices.SortFunc(list, func(a, b Model) int { return cmp.Compare(a.ID, b.ID) })
	return slices.CompactFunc(list, func(a, b Model) bool { return a.ID == b.ID }), nil
}

// Pages runs a paginated listing: fetch gets the page after the cursor
// ("" for the first) and returns its models and the next cursor ("" when it
// was the last). It stops after maxModelPages, and when a cursor repeats
// (a server that answers the same page again).
func Pages(ctx context.Context, fetch func(ctx context.Context, cursor string) ([]Model, string, error)) ([]Model, error) {
	var all []Model
	seen := map[string]bool{}
	cursor := ""
	for range maxModelPages {
		page, next, err := fetch(ctx, cursor)
		if err != nil {
			return nil, err
		}
		all = append(all, page...)
		if next == "" || seen[next] {
			return all, nil
		}
		seen[next] = true
		cursor = next
	}
	return all, nil
}

// GetJSON sends a GET to url with ctx through the call's http.Client (so
// the first-byte and idle limits apply) and decodes a 200 answer into out.
// Any other answer is returned as an *HTTPStatusError, as PostJSON does.
// It is not retried: a listing is asked for by a person, who can ask again.
func (c *HTTPCall) GetJSON(ctx context.Context, url string, setHeader func(http.Header), out any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/json")
	if setHeader != nil {
		setHeader(req.Header)
	}
	res, err := c.client.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	// A models list is a few hundred entries: 8 MiB is far beyond any.
	body, err := io.ReadAll(io.LimitReader(res.Body, 8<<20))
	if err != nil {
		return err
	}
	if res.StatusCode != http.StatusOK {
		return &HTTPStatusError{Status: res.StatusCode, Body: body[:min(len(body), maxErrorBody)]}
	}
	if err := json.Unmarshal(body, out); err != nil {
		return &Error{Provider: c.provider, Kind: KindProtocol, Message: "the models list is not JSON: " + err.Error(), Err: err}
	}
	return nil
}

// ModelNotFound is the error of an API that answered that the profile's
// model does not exist (or no longer does, or is not offered to this key):
// each adapter recognises its API's own error shape and calls it.
func (c ErrorContext) ModelNotFound(status int, msg string, err error) *Error {
	return &Error{Provider: c.Provider, Kind: KindModelNotFound, Status: status, Model: c.Model,
		Message: c.Clean(msg), Err: err}
}

// WithModelList passes a call's stream through. When it ends with a
// model-not-found *Error, the error is given the models the key can use
// (Error.Available), listed by list within ModelsTimeout, so that whoever
// reads it can pick one at once; a listing that fails leaves Available
// empty and ListErr set.
func WithModelList(ctx context.Context, stream iter.Seq2[Delta, error], list func(context.Context) ([]Model, error)) iter.Seq2[Delta, error] {
	return func(yield func(Delta, error) bool) {
		for d, err := range stream {
			if err != nil {
				if pe, ok := errors.AsType[*Error](err); ok && pe.Kind == KindModelNotFound && ctx.Err() == nil {
					fillAvailable(ctx, pe, list)
				}
				yield(d, err)
				return
			}
			if !yield(d, nil) {
				return
			}
		}
	}
}

// fillAvailable sets e.Available (or e.ListErr) from list.
func fillAvailable(ctx context.Context, e *Error, list func(context.Context) ([]Model, error)) {
	ctx, cancel := context.WithTimeout(ctx, ModelsTimeout)
	defer cancel()
	models, err := list(ctx)
	if err != nil {
		e.ListErr = err
		return
	}
	ids := make([]string, 0, len(models))
	for _, m := range models {
		ids = append(ids, m.ID)
	}
	slices.Sort(ids)
	e.Available = slices.Compact(ids)
}
