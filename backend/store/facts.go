package store

import (
	"context"
	"fmt"

	"github.com/loopforge/loopforge/backend/event"
)

// RunFact is what statistics need of one finished run.
type RunFact struct {
	Provider     string
	Model        string
	Status       event.RunStatus
	Iterations   int
	DurationMS   int64
	InputTokens  int
	OutputTokens int
	CostUSD      float64
	ExecTimeouts int // iterations whose generated code hit the time limit
	// TestsPassed of TestsTotal: the run's last judged program (0 of 0: the
	// run had no tests).
	TestsPassed, TestsTotal int
}

// RunFacts lists every run that has ended (running ones are left out), oldest
// first. Aggregation happens in Go: medians are awkward in SQL and the
// history of a classroom machine is small.
func (s *Store) RunFacts(ctx context.Context) ([]RunFact, error) {
	rows, err := s.r.QueryContext(ctx, `
		SELECT r.provider, r.model, r.status, r.iterations, r.duration_ms, r.input_tokens, r.output_tokens, r.cost_usd,
		       r.tests_passed, r.tests_total,
		       (SELECT count(*) FROM iterations i WHERE i.run_id = r.id AND i.exec_status = 'timeout')
		FROM runs r
		WHERE r.status <> ?
		ORDER BY r.started_at, r.id`, event.RunStatusRunning)
	if err != nil {
		return nil, fmt.Errorf("store: run facts: %w", err)
	}
	defer rows.Close()
	var out []RunFact
	for rows.Next() {
		var f RunFact
		if err := rows.Scan(&f.Provider, &f.Model, &f.Status, &f.Iterations, &f.DurationMS,
			&f.InputTokens, &f.OutputTokens, &f.CostUSD, &f.TestsPassed, &f.TestsTotal, &f.ExecTimeouts); err != nil {
			return nil, fmt.Errorf("store: run facts: %w", err)
		}
		out = append(out, f)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: run facts: %w", err)
	}
	return out, nil
}
