package store

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/loopforge/loopforge/backend/event"
)

// AppendEvent stores e exactly as given: its run, seq, type, ts and payload
// bytes. Numbering belongs to the caller (the service owns each run's seq);
// a seq already stored for the run is rejected with ErrDuplicate rather
// than overwritten, because a replaying client may already have seen it.
func (s *Store) AppendEvent(ctx context.Context, e event.Event) error {
	if _, err := s.w.ExecContext(ctx, insertEvent, eventArgs(e)...); err != nil {
		return fmt.Errorf("store: append event %d to run %q: %w", e.Seq, e.RunID, constraintErr(err))
	}
	return nil
}

// AppendEvents stores events in one transaction: all or none. One commit
// for many rows is what makes coalesced token events cheap (see the
// benchmarks); the events may belong to different runs. The iterations
// in its (each saved as PutIteration does) go in the same transaction: the service
// keeps a run's iteration rows in step with its events, and one commit for
// both is half the cost of two.
func (s *Store) AppendEvents(ctx context.Context, events []event.Event, its ...Iteration) error {
	if len(events) == 0 && len(its) == 0 {
		return nil
	}
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		// The statements go without ctx's deadline: the driver watches a
		// context that can end with a goroutine per statement, and a batch
		// has one statement per event. Nothing waits in them: BEGIN
		// IMMEDIATE took the write lock (under ctx), and the transaction
		// still ends with ctx (database/sql rolls it back).
		ctx := context.WithoutCancel(ctx)
		if len(events) > 0 {
			stmt := tx.StmtContext(ctx, s.ws.insertEvent)
			defer stmt.Close()
			for _, e := range events {
				if _, err := stmt.ExecContext(ctx, eventArgs(e)...); err != nil {
					return fmt.Errorf("event %d of run %q: %w", e.Seq, e.RunID, constraintErr(err))
				}
			}
		}
		if len(its) > 0 {
			stmt := tx.StmtContext(ctx, s.ws.upsertIteration)
			defer stmt.Close()
			for _, it := range its {
				if _, err := stmt.ExecContext(ctx, iterationArgs(it)...); err != nil {
					return fmt.Errorf("iteration %d of run %q: %w", it.N, it.RunID, constraintErr(err))
				}
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("store: append %d events: %w", len(events), err)
	}
	return nil
}

const insertEvent = `INSERT INTO events (run_id, seq, type, ts, payload) VALUES (?, ?, ?, ?, ?)`

func eventArgs(e event.Event) []any {
	// The payload goes in as text (the column is TEXT, see the migration);
	// SQLite keeps text bytes as given, so it comes back identical.
	return []any{e.RunID, e.Seq, string(e.Type), fmtTime(e.TS), string(e.Payload)}
}

// EventsAfter returns up to limit events of the run with seq > afterSeq, in
// seq order; limit 0 or less means all. A client that saw seq n asks for
// EventsAfter(run, n, page) until it gets fewer than a page.
func (s *Store) EventsAfter(ctx context.Context, runID string, afterSeq int64, limit int) ([]event.Event, error) {
	if limit <= 0 {
		limit = -1 // SQLite: no limit
	}
	var evs []event.Event
	err := s.readTx(ctx, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, `SELECT run_id, seq, type, ts, payload
			FROM events WHERE run_id = ? AND seq > ? ORDER BY seq LIMIT ?`, runID, afterSeq, limit)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var (
				e       event.Event
				kind    string
				ts      string
				payload []byte
			)
			if err := rows.Scan(&e.RunID, &e.Seq, &kind, &ts, &payload); err != nil {
				return err
			}
			e.Type = event.Kind(kind)
			if e.TS, err = parseTime(ts); err != nil {
				return err
			}
			if len(payload) > 0 { // an absent payload stays nil, as it went in
				e.Payload = payload
			}
			evs = append(evs, e)
		}
		if err := rows.Err(); err != nil {
			return err
		}
		if len(evs) == 0 {
			return runExists(ctx, tx, runID)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: events of run %q after %d: %w", runID, afterSeq, err)
	}
	return evs, nil
}
