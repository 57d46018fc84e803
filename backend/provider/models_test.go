package provider

import (
	"context"
	"errors"
	"iter"
	"strings"
	"testing"
)

// A server that keeps answering with the same cursor ends the listing
// instead of looping; one that always has a new cursor stops at
// maxModelPages.
func TestPagesStopsOnARepeatedCursorAndAtTheLimit(t *testing.T) {
	calls := 0
	got, err := Pages(t.Context(), func(_ context.Context, cursor string) ([]Model, string, error) {
		calls++
		return []Model{{ID: "m" + cursor}}, "same", nil
	})
	if err != nil || calls != 2 || len(got) != 2 {
		t.Fatalf("repeated cursor: %d calls, %v, %v", calls, got, err)
	}
	calls = 0
	_, err = Pages(t.Context(), func(_ context.Context, cursor string) ([]Model, string, error) {
		calls++
		return nil, cursor + "x", nil
	})
	if err != nil || calls != maxModelPages {
		t.Fatalf("endless cursors: %d calls, %v", calls, err)
	}
}

type noList struct{}

func (noList) Name() string               { return "codex" }
func (noList) Capabilities() Capabilities { return Capabilities{} }
func (noList) Stream(context.Context, Request) iter.Seq2[Delta, error] {
	return func(func(Delta, error) bool) {}
}

func TestListModelsOfAKindWithoutList(t *testing.T) {
	_, err := ListModels(t.Context(), noList{})
	nl, ok := errors.AsType[*NoModelListError](err)
	if !ok || nl.Provider != "codex" || !errors.Is(err, ErrNoModelList) {
		t.Fatalf("err = %v", err)
	}
}

func TestModelNotFoundMessageBoundsTheList(t *testing.T) {
	e := &Error{Provider: "p", Kind: KindModelNotFound, Model: "old", Status: 404}
	for i := range maxListed + 5 {
		e.Available = append(e.Available, string(rune('a'+i%26))+string(rune('a'+i/26)))
	}
	msg := e.Error()
	if want := "… and 5 more (loopforge providers --models lists them all)"; !strings.Contains(msg, want) {
		t.Errorf("message %q lacks %q", msg, want)
	}
}
