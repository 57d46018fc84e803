package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Class is one class of `loopforge class`. Limits and Assignment are the
// instructor's settings as JSON, which the store keeps without reading
// (Assignment "" = none).
type Class struct {
	ID         string
	Name       string
	CreatedAt  time.Time
	EndedAt    *time.Time // nil while the class is open
	Limits     string
	Assignment string
	Paused     bool
	Spotlight  string // a run id, "" = none
}

// ClassSummary is one class of the history list.
type ClassSummary struct {
	Class
	Students int
	Runs     int
}

// Student joined a class. TokenHash is the sha256 (hex) of its cookie's
// token; the token itself is never stored.
type Student struct {
	ID        string
	ClassID   string
	Name      string
	TokenHash string
	JoinedAt  time.Time
	RemovedAt *time.Time // nil while the student is in the class
}

// ClassSession is what the class views need of one of its sessions.
type ClassSession struct {
	ID        string
	Title     string
	StudentID string // "" for the instructor's own sessions in the class
}

// CreateClass inserts c, filling an empty ID and a zero CreatedAt.
func (s *Store) CreateClass(ctx context.Context, c *Class) error {
	if c.ID == "" {
		c.ID = "c_" + newID()
	}
	if c.CreatedAt.IsZero() {
		c.CreatedAt = now()
	}
	if c.Limits == "" {
		c.Limits = "{}"
	}
	_, err := s.w.ExecContext(ctx, `INSERT INTO classes
		(id, name, created_at, ended_at, limits_json, assignment_json, paused, spotlight)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
		c.ID, c.Name, fmtTime(c.CreatedAt), nullTime(c.EndedAt), c.Limits, c.Assignment, boolInt(c.Paused), c.Spotlight)
	if err != nil {
		return fmt.Errorf("store: create class %q: %w", c.ID, constraintErr(err))
	}
	return nil
}

// UpdateClass saves every field of c but its id and creation time.
func (s *Store) UpdateClass(ctx context.Context, c *Class) error {
	res, err := s.w.ExecContext(ctx, `UPDATE classes SET name = ?, ended_at = ?, limits_json = ?,
		assignment_json = ?, paused = ?, spotlight = ? WHERE id = ?`,
		c.Name, nullTime(c.EndedAt), c.Limits, c.Assignment, boolInt(c.Paused), c.Spotlight, c.ID)
	if err == nil {
		err = mustAffect(res)
	}
	if err != nil {
		return fmt.Errorf("store: update class %q: %w", c.ID, err)
	}
	return nil
}

const classColumns = `id, name, created_at, ended_at, limits_json, assignment_json, paused, spotlight`

func scanClass(row rowScanner, extra ...any) (*Class, error) {
	var (
		c              Class
		created        string
		ended          sql.NullString
		dest           = []any{&c.ID, &c.Name, &created, &ended, &c.Limits, &c.Assignment, &c.Paused, &c.Spotlight}
		err            error
		createdAt, end time.Time
	)
	if err = row.Scan(append(dest, extra...)...); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return nil, ErrNotFound
		}
		return nil, err
	}
	if createdAt, err = parseTime(created); err != nil {
		return nil, err
	}
	c.CreatedAt = createdAt
	if ended.Valid {
		if end, err = parseTime(ended.String); err != nil {
			return nil, err
		}
		c.EndedAt = &end
	}
	return &c, nil
}

// GetClass returns one class.
func (s *Store) GetClass(ctx context.Context, id string) (*Class, error) {
	c, err := scanClass(s.r.QueryRowContext(ctx, `SELECT `+classColumns+` FROM classes WHERE id = ?`, id))
	if err != nil {
		return nil, fmt.Errorf("store: get class %q: %w", id, err)
	}
	return c, nil
}

// ListClasses returns every class, most recent first, with how many
// students joined it and how many runs its sessions hold.
func (s *Store) ListClasses(ctx context.Context) ([]ClassSummary, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT `+classColumns+`,
		(SELECT count(*) FROM students st WHERE st.class_id = c.id),
		(SELECT count(*) FROM runs r JOIN sessions se ON se.id = r.session_id WHERE se.class_id = c.id)
		FROM classes c ORDER BY created_at DESC, id DESC`)
	if err != nil {
		return nil, fmt.Errorf("store: list classes: %w", err)
	}
	defer rows.Close()
	out := []ClassSummary{}
	for rows.Next() {
		var sum ClassSummary
		c, err := scanClass(rows, &sum.Students, &sum.Runs)
		if err != nil {
			return nil, fmt.Errorf("store: list classes: %w", err)
		}
		sum.Class = *c
		out = append(out, sum)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: list classes: %w", err)
	}
	return out, nil
}

// AddStudent inserts st, filling an empty ID and a zero JoinedAt. A token
// hash already stored wraps ErrDuplicate; an unknown class, ErrNotFound.
func (s *Store) AddStudent(ctx context.Context, st *Student) error {
	if st.ID == "" {
		st.ID = "s_" + newID()
	}
	if st.JoinedAt.IsZero() {
		st.JoinedAt = now()
	}
	_, err := s.w.ExecContext(ctx, `INSERT INTO students (id, class_id, name, token_hash, joined_at, removed_at)
		VALUES (?, ?, ?, ?, ?, ?)`, st.ID, st.ClassID, st.Name, st.TokenHash, fmtTime(st.JoinedAt), nullTime(st.RemovedAt))
	if err != nil {
		return fmt.Errorf("store: add student %q: %w", st.ID, constraintErr(err))
	}
	return nil
}

