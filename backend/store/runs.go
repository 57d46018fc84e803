package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/loopforge/loopforge/backend/event"
)

// Run is one provider's loop within a session.
type Run struct {
	ID            string          `json:"id"`
	SessionID     string          `json:"session_id"`
	Provider      string          `json:"provider"`
	Model         string          `json:"model"`
	Prompt        string          `json:"prompt"` // what this run was asked (a follow-up differs from the session's prompt)
	Stdin         string          `json:"stdin"`  // what the generated code read on standard input ("" = nothing)
	Status        event.RunStatus `json:"status"`
	MaxIterations int             `json:"max_iterations"`
	Reflect       bool            `json:"reflect"`
	Language      string          `json:"language"`
	Iterations    int             `json:"iterations"`
	FinalCode     string          `json:"final_code"`
	Error         string          `json:"error"`
	// ErrorCode and ErrorParams name Error for the frontend, which shows it
	// in the user's language (service.Code; "" for older runs).
	ErrorCode    string            `json:"error_code,omitempty"`
	ErrorParams  map[string]string `json:"error_params,omitempty"`
	InputTokens  int               `json:"input_tokens"`
	OutputTokens int               `json:"output_tokens"`
	CostUSD      float64           `json:"cost_usd"`
	StartedAt    time.Time         `json:"started_at"`
	FinishedAt   *time.Time        `json:"finished_at"` // nil while running
	DurationMS   int64             `json:"duration_ms"`
	// Tests is the run's test suite as YAML (backend/judge; "" = none), and
	// TestsPassed of TestsTotal how its last judged program fared.
	Tests       string `json:"tests,omitempty"`
	TestsPassed int    `json:"tests_passed,omitempty"`
	TestsTotal  int    `json:"tests_total,omitempty"`
	// Owner is the process executing the run (an id from backend/owner);
	// only runs whose owner is gone are recovered as interrupted.
	Owner string `json:"-"`
}

// querier is what *sql.DB and *sql.Tx share, so read helpers work in and
// out of a transaction.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// CreateRun inserts r under its session and marks the session updated. An
// empty ID is filled with a new id, an empty Status with event.RunStatusRunning (so a
// crash before the first UpdateRun is still found by MarkInterrupted), and a
// zero StartedAt with the current time; filled values are written back.
func (s *Store) CreateRun(ctx context.Context, r *Run) error {
	if r.ID == "" {
		r.ID = newID()
	}
	if r.Status == "" {
		r.Status = event.RunStatusRunning
	}
	if r.StartedAt.IsZero() {
		r.StartedAt = now()
	}
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		if _, err := txExec(ctx, tx, s.ws.insertRun,
			r.ID, r.SessionID, r.Provider, r.Model, r.Status, r.MaxIterations, boolInt(r.Reflect), r.Language,
			r.Iterations, r.FinalCode, r.Error, r.InputTokens, r.OutputTokens, r.CostUSD,
			fmtTime(r.StartedAt), nullTime(r.FinishedAt), r.DurationMS, r.Prompt, r.Owner, r.Stdin,
			r.ErrorCode, paramsJSON(r.ErrorParams), r.Tests, r.TestsPassed, r.TestsTotal); err != nil {
			err = constraintErr(err)
			if errors.Is(err, ErrNotFound) {
				return fmt.Errorf("session %q: %w", r.SessionID, err)
			}
			return err
		}
		return s.touchSession(ctx, tx, r.SessionID)
	})
	if err != nil {
		return fmt.Errorf("store: create run %q: %w", r.ID, err)
	}
	return nil
}

const insertRun = `INSERT INTO runs (
		id, session_id, provider, model, status, max_iterations, reflect, language,
		iterations, final_code, error, input_tokens, output_tokens, cost_usd,
		started_at, finished_at, duration_ms, prompt, owner, stdin, error_code, error_params,
		tests, tests_passed, tests_total)
	VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`

// UpdateRun saves the progress and outcome fields of r (status, iterations,
// final code, error, tokens, cost, finished_at, duration, tests passed and
// total, and the model,
// which is the one that answered when the provider fell back to another)
// and marks its session updated, so the history list shows recent activity
// first. The fields fixed at creation (session, provider, settings, start
// time) are left alone.
func (s *Store) UpdateRun(ctx context.Context, r *Run) error {
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		var sessionID string
		update := tx.StmtContext(ctx, s.ws.updateRun)
		defer update.Close()
		err := update.QueryRowContext(ctx,
			r.Status, r.Iterations, r.FinalCode, r.Error, r.ErrorCode, paramsJSON(r.ErrorParams),
			r.InputTokens, r.OutputTokens, r.CostUSD,
			nullTime(r.FinishedAt), r.DurationMS, r.Model, r.TestsPassed, r.TestsTotal, r.ID).Scan(&sessionID)
		if errors.Is(err, sql.ErrNoRows) {
			return ErrNotFound
		}
		if err != nil {
			return err
		}
		return s.touchSession(ctx, tx, sessionID)
	})
	if err != nil {
		return fmt.Errorf("store: update run %q: %w", r.ID, err)
	}
	return nil
}

