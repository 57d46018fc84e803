package journal

import (
	"slices"

	"github.com/loopforge/loopforge/backend/event"
	"github.com/loopforge/loopforge/backend/store"
)

// iterRows are a run's iteration rows as its events so far make them, so
// that history views need not replay the event stream: each batch of events
// is written with the rows it changed, in the same transaction. Guarded by
// the run's flushMu.
type iterRows struct {
	runID string
	byN   map[int]*store.Iteration
}

// track applies evs to the rows and returns those they changed, in the
// order first changed. Applying the same events again (a batch whose write
// failed, retried) gives the same rows.
func (t *iterRows) track(evs []event.Event) []store.Iteration {
	var changed []*store.Iteration
	for _, e := range evs {
		it := t.apply(e)
		if it != nil && !slices.Contains(changed, it) {
			changed = append(changed, it)
		}
	}
	rows := make([]store.Iteration, len(changed))
	for i, it := range changed {
		rows[i] = *it
	}
	return rows
}

// apply applies e to its iteration's row, nil when e changes none.
func (t *iterRows) apply(e event.Event) *store.Iteration {
	var n struct {
		Iteration int `json:"iteration"`
	}
	switch e.Type {
	case event.IterationStarted, event.Generated, event.ExecFinished, event.Reflection, event.IterationDone:
	default:
		return nil
	}
	// The service made these payloads: one that does not decode would be a
	// bug, and the event itself is still stored.
	if e.Decode(&n) != nil {
		return nil
	}
	it := t.byN[n.Iteration]
	if it == nil {
		it = &store.Iteration{RunID: t.runID, N: n.Iteration, Status: event.IterationStatusRunning}
		t.byN[n.Iteration] = it
	}
	switch e.Type {
	case event.Generated:
		var p event.GeneratedPayload
		if e.Decode(&p) == nil {
			it.Code, it.Content = p.Code, p.Content
			if p.FormatError != "" {
				it.Summary = p.FormatError
			}
		}
	case event.ExecFinished:
		var p event.ExecPayload
		if e.Decode(&p) == nil {
			it.ExecStatus, it.ExitCode, it.Stdout, it.Stderr = string(p.Status), p.ExitCode, p.Stdout, p.Stderr
			it.Truncated, it.ExecMS, it.Isolation = p.Truncated, p.DurationMS, p.Isolation
		}
	case event.Reflection:
		var p event.ReflectionPayload
		if e.Decode(&p) == nil {
			it.Reflection = p.Text
		}
	case event.IterationDone:
		var p event.IterationDonePayload
		if e.Decode(&p) == nil {
			it.Status, it.Summary = p.Status, p.Summary
		}
	}
	return it
}
