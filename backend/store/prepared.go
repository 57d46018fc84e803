package store

import (
	"context"
	"database/sql"
	"errors"
)

// writeStmts are the statements every run writes (its events and their
// iteration rows, its record at start and end, its thread), prepared once
// on the write connection. Parsing them on each use was a good part of a
// class server's CPU: the iteration upsert alone cost more to parse than a
// small batch of events to write. Tx.StmtContext uses a statement prepared
// on the transaction's connection as it is, and database/sql prepares it
// again by itself should that connection be replaced. Closing the
// transaction's handle (txExec) leaves the prepared statement as it is.
type writeStmts struct {
	insertEvent, upsertIteration      *sql.Stmt
	insertRun, updateRun, touchSess   *sql.Stmt
	appendMessage, appendMessageAtSeq *sql.Stmt
}

// prepare prepares them all on w, or none.
func (ws *writeStmts) prepare(ctx context.Context, w *sql.DB) error {
	for _, p := range []struct {
		stmt  **sql.Stmt
		query string
	}{
		{&ws.insertEvent, insertEvent},
		{&ws.upsertIteration, upsertIteration},
		{&ws.insertRun, insertRun},
		{&ws.updateRun, updateRun},
		{&ws.touchSess, touchSession},
		{&ws.appendMessage, appendMessage},
		{&ws.appendMessageAtSeq, appendMessageAtSeq},
	} {
		stmt, err := w.PrepareContext(ctx, p.query) //nolint:sqlclosecheck // kept open: writeStmts.close closes it
		if err != nil {
			_ = ws.close()
			return err
		}
		*p.stmt = stmt
	}
	return nil
}

// txExec runs stmt (one of these) in tx.
func txExec(ctx context.Context, tx *sql.Tx, stmt *sql.Stmt, args ...any) (sql.Result, error) {
	st := tx.StmtContext(ctx, stmt)
	defer st.Close()
	return st.ExecContext(ctx, args...)
}

// close closes those prepared.
func (ws *writeStmts) close() error {
	var errs []error
	for _, s := range []*sql.Stmt{ws.insertEvent, ws.upsertIteration, ws.insertRun, ws.updateRun, ws.touchSess, ws.appendMessage, ws.appendMessageAtSeq} {
		if s != nil {
			errs = append(errs, s.Close())
		}
	}
	return errors.Join(errs...)
}