const studentColumns = `id, class_id, name, token_hash, joined_at, removed_at`

func scanStudent(row rowScanner) (*Student, error) {
	var (
		st              Student
		joined          string
		removed         sql.NullString
		err             error
		joinedAt, remAt time.Time
	)
	if err = row.Scan(&st.ID, &st.ClassID, &st.Name, &st.TokenHash, &joined, &removed); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return nil, ErrNotFound
		}
		return nil, err
	}
	if joinedAt, err = parseTime(joined); err != nil {
		return nil, err
	}
	st.JoinedAt = joinedAt
	if removed.Valid {
		if remAt, err = parseTime(removed.String); err != nil {
			return nil, err
		}
		st.RemovedAt = &remAt
	}
	return &st, nil
}

// ListStudents returns a class's students in the order they joined, the
// removed ones included.
func (s *Store) ListStudents(ctx context.Context, classID string) ([]Student, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT `+studentColumns+` FROM students
		WHERE class_id = ? ORDER BY joined_at, id`, classID)
	if err != nil {
		return nil, fmt.Errorf("store: list students of %q: %w", classID, err)
	}
	defer rows.Close()
	out := []Student{}
	for rows.Next() {
		st, err := scanStudent(rows)
		if err != nil {
			return nil, fmt.Errorf("store: list students of %q: %w", classID, err)
		}
		out = append(out, *st)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: list students of %q: %w", classID, err)
	}
	return out, nil
}

// StudentByTokenHash finds the student holding a token (removed or not).
func (s *Store) StudentByTokenHash(ctx context.Context, hash string) (*Student, error) {
	st, err := scanStudent(s.r.QueryRowContext(ctx, `SELECT `+studentColumns+` FROM students WHERE token_hash = ?`, hash))
	if err != nil {
		return nil, fmt.Errorf("store: student by token: %w", err)
	}
	return st, nil
}

// RemoveStudent marks a student removed at at (a second removal keeps the
// first time).
func (s *Store) RemoveStudent(ctx context.Context, id string, at time.Time) error {
	res, err := s.w.ExecContext(ctx, `UPDATE students SET removed_at = coalesce(removed_at, ?) WHERE id = ?`, fmtTime(at), id)
	if err == nil {
		err = mustAffect(res)
	}
	if err != nil {
		return fmt.Errorf("store: remove student %q: %w", id, err)
	}
	return nil
}

// ClassSessions returns a class's sessions, oldest first.
func (s *Store) ClassSessions(ctx context.Context, classID string) ([]ClassSession, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT id, title, coalesce(student_id, '') FROM sessions
		WHERE class_id = ? ORDER BY created_at, id`, classID)
	if err != nil {
		return nil, fmt.Errorf("store: sessions of class %q: %w", classID, err)
	}
	defer rows.Close()
	out := []ClassSession{}
	for rows.Next() {
		var cs ClassSession
		if err := rows.Scan(&cs.ID, &cs.Title, &cs.StudentID); err != nil {
			return nil, fmt.Errorf("store: sessions of class %q: %w", classID, err)
		}
		out = append(out, cs)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: sessions of class %q: %w", classID, err)
	}
	return out, nil
}

// ClassRuns returns the runs of a class's sessions in start order.
func (s *Store) ClassRuns(ctx context.Context, classID string) ([]Run, error) {
	runs, err := queryRuns(ctx, s.r, `WHERE session_id IN (SELECT id FROM sessions WHERE class_id = ?)
		ORDER BY started_at, id`, classID)
	if err != nil {
		return nil, fmt.Errorf("store: runs of class %q: %w", classID, err)
	}
	return runs, nil
}

// Owner is who a session belongs to: "" fields for a session outside any
// class (the instructor's own).
type Owner struct {
	SessionID string
	ClassID   string
	StudentID string
}

// SessionOwner returns who owns a session.
func (s *Store) SessionOwner(ctx context.Context, sessionID string) (Owner, error) {
	o := Owner{SessionID: sessionID}
	err := s.r.QueryRowContext(ctx, `SELECT coalesce(class_id, ''), coalesce(student_id, '') FROM sessions WHERE id = ?`,
		sessionID).Scan(&o.ClassID, &o.StudentID)
	if errors.Is(err, sql.ErrNoRows) {
		err = ErrNotFound
	}
	if err != nil {
		return Owner{}, fmt.Errorf("store: owner of session %q: %w", sessionID, err)
	}
	return o, nil
}

// RunOwner returns who owns a run (its session's owner).
func (s *Store) RunOwner(ctx context.Context, runID string) (Owner, error) {
	var o Owner
	err := s.r.QueryRowContext(ctx, `SELECT se.id, coalesce(se.class_id, ''), coalesce(se.student_id, '')
		FROM runs r JOIN sessions se ON se.id = r.session_id WHERE r.id = ?`, runID).Scan(&o.SessionID, &o.ClassID, &o.StudentID)
	if errors.Is(err, sql.ErrNoRows) {
		err = ErrNotFound
	}
	if err != nil {
		return Owner{}, fmt.Errorf("store: owner of run %q: %w", runID, err)
	}
	return o, nil
}

func nullString(s string) any {
	if s == "" {
		return nil
	}
	return s
}
