// Package eventtest holds what tests of a run's event stream check it with:
// the same events, numbered in order, and the text its token deltas add up
// to. Imported by tests only (backend/journal, backend/service).
package eventtest

import (
	"fmt"
	"testing"

	"github.com/loopforge/loopforge/backend/event"
)

// SameStream fails the test unless got is want (type and payload, in
// order) numbered from first on, for runID.
func SameStream(tb testing.TB, what string, got, want []event.Event, runID string, first int64) {
	tb.Helper()
	if len(got) != len(want) {
		tb.Fatalf("%s: %d events, want %d", what, len(got), len(want))
	}
	for i, e := range got {
		w := want[i]
		if e.Seq != first+int64(i) || e.RunID != runID || e.Type != w.Type || string(e.Payload) != string(w.Payload) {
			tb.Fatalf("%s: event %d is #%d %s %s %s; want #%d %s %s", what, i, e.Seq, e.RunID, e.Type, e.Payload, first+int64(i), w.Type, w.Payload)
		}
	}
}

// TokenText concatenates the text of the token events per iteration and
// phase ("2/reflect"), in order.
func TokenText(tb testing.TB, evs []event.Event) map[string]string {
	tb.Helper()
	out := map[string]string{}
	for _, e := range evs {
		if e.Type != event.Token {
			continue
		}
		var p event.TokenPayload
		if err := e.Decode(&p); err != nil {
			tb.Fatal(err)
		}
		out[fmt.Sprintf("%d/%s", p.Iteration, p.Phase)] += p.Text
	}
	return out
}