const updateRun = `UPDATE runs SET
		status = ?, iterations = ?, final_code = ?, error = ?, error_code = ?, error_params = ?,
		input_tokens = ?, output_tokens = ?, cost_usd = ?,
		finished_at = ?, duration_ms = ?, model = ?, tests_passed = ?, tests_total = ?
	WHERE id = ?
	RETURNING session_id`

// touchSession moves the session's updated_at to now, never backwards (a
// caller may have created the session with a later time).
func (s *Store) touchSession(ctx context.Context, tx *sql.Tx, id string) error {
	_, err := txExec(ctx, tx, s.ws.touchSess, fmtTime(now()), id)
	return err
}

const touchSession = `UPDATE sessions SET updated_at = max(updated_at, ?) WHERE id = ?`

// GetRun returns one run.
func (s *Store) GetRun(ctx context.Context, id string) (*Run, error) {
	runs, err := queryRuns(ctx, s.r, `WHERE id = ?`, id)
	if err == nil && len(runs) == 0 {
		err = ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("store: get run %q: %w", id, err)
	}
	return &runs[0], nil
}

// RunningOwners lists the owners of the runs still marked event.RunStatusRunning, each
// once ("" for runs recorded before owners existed). The caller checks which
// are gone and passes those to MarkInterrupted.
func (s *Store) RunningOwners(ctx context.Context) ([]string, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT DISTINCT owner FROM runs WHERE status = ?`, event.RunStatusRunning)
	if err != nil {
		return nil, fmt.Errorf("store: running owners: %w", err)
	}
	defer rows.Close()
	var owners []string
	for rows.Next() {
		var o string
		if err := rows.Scan(&o); err != nil {
			return nil, fmt.Errorf("store: running owners: %w", err)
		}
		owners = append(owners, o)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: running owners: %w", err)
	}
	return owners, nil
}

// MarkInterrupted marks the event.RunStatusRunning runs of the given owners — processes
// the caller found gone — event.RunStatusInterrupted, finished now, each with a closing
// run_finished event so a replay or a follower sees the run end. Runs of
// other owners are never touched: another live process is executing them.
// It returns how many runs it marked.
//
// ends holds, by run ID, the ends that processes recorded outside the history
// because the history could not be written then (a full disk): such a run
// ends as recorded, with its reason, instead of "the process was stopped".
func (s *Store) MarkInterrupted(ctx context.Context, goneOwners []string, ends map[string]Ending) (int, error) {
	n, err := s.endOpenRuns(ctx, "owner", goneOwners, ends)
	if err != nil {
		return 0, fmt.Errorf("store: mark interrupted runs: %w", err)
	}
	return n, nil
}

// StoreEnds ends, as recorded, the runs of ends still recorded as running:
// the process that ran them stores what it could not store when they ended
// (a full disk), once it can. It returns how many runs it ended.
func (s *Store) StoreEnds(ctx context.Context, ends map[string]Ending) (int, error) {
	ids := make([]string, 0, len(ends))
	for id := range ends {
		ids = append(ids, id)
	}
	n, err := s.endOpenRuns(ctx, "id", ids, ends)
	if err != nil {
		return 0, fmt.Errorf("store: store recorded run ends: %w", err)
	}
	return n, nil
}

// endOpenRuns ends, in one transaction, the runs still recorded as running
// whose column ("owner" or "id") is one of keys: as ends records them, else
// as interrupted. It returns how many it ended.
func (s *Store) endOpenRuns(ctx context.Context, column string, keys []string, ends map[string]Ending) (int, error) {
	n := 0
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		for _, key := range keys {
			runs, err := openRuns(ctx, tx, column, key)
			if err != nil {
				return err
			}
			if err := interrupt(ctx, tx, runs, ends); err != nil {
				return err
			}
			n += len(runs)
		}
		return nil
	})
	return n, err
}

// openRun is what interrupt needs of a run left running.
type openRun struct {
	id                  string
	iterations, in, out int
	code                string
	seq                 int64
}

// openRuns lists the runs still running whose column (owner or id) is value.
func openRuns(ctx context.Context, tx *sql.Tx, column, value string) ([]openRun, error) {
	rows, err := tx.QueryContext(ctx, `SELECT r.id, r.iterations, r.input_tokens, r.output_tokens, r.final_code,
		coalesce((SELECT max(seq) FROM events e WHERE e.run_id = r.id), 0)
		FROM runs r WHERE r.status = ? AND r.`+column+` = ?`, event.RunStatusRunning, value)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var runs []openRun
	for rows.Next() {
		var o openRun
		if err := rows.Scan(&o.id, &o.iterations, &o.in, &o.out, &o.code, &o.seq); err != nil {
			return nil, err
		}
		runs = append(runs, o)
	}
	return runs, rows.Err()
}

// Ending is how a run ended when the history could not store its end at
// the time: the run_finished event its process published (its seq, so that a
// client that saw it never sees that seq reused) and the reason.
type Ending struct {
	Seq         int64             `json:"seq"`
	Status      event.RunStatus   `json:"status"`
	Error       string            `json:"error"`
	ErrorCode   string            `json:"error_code,omitempty"`
	ErrorParams map[string]string `json:"error_params,omitempty"`
}

func interrupt(ctx context.Context, tx *sql.Tx, runs []openRun, ends map[string]Ending) error {
	at := now()
	for _, o := range runs {
		end, recorded := ends[o.id]
		if !recorded || end.Status == "" {
			end = Ending{Status: event.RunStatusInterrupted, Error: interruptedMsg}
		}
		if _, err := tx.ExecContext(ctx, `UPDATE runs SET status = ?, finished_at = coalesce(finished_at, ?),
			error = CASE WHEN ? OR error = '' THEN ? ELSE error END,
			error_code = CASE WHEN ? THEN ? ELSE error_code END,
			error_params = CASE WHEN ? THEN ? ELSE error_params END WHERE id = ?`,
			end.Status, fmtTime(at), recorded, end.Error, recorded, end.ErrorCode, recorded, paramsJSON(end.ErrorParams),
			o.id); err != nil {
			return err
		}
		e := event.New(event.RunFinished, event.RunFinishedPayload{Status: end.Status, Iterations: o.iterations,
			FinalCode: o.code, Error: end.Error, ErrorCode: end.ErrorCode, ErrorParams: end.ErrorParams,
			InputTokens: o.in, OutputTokens: o.out})
		e.RunID, e.Seq, e.TS = o.id, endSeq(o.seq, end, recorded), at
		if _, err := tx.ExecContext(ctx, insertEvent, eventArgs(e)...); err != nil {
			return err
		}
	}
	return nil
}

// SeqGap is how far the seqs a process has shown may run ahead of the last
// one the history holds: the process publishes the model's tokens before it
// writes them, and backend/journal never publishes a seq more than SeqGap
// past the last one stored. A run recovered after its process died (kill -9)
// therefore has its end numbered SeqGap past the last stored seq: a client
// that saw a token the history never got, and reconnects from its seq, still
// gets the run's end. Seqs are compared, never counted, so the hole is
// harmless. It is above journal.DefaultMaxUnsaved, so the gap holds nothing
// back in ordinary use.
const SeqGap = 4096

// endSeq is the seq of the run_finished event that recovery stores for a
// run whose last stored seq is last: the one its process published when it
// recorded its end (every seq it showed is below it), else past the gap.
func endSeq(last int64, end Ending, recorded bool) int64 {
	if recorded && end.Seq > last {
		return end.Seq
	}
	return last + SeqGap + 1
}

// interruptedMsg explains an interrupted run.
const interruptedMsg = "the loopforge process running this was stopped before the run ended"

const runColumns = `id, session_id, provider, model, status, max_iterations, reflect, language,
	iterations, final_code, error, input_tokens, output_tokens, cost_usd,
	started_at, finished_at, duration_ms, prompt, stdin, error_code, error_params,
	tests, tests_passed, tests_total`

func queryRuns(ctx context.Context, q querier, where string, args ...any) ([]Run, error) {
	rows, err := q.QueryContext(ctx, `SELECT `+runColumns+` FROM runs `+where, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var runs []Run
	for rows.Next() {
		var (
			r        Run
			started  string
			finished sql.NullString
			params   string
		)
		if err := rows.Scan(&r.ID, &r.SessionID, &r.Provider, &r.Model, &r.Status, &r.MaxIterations,
			&r.Reflect, &r.Language, &r.Iterations, &r.FinalCode, &r.Error, &r.InputTokens,
			&r.OutputTokens, &r.CostUSD, &started, &finished, &r.DurationMS, &r.Prompt, &r.Stdin,
			&r.ErrorCode, &params, &r.Tests, &r.TestsPassed, &r.TestsTotal); err != nil {
			return nil, err
		}
		if params != "" && params != "{}" {
			if err := json.Unmarshal([]byte(params), &r.ErrorParams); err != nil {
				return nil, fmt.Errorf("run %q: error_params: %w", r.ID, err)
			}
		}
		if r.StartedAt, err = parseTime(started); err != nil {
			return nil, err
		}
		if finished.Valid {
			t, err := parseTime(finished.String)
			if err != nil {
				return nil, err
			}
			r.FinishedAt = &t
		}
		runs = append(runs, r)
	}
	return runs, rows.Err()
}

// mustExist runs an EXISTS query and turns false into ErrNotFound. List
// methods use it only when their result is empty, to tell "nothing yet" from
// "no such parent" without a second query in the common case.
func mustExist(ctx context.Context, q querier, query, id string) error {
	rows, err := q.QueryContext(ctx, query, id)
	if err != nil {
		return err
	}
	defer rows.Close()
	var ok bool
	if rows.Next() {
		if err := rows.Scan(&ok); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if !ok {
		return ErrNotFound
	}
	return nil
}

func nullTime(t *time.Time) any {
	if t == nil {
		return nil
	}
	return fmtTime(*t)
}

// paramsJSON is an error's parameters as the error_params column holds
// them: a JSON object of strings, "{}" when there are none.
func paramsJSON(p map[string]string) string {
	if len(p) == 0 {
		return "{}"
	}
	b, _ := json.Marshal(p) // a map of strings always encodes
	return string(b)
}
