package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/loopforge/loopforge/backend/event"
)

// What a student's learning path reads beyond runs and iterations: the
// assignments a class was given over time, and the few events of a run that
// say when each iteration began and what its calls cost.

// ClassAssignment is one assignment given to a class at SetAt; an empty
// Prompt means the assignment was cleared then.
type ClassAssignment struct {
	ClassID string
	SetAt   time.Time
	Title   string
	Prompt  string
}

// AddClassAssignment records an assignment given to a class (or cleared).
func (s *Store) AddClassAssignment(ctx context.Context, a ClassAssignment) error {
	if a.SetAt.IsZero() {
		a.SetAt = now()
	}
	_, err := s.w.ExecContext(ctx, `INSERT INTO class_assignments (class_id, set_at, title, prompt) VALUES (?, ?, ?, ?)`,
		a.ClassID, fmtTime(a.SetAt), a.Title, a.Prompt)
	if err != nil {
		return fmt.Errorf("store: record an assignment of class %q: %w", a.ClassID, constraintErr(err))
	}
	return nil
}

// ClassAssignments returns the assignments a class was given, oldest first.
func (s *Store) ClassAssignments(ctx context.Context, classID string) ([]ClassAssignment, error) {
	var out []ClassAssignment
	err := s.readTx(ctx, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, `SELECT set_at, title, prompt FROM class_assignments
			WHERE class_id = ? ORDER BY set_at, id`, classID)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			a := ClassAssignment{ClassID: classID}
			var at string
			if err := rows.Scan(&at, &a.Title, &a.Prompt); err != nil {
				return err
			}
			if a.SetAt, err = parseTime(at); err != nil {
				return err
			}
			out = append(out, a)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("store: assignments of class %q: %w", classID, err)
	}
	return out, nil
}

// stepKinds are the events RunSteps reads: the small ones that time an
// iteration and carry its calls' usage (never the many token deltas).
var stepKinds = []any{string(event.IterationStarted), string(event.Generated), string(event.Reflection),
	string(event.IterationDone), string(event.RunFinished), string(event.Tested)}

// RunSteps returns a run's iteration_started, generated, reflection,
// iteration_done, tested and run_finished events, in order.
func (s *Store) RunSteps(ctx context.Context, runID string) ([]event.Event, error) {
	var evs []event.Event
	err := s.readTx(ctx, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, `SELECT run_id, seq, type, ts, payload FROM events
			WHERE run_id = ? AND type IN (?, ?, ?, ?, ?, ?) ORDER BY seq`, append([]any{runID}, stepKinds...)...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var (
				e        event.Event
				kind, ts string
				payload  []byte
			)
			if err := rows.Scan(&e.RunID, &e.Seq, &kind, &ts, &payload); err != nil {
				return err
			}
			e.Type = event.Kind(kind)
			if e.TS, err = parseTime(ts); err != nil {
				return err
			}
			if len(payload) > 0 {
				e.Payload = payload
			}
			evs = append(evs, e)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("store: steps of run %q: %w", runID, err)
	}
	return evs, nil
}
