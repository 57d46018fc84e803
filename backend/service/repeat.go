package service

import (
	"context"
	"errors"
	"math"

	"github.com/loopforge/loopforge/backend/event"
)

// MaxRepeat bounds the rounds of a repeated comparison, each a whole
// comparison: a larger request is clamped to it (a smaller one to 1).
const MaxRepeat = 20

// RepeatRequest measures a comparison by repeating it (issue 25 item 6).
type RepeatRequest struct {
	CompareRequest
	// Repeat is how many rounds, clamped to 1..MaxRepeat.
	Repeat int
	// ReflectAB runs each round twice, reflection on and then off, and
	// summarises the two apart; else every round runs with RunRequest's
	// Reflect (or the configured default).
	ReflectAB bool
}

// Rounds is how many comparisons req starts: Repeat (clamped), twice with
// ReflectAB.
func (r RepeatRequest) Rounds() int { return r.repeat() * len(r.settings(false)) }

func (r RepeatRequest) repeat() int { return min(max(r.Repeat, 1), MaxRepeat) }

// settings are the reflection settings of each round, configured being
// the default's.
func (r RepeatRequest) settings(configured bool) []bool {
	if r.ReflectAB {
		return []bool{true, false}
	}
	if r.Reflect != nil {
		return []bool{*r.Reflect}
	}
	return []bool{configured}
}

// RepeatRound is a started round of a repeated comparison.
type RepeatRound struct {
	Round, Rounds int // 1-based; an A/B round counts once per setting
	Reflect       bool
	Info          CompareInfo
}

// RepeatObserver hears a repeated comparison's progress; nil funcs are
// skipped. Each is called from Repeat's goroutine, in order.
type RepeatObserver struct {
	Started  func(RepeatRound)
	RunEnded func(r RepeatRound, runID string)
	Ended    func(RepeatRound, []ComparisonRow)
}

// Repeat runs the comparison req.Repeat times (clamped; each time twice
// with ReflectAB), one round after the other so that rounds do not compete
// for the machine or a provider's rate limit. Each round is a comparison
// session of its own, in the history like any other. When ctx ends, the
// round's runs are cancelled and waited for and Repeat returns ErrCancelled;
// a run cancelled alone (CancelRun) or interrupted stops it the same way
// once its round has ended, since its sample would mean nothing. It returns
// every finished run's sample; the error of a round that could not start.
func (s *Service) Repeat(ctx context.Context, req RepeatRequest, obs RepeatObserver) ([]RepeatSample, error) {
	req.SessionID = "" // each round is a new comparison, never a follow-up
	settings := req.settings(s.conf().Reflect)
	round := RepeatRound{Rounds: req.Rounds()}
	var samples []RepeatSample
	for range req.repeat() {
		for _, reflect := range settings {
			if err := context.Cause(ctx); err != nil {
				return samples, cancelledBy(err)
			}
			c := req.CompareRequest
			c.Reflect = &reflect
			info, err := s.StartCompare(ctx, c)
			if err != nil {
				return samples, err
			}
			round.Round++
			round.Reflect, round.Info = reflect, info
			if obs.Started != nil {
				obs.Started(round)
			}
			stopped := s.awaitRound(ctx, round, obs.RunEnded)
			rows, err := s.Comparison(context.WithoutCancel(ctx), info.SessionID)
			if err != nil {
				return samples, err
			}
			for _, r := range rows {
				samples = append(samples, RepeatSample{Row: r, Reflect: reflect})
				if r.Status == event.RunStatusCancelled || r.Status == event.RunStatusInterrupted {
					stopped = true
				}
			}
			if obs.Ended != nil {
				obs.Ended(round, rows)
			}
			if stopped {
				return samples, ErrCancelled
			}
		}
	}
	return samples, nil
}

// awaitRound waits for every run of round to end, reporting each as it
// does; when ctx ends first it cancels them, still waits (a cancelled run
// ends at once), and reports true.
func (s *Service) awaitRound(ctx context.Context, round RepeatRound, ended func(RepeatRound, string)) bool {
	done := make(chan string, len(round.Info.Runs))
	for _, r := range round.Info.Runs {
		go func() {
			_, _ = s.Wait(context.WithoutCancel(ctx), r.RunID) // the run's end is in its row
			done <- r.RunID
		}()
	}
	cancelled := false
	for range round.Info.Runs {
		select {
		case id := <-done:
			if ended != nil {
				ended(round, id)
			}
			continue
		case <-ctx.Done():
		}
		if !cancelled {
			cancelled = true
			for _, r := range round.Info.Runs {
				_ = s.Cancel(r.RunID)
			}
		}
		id := <-done
		if ended != nil {
			ended(round, id)
		}
	}
	return cancelled
}

// cancelledBy is ErrCancelled unless the service is shutting down.
func cancelledBy(cause error) error {
	if errors.Is(cause, errShutdown) {
		return cause
	}
	return ErrCancelled
}

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
