package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/loopforge/loopforge/backend/event"
)

// Iteration is one generate → execute → reflect step of a run, numbered from
// 1 by N. The loop saves it several times as the step progresses.
type Iteration struct {
	RunID      string                `json:"run_id"`
	N          int                   `json:"n"`
	Code       string                `json:"code"`
	Content    string                `json:"content"` // the model's full answer
	ExecStatus string                `json:"exec_status"`
	ExitCode   int                   `json:"exit_code"`
	Stdout     string                `json:"stdout"`
	Stderr     string                `json:"stderr"`
	Truncated  bool                  `json:"truncated"`
	ExecMS     int64                 `json:"exec_ms"`
	Isolation  string                `json:"isolation"`
	Reflection string                `json:"reflection"`
	Status     event.IterationStatus `json:"status"`
	Summary    string                `json:"summary"`
}

// Message is one entry of a run's conversation with its provider.
type Message struct {
	RunID     string    `json:"run_id"`
	Seq       int       `json:"seq"` // 1, 2, 3… within the run
	Role      string    `json:"role"`
	Content   string    `json:"content"`
	CreatedAt time.Time `json:"created_at"`
}

// PutIteration inserts the iteration or, if (RunID, N) exists, replaces all
// its fields: each save carries the whole current state of the step.
func (s *Store) PutIteration(ctx context.Context, it Iteration) error {
	if _, err := s.w.ExecContext(ctx, upsertIteration, iterationArgs(it)...); err != nil {
		return fmt.Errorf("store: put iteration %d of run %q: %w", it.N, it.RunID, constraintErr(err))
	}
	return nil
}

const upsertIteration = `INSERT INTO iterations (
		run_id, n, code, content, exec_status, exit_code, stdout, stderr,
		truncated, exec_ms, isolation, reflection, status, summary)
	VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
	ON CONFLICT (run_id, n) DO UPDATE SET
		code = excluded.code, content = excluded.content,
		exec_status = excluded.exec_status, exit_code = excluded.exit_code,
		stdout = excluded.stdout, stderr = excluded.stderr,
		truncated = excluded.truncated, exec_ms = excluded.exec_ms,
		isolation = excluded.isolation, reflection = excluded.reflection,
		status = excluded.status, summary = excluded.summary`

func iterationArgs(it Iteration) []any {
	return []any{it.RunID, it.N, it.Code, it.Content, it.ExecStatus, it.ExitCode, it.Stdout, it.Stderr,
		boolInt(it.Truncated), it.ExecMS, it.Isolation, it.Reflection, it.Status, it.Summary}
}

// ListIterations returns a run's iterations by N.
func (s *Store) ListIterations(ctx context.Context, runID string) ([]Iteration, error) {
	var its []Iteration
	err := s.readTx(ctx, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, `SELECT
				run_id, n, code, content, exec_status, exit_code, stdout, stderr,
				truncated, exec_ms, isolation, reflection, status, summary
			FROM iterations WHERE run_id = ? ORDER BY n`, runID)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var it Iteration
			if err := rows.Scan(&it.RunID, &it.N, &it.Code, &it.Content, &it.ExecStatus, &it.ExitCode,
				&it.Stdout, &it.Stderr, &it.Truncated, &it.ExecMS, &it.Isolation, &it.Reflection,
				&it.Status, &it.Summary); err != nil {
				return err
			}
			its = append(its, it)
		}
		if err := rows.Err(); err != nil {
			return err
		}
		if len(its) == 0 {
			return runExists(ctx, tx, runID)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: list iterations of run %q: %w", runID, err)
	}
	return its, nil
}

// AppendMessage adds a message to a run's thread. Seq 0 means "next": one
// more than the run's highest seq, computed in the INSERT itself so two
// appends cannot pick the same number. A zero CreatedAt becomes now.
func (s *Store) AppendMessage(ctx context.Context, m Message) error {
	return s.AppendMessages(ctx, []Message{m})
}

// AppendMessages adds messages as AppendMessage does, in order and in one
// transaction: all or none. A run's thread is saved whole when it ends, and
// one commit for it, rather than one a message, is what its end costs.
func (s *Store) AppendMessages(ctx context.Context, msgs []Message) error {
	if len(msgs) == 0 {
		return nil
	}
	return s.inTx(ctx, func(tx *sql.Tx) error {
		for _, m := range msgs {
			if err := s.appendMessage(ctx, tx, m); err != nil {
				return err
			}
		}
		return nil
	})
}

func (s *Store) appendMessage(ctx context.Context, tx *sql.Tx, m Message) error {
	if m.CreatedAt.IsZero() {
		m.CreatedAt = now()
	}
	var err error
	if m.Seq == 0 {
		_, err = txExec(ctx, tx, s.ws.appendMessage, m.RunID, m.Role, m.Content, fmtTime(m.CreatedAt))
	} else {
		_, err = txExec(ctx, tx, s.ws.appendMessageAtSeq, m.RunID, m.Seq, m.Role, m.Content, fmtTime(m.CreatedAt))
	}
	if err != nil {
		return fmt.Errorf("store: append message to run %q: %w", m.RunID, constraintErr(err))
	}
	return nil
}

const (
	appendMessage = `INSERT INTO messages (run_id, seq, role, content, created_at)
		SELECT ?1, coalesce(max(seq), 0) + 1, ?2, ?3, ?4 FROM messages WHERE run_id = ?1`
	appendMessageAtSeq = `INSERT INTO messages (run_id, seq, role, content, created_at)
		VALUES (?, ?, ?, ?, ?)`
)

// ListMessages returns a run's thread by seq.
func (s *Store) ListMessages(ctx context.Context, runID string) ([]Message, error) {
	var msgs []Message
	err := s.readTx(ctx, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, `SELECT run_id, seq, role, content, created_at
			FROM messages WHERE run_id = ? ORDER BY seq`, runID)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var (
				m       Message
				created string
			)
			if err := rows.Scan(&m.RunID, &m.Seq, &m.Role, &m.Content, &created); err != nil {
				return err
			}
			if m.CreatedAt, err = parseTime(created); err != nil {
				return err
			}
			msgs = append(msgs, m)
		}
		if err := rows.Err(); err != nil {
			return err
		}
		if len(msgs) == 0 {
			return runExists(ctx, tx, runID)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: list messages of run %q: %w", runID, err)
	}
	return msgs, nil
}

func runExists(ctx context.Context, q querier, runID string) error {
	return mustExist(ctx, q, `SELECT EXISTS (SELECT 1 FROM runs WHERE id = ?)`, runID)
}
