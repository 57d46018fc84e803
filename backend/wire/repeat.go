package wire

import (
	"github.com/loopforge/loopforge/backend/runreq"
	"github.com/loopforge/loopforge/backend/service"
)

// RepeatRequest measures a comparison by repeating it: Repeat rounds
// (clamped to 1..service.MaxRepeat), each a comparison of Providers with
// the other fields; ReflectAB runs each round with reflection on and off
// (else every round uses reflect, or the configured default).
type RepeatRequest struct {
	runreq.Request `tstype:",extends"`
	Providers      []string `json:"providers"`
	Repeat         int      `json:"repeat"`
	ReflectAB      bool     `json:"reflect_ab,omitempty"`
}

// ToService converts the request; the service checks it.
func (r RepeatRequest) ToService() service.RepeatRequest {
	return service.RepeatRequest{CompareRequest: service.CompareRequest{RunRequest: r.Request, Providers: r.Providers},
		Repeat: r.Repeat, ReflectAB: r.ReflectAB}
}

// RepeatID names a repeat.
type RepeatID struct {
	ID string `json:"id" path:"id"`
}

// RepeatRef names a repeat; After (-1: none) makes the Repeat operation
// wait until the status's version is past it (or about 25 s pass).
type RepeatRef struct {
	ID    string `json:"id" path:"id"`
	After int    `json:"after" query:"after"`
}

// Spread is a mean and its standard deviation over n runs (n 0: none had
// a value).
type Spread struct {
	Mean float64 `json:"mean"`
	SD   float64 `json:"sd"`
	N    int     `json:"n"`
}

// RepeatGroup summarises one provider's repeats with reflection on or
// off: pass_all is pass^N (every repeat succeeded), pass_at_1 the share
// that did; iterations to green over the successful runs, cost over the
// runs whose provider reported one, tests passed as a share.
type RepeatGroup struct {
	Provider          string  `json:"provider"`
	Model             string  `json:"model"`
	Reflect           bool    `json:"reflect"`
	Runs              int     `json:"runs"`
	Successes         int     `json:"successes"`
	PassAll           bool    `json:"pass_all"`
	PassAt1           float64 `json:"pass_at_1"`
	IterationsToGreen Spread  `json:"iterations_to_green"`
	WallMS            Spread  `json:"wall_ms"`
	CostUSD           Spread  `json:"cost_usd"`
	TestsPassed       Spread  `json:"tests_passed"`
}

// RepeatStatus is a repeat's progress and its summary so far.
type RepeatStatus struct {
	ID      string `json:"id"`
	Version int    `json:"version"`
	// State: running, done, cancelled, or failed (error says why).
	State     string   `json:"state"`
	Repeat    int      `json:"repeat"`
	ReflectAB bool     `json:"reflect_ab"`
	Providers []string `json:"providers"`
	Prompt    string   `json:"prompt"`
	// Round of Rounds is the round running (or the last one); reflect its
	// setting, runs its runs.
	Round     int       `json:"round"`
	Rounds    int       `json:"rounds"`
	Reflect   bool      `json:"reflect"`
	Runs      []RunInfo `json:"runs"`
	RunsDone  int       `json:"runs_done"`
	RunsTotal int       `json:"runs_total"`
	// Sessions are the rounds' comparison sessions (in the history).
	Sessions []string      `json:"sessions"`
	Groups   []RepeatGroup `json:"groups"`
	Error    *ErrorBody    `json:"error,omitempty"`
}

// FromRepeatStatus converts a repeat's status.
func FromRepeatStatus(s service.RepeatStatus) RepeatStatus {
	out := RepeatStatus{ID: s.ID, Version: s.Version, State: string(s.State), Repeat: s.Repeat, ReflectAB: s.ReflectAB,
		Providers: append([]string{}, s.Providers...), Prompt: s.Prompt, Round: s.Round, Rounds: s.Rounds, Reflect: s.Reflect,
		Runs: each(s.Runs, FromRunInfo), RunsDone: s.RunsDone, RunsTotal: s.RunsTotal,
		Sessions: append([]string{}, s.Sessions...), Groups: each(s.Groups, fromRepeatGroup)}
	if s.Err != nil {
		e := ErrorOf(s.Err)
		out.Error = &e
	}
	return out
}

func fromRepeatGroup(g service.RepeatGroup) RepeatGroup {
	sp := func(s service.Spread) Spread { return Spread{Mean: s.Mean, SD: s.SD, N: s.N} }
	return RepeatGroup{Provider: g.Provider, Model: g.Model, Reflect: g.Reflect, Runs: g.Runs, Successes: g.Successes,
		PassAll: g.PassAll, PassAt1: g.PassAt1, IterationsToGreen: sp(g.IterationsToGreen), WallMS: sp(g.WallMS),
		CostUSD: sp(g.CostUSD), TestsPassed: sp(g.TestsPassed)}
}
