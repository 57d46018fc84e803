package service

import (
	"math"

	"github.com/loopforge/loopforge/backend/event"
)

// RepeatSample is one run of a repeated comparison: a comparison row and
// whether the run reflected.
type RepeatSample struct {
	Row     ComparisonRow
	Reflect bool
}

// Spread is a mean and its (population) standard deviation over the runs
// that have a value; N = 0 when none has.
type Spread struct {
	Mean float64 `json:"mean"`
	SD   float64 `json:"sd"`
	N    int     `json:"n"`
}

// RepeatGroup summarises the repeats of one provider with reflection on or
// off. PassAll is pass^N: every repeat succeeded (promptfoo#5947's
// "reliability" over pass@N's "some attempt did"); PassAt1 is the share of
// repeats that succeeded.
type RepeatGroup struct {
	Provider  string  `json:"provider"`
	Model     string  `json:"model"`
	Reflect   bool    `json:"reflect"`
	Runs      int     `json:"runs"`
	Successes int     `json:"successes"`
	PassAll   bool    `json:"pass_all"`
	PassAt1   float64 `json:"pass_at_1"`
	// IterationsToGreen: over the successful runs only.
	IterationsToGreen Spread `json:"iterations_to_green"`
	WallMS            Spread `json:"wall_ms"`
	CostUSD           Spread `json:"cost_usd"` // over the runs whose provider reported a cost
	// TestsPassed: the share of tests passed, over the runs that had tests.
	TestsPassed Spread `json:"tests_passed"`
}

// SummarizeRepeats groups samples by provider and reflection, in the order
// each group first appears.
func SummarizeRepeats(samples []RepeatSample) []RepeatGroup {
	type key struct {
		provider string
		reflect  bool
	}
	var order []key
	by := map[key][]ComparisonRow{}
	for _, s := range samples {
		k := key{s.Row.Provider, s.Reflect}
		if _, ok := by[k]; !ok {
			order = append(order, k)
		}
		by[k] = append(by[k], s.Row)
	}
	out := make([]RepeatGroup, 0, len(order))
	for _, k := range order {
		rows := by[k]
		g := RepeatGroup{Provider: k.provider, Model: rows[0].Model, Reflect: k.reflect, Runs: len(rows)}
		var iters, wall, cost, tests []float64
		for _, r := range rows {
			if r.Status == event.RunStatusSuccess {
				g.Successes++
				iters = append(iters, float64(r.Iterations))
			}
			wall = append(wall, float64(r.WallMS))
			if r.CostUSD > 0 {
				cost = append(cost, r.CostUSD)
			}
			if r.TestsTotal > 0 {
				tests = append(tests, float64(r.TestsPassed)/float64(r.TestsTotal))
			}
		}
		g.PassAll = g.Successes == g.Runs
		g.PassAt1 = float64(g.Successes) / float64(g.Runs)
		g.IterationsToGreen, g.WallMS, g.CostUSD, g.TestsPassed = spread(iters), spread(wall), spread(cost), spread(tests)
		out = append(out, g)
	}
	return out
}

func spread(xs []float64) Spread {
	if len(xs) == 0 {
		return Spread{}
	}
	var sum float64
	for _, x := range xs {
		sum += x
	}
	mean := sum / float64(len(xs))
	var sq float64
	for _, x := range xs {
		sq += (x - mean) * (x - mean)
	}
	return Spread{Mean: mean, SD: math.Sqrt(sq / float64(len(xs))), N: len(xs)}
}
