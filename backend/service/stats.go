package service

import (
	"context"
	"sort"

	"github.com/loopforge/loopforge/backend/event"
	"github.com/loopforge/loopforge/backend/store"
)

// StatsGroup aggregates finished runs of one provider and model (or all of
// them, for the total).
type StatsGroup struct {
	Provider     string  `json:"provider,omitempty"`
	Model        string  `json:"model,omitempty"`
	Runs         int     `json:"runs"`
	Successes    int     `json:"successes"`
	Failures     int     `json:"failures"` // limit_reached, error, interrupted
	Cancelled    int     `json:"cancelled"`
	ExecTimeouts int     `json:"exec_timeouts"` // executions of generated code that hit the time limit
	SuccessRate  float64 `json:"success_rate"`  // successes / runs
	AvgMS        int64   `json:"avg_duration_ms"`
	MedianMS     int64   `json:"median_duration_ms"`
	// AvgIterationsToSuccess averages the iterations of successful runs (0
	// when none succeeded).
	AvgIterationsToSuccess float64 `json:"avg_iterations_to_success"`
	InputTokens            int     `json:"input_tokens"`
	OutputTokens           int     `json:"output_tokens"`
	CostUSD                float64 `json:"cost_usd"`
	// TestedRuns had tests; TestsPassed of TestsTotal add up their last
	// judged programs' tests.
	TestedRuns  int `json:"tested_runs,omitempty"`
	TestsPassed int `json:"tests_passed,omitempty"`
	TestsTotal  int `json:"tests_total,omitempty"`
}

// Stats is the history summarised: a total and one group per provider+model.
type Stats struct {
	Total  StatsGroup   `json:"total"`
	Groups []StatsGroup `json:"groups"`
}

// Stats aggregates every finished run in the history.
func (s *Service) Stats(ctx context.Context) (Stats, error) {
	facts, err := s.store.RunFacts(ctx)
	if err != nil {
		return Stats{}, err
	}
	return aggregate(facts), nil
}

func aggregate(facts []store.RunFact) Stats {
	type key struct{ provider, model string }
	byKey := map[key][]store.RunFact{}
	for _, f := range facts {
		k := key{f.Provider, f.Model}
		byKey[k] = append(byKey[k], f)
	}
	st := Stats{Total: group(facts), Groups: []StatsGroup{}}
	for k, fs := range byKey {
		g := group(fs)
		g.Provider, g.Model = k.provider, k.model
		st.Groups = append(st.Groups, g)
	}
	sort.Slice(st.Groups, func(i, j int) bool {
		a, b := st.Groups[i], st.Groups[j]
		if a.Provider != b.Provider {
			return a.Provider < b.Provider
		}
		return a.Model < b.Model
	})
	return st
}

func group(facts []store.RunFact) StatsGroup {
	var g StatsGroup
	var total, successIters int64
	durations := make([]int64, 0, len(facts))
	for _, f := range facts {
		g.Runs++
		switch f.Status {
		case event.RunStatusSuccess:
			g.Successes++
			successIters += int64(f.Iterations)
		case event.RunStatusCancelled:
			g.Cancelled++
		default:
			g.Failures++
		}
		g.ExecTimeouts += f.ExecTimeouts
		if f.TestsTotal > 0 {
			g.TestedRuns++
			g.TestsPassed += f.TestsPassed
			g.TestsTotal += f.TestsTotal
		}
		g.InputTokens += f.InputTokens
		g.OutputTokens += f.OutputTokens
		g.CostUSD += f.CostUSD
		total += f.DurationMS
		durations = append(durations, f.DurationMS)
	}
	if g.Runs == 0 {
		return g
	}
	g.SuccessRate = float64(g.Successes) / float64(g.Runs)
	g.AvgMS = total / int64(g.Runs)
	sort.Slice(durations, func(i, j int) bool { return durations[i] < durations[j] })
	if n := len(durations); n%2 == 1 {
		g.MedianMS = durations[n/2]
	} else {
		g.MedianMS = (durations[n/2-1] + durations[n/2]) / 2
	}
	if g.Successes > 0 {
		g.AvgIterationsToSuccess = float64(successIters) / float64(g.Successes)
	}
	return g
}
