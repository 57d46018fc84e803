package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/loopforge/loopforge/backend/event"
)

// Session is one prompt and the runs made from it.
type Session struct {
	ID     string `json:"id"`
	Title  string `json:"title"`
	Prompt string `json:"prompt"`
	// Mode is how it was started: a run's mode or a comparison; Kind is
	// what its runs work on, whatever its mode (a comparison's runs too).
	Mode      event.SessionMode `json:"mode"`
	Kind      event.Mode        `json:"kind"`
	Workdir   string            `json:"workdir"`
	CreatedAt time.Time         `json:"created_at"`
	UpdatedAt time.Time         `json:"updated_at"`
	// ClassID and StudentID: the class and the student a session of
	// `loopforge class` belongs to ("" for every other session).
	ClassID   string `json:"class_id,omitempty"`
	StudentID string `json:"student_id,omitempty"`
	// Runs is filled by GetSession, ordered by start time; other methods
	// ignore it.
	Runs []Run `json:"runs,omitempty"`
}

// SessionSummary is one line of the history list.
type SessionSummary struct {
	ID        string            `json:"id"`
	Title     string            `json:"title"`
	Prompt    string            `json:"prompt"`
	Mode      event.SessionMode `json:"mode"`
	Kind      event.Mode        `json:"kind"`
	Workdir   string            `json:"workdir"`
	CreatedAt time.Time         `json:"created_at"`
	UpdatedAt time.Time         `json:"updated_at"`
	Runs      []RunBrief        `json:"runs"` // by start time
	// A class session's class, student and the student's name.
	ClassID     string `json:"class_id,omitempty"`
	StudentID   string `json:"student_id,omitempty"`
	StudentName string `json:"student_name,omitempty"`
}

// RunBrief is what the history list shows of a run.
type RunBrief struct {
	ID         string          `json:"id"`
	Provider   string          `json:"provider"`
	Status     event.RunStatus `json:"status"`
	Iterations int             `json:"iterations"`
}

// ListOptions selects a page of sessions.
type ListOptions struct {
	// Query, when not blank, keeps sessions whose title or prompt contains
	// it, ignoring case (Unicode-aware: "AÇÃO" finds "ação"). It is matched
	// literally: % _ * ? have no special meaning.
	Query string
	// Limit is the page size; 0 or less means no limit.
	Limit int
	// Offset skips that many sessions of the ordered result.
	Offset int
	// StudentID, when set, keeps only that student's sessions; ClassID,
	// only that class's.
	StudentID string
	ClassID   string
}

// CreateSession inserts s. An empty ID is filled with a new time-ordered id,
// zero CreatedAt with the current time, zero UpdatedAt with CreatedAt and
// an empty Kind with event.ModeScript; the filled values are written back into
// s.
func (s *Store) CreateSession(ctx context.Context, sess *Session) error {
	if sess.ID == "" {
		sess.ID = newID()
	}
	if sess.CreatedAt.IsZero() {
		sess.CreatedAt = now()
	}
	if sess.UpdatedAt.IsZero() {
		sess.UpdatedAt = sess.CreatedAt
	}
	if sess.Kind == "" {
		sess.Kind = event.ModeScript
	}
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO sessions
			(id, title, prompt, mode, kind, workdir, created_at, updated_at, class_id, student_id)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			sess.ID, sess.Title, sess.Prompt, sess.Mode, sess.Kind, sess.Workdir,
			fmtTime(sess.CreatedAt), fmtTime(sess.UpdatedAt), nullString(sess.ClassID), nullString(sess.StudentID)); err != nil {
			return constraintErr(err)
		}
		return indexSession(ctx, tx, sess.ID, sess.Title, sess.Prompt)
	})
	if err != nil {
		return fmt.Errorf("store: create session %q: %w", sess.ID, err)
	}
	return nil
}

// indexSession (re)writes the search row of a session. Any future change to
// a session's title or prompt must call it in the same transaction.
func indexSession(ctx context.Context, tx *sql.Tx, id, title, prompt string) error {
	if _, err := tx.ExecContext(ctx,
		`DELETE FROM session_search WHERE session_id = ?`, id); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx,
		`INSERT INTO session_search (session_id, title, prompt) VALUES (?, ?, ?)`,
		id, fold(title), fold(prompt))
	return err
}

// fold is the case folding applied to searchable text and to queries alike.
func fold(s string) string { return strings.ToLower(s) }

