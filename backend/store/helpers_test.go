package store

import (
	"context"
	"database/sql"
	"fmt"
)

// Queries only the tests make.

// ListRuns returns the runs of a session by start time. A session without
// runs gives an empty list; a missing session, ErrNotFound.
func (s *Store) ListRuns(ctx context.Context, sessionID string) ([]Run, error) {
	var runs []Run
	err := s.readTx(ctx, func(tx *sql.Tx) error {
		var err error
		runs, err = queryRuns(ctx, tx, `WHERE session_id = ? ORDER BY started_at, id`, sessionID)
		if err == nil && len(runs) == 0 {
			err = mustExist(ctx, tx, `SELECT EXISTS (SELECT 1 FROM sessions WHERE id = ?)`, sessionID)
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("store: list runs of session %q: %w", sessionID, err)
	}
	return runs, nil
}

// LastSeq returns the highest event seq stored for the run, 0 if it has none
// yet.
func (s *Store) LastSeq(ctx context.Context, runID string) (int64, error) {
	var (
		exists bool
		seq    int64
	)
	err := s.r.QueryRowContext(ctx, `SELECT
			EXISTS (SELECT 1 FROM runs WHERE id = ?1),
			coalesce((SELECT max(seq) FROM events WHERE run_id = ?1), 0)`, runID).Scan(&exists, &seq)
	if err == nil && !exists {
		err = ErrNotFound
	}
	if err != nil {
		return 0, fmt.Errorf("store: last seq of run %q: %w", runID, err)
	}
	return seq, nil
}
