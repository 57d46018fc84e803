package service

import (
	"context"

	"github.com/loopforge/loopforge/backend/event"
	"github.com/loopforge/loopforge/backend/export"
)

// ComparisonRow summarises one run of a session for the side-by-side table.
// Pointers are nil when the value does not exist (no success, no token, no
// execution).
type ComparisonRow struct {
	RunID               string          `json:"run_id"`
	Provider            string          `json:"provider"`
	Model               string          `json:"model"`
	Status              event.RunStatus `json:"status"`
	Iterations          int             `json:"iterations"`
	IterationsToSuccess *int            `json:"iterations_to_success"`
	WallMS              int64           `json:"wall_ms"`
	FirstTokenMS        *int64          `json:"first_token_ms"`
	InputTokens         int             `json:"input_tokens"`
	OutputTokens        int             `json:"output_tokens"`
	CostUSD             float64         `json:"cost_usd"` // 0 when the provider reports none
	LinesOfCode         int             `json:"lines_of_code"`
	FinalExitCode       *int            `json:"final_exit_code"`
	// TestsPassed of TestsTotal: the run's last judged program (0 of 0:
	// the comparison had no tests).
	TestsPassed int `json:"tests_passed,omitempty"`
	TestsTotal  int `json:"tests_total,omitempty"`
}

// Comparison returns one row per run of the session, in start order.
func (s *Service) Comparison(ctx context.Context, sessionID string) ([]ComparisonRow, error) {
	if err := s.checkSession(ctx, sessionID); err != nil {
		return nil, err
	}
	sess, err := s.store.GetSession(ctx, sessionID)
	if err != nil {
		return nil, err
	}
	rows := make([]ComparisonRow, 0, len(sess.Runs))
	for _, r := range sess.Runs {
		row := ComparisonRow{RunID: r.ID, Provider: r.Provider, Model: r.Model, Status: r.Status,
			Iterations: r.Iterations, WallMS: r.DurationMS, InputTokens: r.InputTokens, OutputTokens: r.OutputTokens,
			CostUSD: r.CostUSD, LinesOfCode: export.LinesOfCode(r.FinalCode), TestsPassed: r.TestsPassed, TestsTotal: r.TestsTotal}
		if r.Status == event.RunStatusSuccess {
			n := r.Iterations
			row.IterationsToSuccess = &n
		}
		its, err := s.store.ListIterations(ctx, r.ID)
		if err != nil {
			return nil, err
		}
		for i := len(its) - 1; i >= 0; i-- {
			if its[i].ExecStatus != "" {
				code := its[i].ExitCode
				row.FinalExitCode = &code
				break
			}
		}
		row.FirstTokenMS, err = s.firstToken(ctx, r.ID)
		if err != nil {
			return nil, err
		}
		rows = append(rows, row)
	}
	return rows, nil
}

// firstToken measures from run_started to the first streamed token. Both are
// among a run's first events, so one short page is enough.
func (s *Service) firstToken(ctx context.Context, runID string) (*int64, error) {
	evs, err := s.store.EventsAfter(ctx, runID, 0, 64)
	if err != nil {
		return nil, err
	}
	var start *event.Event
	for i := range evs {
		switch evs[i].Type {
		case event.RunStarted:
			start = &evs[i]
		case event.Token:
			if start == nil {
				return nil, nil
			}
			ms := evs[i].TS.Sub(start.TS).Milliseconds()
			return &ms, nil
		}
	}
	return nil, nil
}