// globLiteral turns user text into a GLOB pattern matching it as a substring,
// with the pattern characters bracketed so they match themselves.
func globLiteral(q string) string {
	var b strings.Builder
	b.WriteByte('*')
	for _, r := range q {
		switch r {
		case '*', '?', '[':
			b.WriteByte('[')
			b.WriteRune(r)
			b.WriteByte(']')
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('*')
	return b.String()
}

// GetSession returns the session with its runs, ordered by start time.
func (s *Store) GetSession(ctx context.Context, id string) (*Session, error) {
	var sess *Session
	err := s.readTx(ctx, func(tx *sql.Tx) error {
		var err error
		sess, err = scanSession(tx.QueryRowContext(ctx, `SELECT
			id, title, prompt, mode, kind, workdir, created_at, updated_at, class_id, student_id
			FROM sessions WHERE id = ?`, id))
		if err != nil {
			return err
		}
		sess.Runs, err = queryRuns(ctx, tx, `WHERE session_id = ? ORDER BY started_at, id`, id)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("store: get session %q: %w", id, err)
	}
	return sess, nil
}

type rowScanner interface{ Scan(dest ...any) error }

func scanSession(row rowScanner) (*Session, error) {
	var (
		sess             Session
		created, updated string
		class, student   sql.NullString
	)
	err := row.Scan(&sess.ID, &sess.Title, &sess.Prompt, &sess.Mode, &sess.Kind, &sess.Workdir, &created, &updated, &class, &student)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	sess.ClassID, sess.StudentID = class.String, student.String
	if sess.CreatedAt, err = parseTime(created); err != nil {
		return nil, err
	}
	if sess.UpdatedAt, err = parseTime(updated); err != nil {
		return nil, err
	}
	return &sess, nil
}

// ListSessions returns a page of sessions, most recently updated first, each
// with a brief of its runs.
func (s *Store) ListSessions(ctx context.Context, opts ListOptions) ([]SessionSummary, error) {
	limit := opts.Limit
	if limit <= 0 {
		limit = -1 // SQLite: no limit
	}
	offset := max(opts.Offset, 0)

	var conds []string
	args := []any{}
	if q := fold(strings.TrimSpace(opts.Query)); q != "" {
		// Served by the trigram index when q has 3+ characters; shorter
		// queries fall back to scanning session_search, still correct.
		conds = append(conds, `id IN (SELECT session_id FROM session_search
			WHERE title GLOB :q OR prompt GLOB :q)`)
		args = append(args, sql.Named("q", globLiteral(q)))
	}
	if opts.StudentID != "" {
		conds = append(conds, `student_id = :student`)
		args = append(args, sql.Named("student", opts.StudentID))
	}
	if opts.ClassID != "" {
		conds = append(conds, `class_id = :class`)
		args = append(args, sql.Named("class", opts.ClassID))
	}
	filter := ""
	if len(conds) > 0 {
		filter = "WHERE " + strings.Join(conds, " AND ")
	}
	args = append(args, sql.Named("limit", limit), sql.Named("offset", offset))

	// One query: the page of sessions, then their runs joined in. A session
	// without runs still appears once (LEFT JOIN, NULL run columns).
	rows, err := s.r.QueryContext(ctx, `WITH page AS (
			SELECT id, title, prompt, mode, kind, workdir, created_at, updated_at, class_id, student_id
			FROM sessions `+filter+`
			ORDER BY updated_at DESC, id DESC
			LIMIT :limit OFFSET :offset
		)
		SELECT p.id, p.title, p.prompt, p.mode, p.kind, p.workdir, p.created_at, p.updated_at,
			p.class_id, p.student_id, st.name,
			r.id, r.provider, r.status, r.iterations
		FROM page p LEFT JOIN runs r ON r.session_id = p.id
		LEFT JOIN students st ON st.id = p.student_id
		ORDER BY p.updated_at DESC, p.id DESC, r.started_at, r.id`, args...)
	if err != nil {
		return nil, fmt.Errorf("store: list sessions: %w", corrupt(s.path, err))
	}
	defer rows.Close()

	var out []SessionSummary
	for rows.Next() {
		var (
			sum                     SessionSummary
			created, updated        string
			runID, provider, status sql.NullString
			class, student, name    sql.NullString
			iterations              sql.NullInt64
		)
		if err := rows.Scan(&sum.ID, &sum.Title, &sum.Prompt, &sum.Mode, &sum.Kind, &sum.Workdir, &created, &updated,
			&class, &student, &name, &runID, &provider, &status, &iterations); err != nil {
			return nil, fmt.Errorf("store: list sessions: %w", err)
		}
		if len(out) == 0 || out[len(out)-1].ID != sum.ID {
			sum.ClassID, sum.StudentID, sum.StudentName = class.String, student.String, name.String
			if sum.CreatedAt, err = parseTime(created); err != nil {
				return nil, fmt.Errorf("store: list sessions: %w", err)
			}
			if sum.UpdatedAt, err = parseTime(updated); err != nil {
				return nil, fmt.Errorf("store: list sessions: %w", err)
			}
			sum.Runs = []RunBrief{}
			out = append(out, sum)
		}
		if runID.Valid {
			last := &out[len(out)-1]
			last.Runs = append(last.Runs, RunBrief{
				ID: runID.String, Provider: provider.String, Status: event.RunStatus(status.String), Iterations: int(iterations.Int64),
			})
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: list sessions: %w", corrupt(s.path, err))
	}
	return out, nil
}

// DeleteSession deletes the session and, by cascade, its runs, iterations,
// messages and events.
func (s *Store) DeleteSession(ctx context.Context, id string) error {
	res, err := s.w.ExecContext(ctx, `DELETE FROM sessions WHERE id = ?`, id)
	if err == nil {
		err = mustAffect(res)
	}
	if err != nil {
		return fmt.Errorf("store: delete session %q: %w", id, err)
	}
	return nil
}

// mustAffect turns "no row matched" into ErrNotFound.
func mustAffect(res sql.Result) error {
	n, err := res.RowsAffected()
	if err != nil {
		return err
	}
	if n == 0 {
		return ErrNotFound
	}
	return nil
}
