package service

import (
	"context"
	"iter"
	"strconv"
	"time"

	"github.com/loopforge/loopforge/backend/event"
	"github.com/loopforge/loopforge/backend/loop"
	"github.com/loopforge/loopforge/backend/provider"
)

// Token budgets that hold (README "Teaching a class"). The class keeps one
// ledger under classroom.mu: what each student's finished runs spent in
// the budget's window, what each running run has used, and what it holds.
//
//   - A run holds its estimate (TokensPerIteration × its iterations) from
//     the moment it is admitted, under the same lock that checks the
//     budget, so runs started together cannot pass a budget together: the
//     last ones find it held and are lowered to the iterations that fit,
//     moved to the class's budget profile, or refused.
//   - Every call is metered as it streams (meteredModel): its prompt before
//     it is sent, its answer as each piece arrives (a token per 4 bytes,
//     the usual rough measure), then settled to the usage the provider
//     reports. A run that has used its hold takes more from what is free;
//     when nothing is, it stops there, with the budget as its reason.
//   - When a run ends, its hold is released and its real usage kept.
//
// The budgets can therefore be passed by at most the piece of an answer
// that crossed them (or a provider's count that exceeds the estimate of
// one call), never by runs racing each other.

// DefaultTokensPerIteration is what a run holds per iteration when the
// class does not say (ClassLimits.TokensPerIteration 0): a generation and
// a reflection of some 2–3k tokens each (see DefaultClassLimits).
const DefaultTokensPerIteration = 5000

// Budget windows (ClassLimits.BudgetWindow): what the token and cost
// budgets count.
const (
	WindowClass   = "class"   // everything the class spent ("" too)
	WindowSession = "session" // since this `loopforge class` opened (or resumed) it
	WindowDay     = "day"     // since midnight, this machine's time
	WindowWeek    = "week"    // since Monday midnight
)

// windowStart is when the window holding now began (zero: everything).
func windowStart(window string, now, opened time.Time) time.Time {
	switch window {
	case WindowSession:
		return opened
	case WindowDay, WindowWeek:
		y, m, d := now.Date()
		midnight := time.Date(y, m, d, 0, 0, 0, 0, now.Location())
		if window == WindowDay {
			return midnight
		}
		return midnight.AddDate(0, 0, -((int(now.Weekday()) + 6) % 7))
	}
	return time.Time{}
}

func validWindow(w string) bool {
	switch w {
	case "", WindowClass, WindowSession, WindowDay, WindowWeek:
		return true
	}
	return false
}

func (l ClassLimits) perIteration() int {
	if l.TokensPerIteration > 0 {
		return l.TokensPerIteration
	}
	return DefaultTokensPerIteration
}

// spend is one finished run's spending, counted in the window of its start.
type spend struct {
	at     time.Time
	tokens int
	cost   float64
	// free: a run on the class's budget profile, not held to the budgets.
	free bool
}

// since is the start of the budgets' window now; cr.mu is held.
func (cr *classroom) since(now time.Time) time.Time {
	return windowStart(cr.limits.BudgetWindow, now, cr.opened)
}

// committed is what m's budget has spent or set aside in the window that
// began at since: finished runs, running runs' use or hold (the larger),
// and admitted runs not yet started; cr.mu is held.
func (m *member) committed(since time.Time) (tokens int, cost float64) {
	tokens, cost = m.spentSince(since)
	for _, r := range m.active {
		if !r.free {
			tokens += max(r.hold, r.tokens)
			cost += r.cost
		}
	}
	return tokens + m.pendingTokens, cost
}

// spentSince is what m's finished runs spent in the window that began at
// since, as the budgets count it. It is asked at every piece of every
// streaming answer, so the sum is kept until a run ends or the window
// moves; cr.mu is held.
func (m *member) spentSince(since time.Time) (int, float64) {
	c := &m.sums
	if c.n != len(m.spent) || !c.since.Equal(since) {
		*c = spentSums{since: since, n: len(m.spent)}
		for _, s := range m.spent {
			if !s.free && !s.at.Before(since) {
				c.tokens += s.tokens
				c.cost += s.cost
			}
		}
	}
	return c.tokens, c.cost
}

// spentSums caches member.spentSince.
type spentSums struct {
	since  time.Time
	n      int // len(member.spent) when summed
	tokens int
	cost   float64
}

// committed is the class's; cr.mu is held.
func (cr *classroom) committed(since time.Time) int {
	n := 0
	for _, m := range cr.members {
		t, _ := m.committed(since)
		n += t
	}
	return n
}

// tokensFree is how many tokens m may still set aside: the smaller of
// what its budget and the class's have left (-1: no token budget); cr.mu
// is held.
func (cr *classroom) tokensFree(m *member, now time.Time) int {
	l, since := cr.limits, cr.since(now)
	free := -1
	if l.TokensPerStudent > 0 {
		t, _ := m.committed(since)
		free = max(l.TokensPerStudent-t, 0)
	}
	if l.TokensForClass > 0 {
		c := max(l.TokensForClass-cr.committed(since), 0)
		if free < 0 || c < free {
			free = c
		}
	}
	return free
}

// reserve sets aside the tokens of n runs of req for m, lowering the
// runs' iterations to what the budgets have left; a *QuotaError when not
// even one iteration each fits, or the cost budget is spent. It returns
// what each run holds. cr.mu is held.
func (cr *classroom) reserve(m *member, req *RunRequest, n int, now time.Time) (int, error) {
	l := cr.limits
	if l.CostPerStudentUSD > 0 {
		if _, cost := m.committed(cr.since(now)); cost >= l.CostPerStudentUSD {
			return 0, costUsedUp(l)
		}
	}
	free := cr.tokensFree(m, now)
	if free < 0 {
		return 0, nil
	}
	per := l.perIteration()
	fits := free / (n * per)
	if fits < 1 {
		return 0, cr.budgetSpent(m, now, n*per)
	}
	req.MaxIterations = min(req.MaxIterations, fits)
	hold := per * req.MaxIterations
	m.pendingTokens += n * hold
	return hold, nil
}

// budgetSpent is the budget that leaves m no room for need tokens: the
// student's own, else the class's; cr.mu is held.
func (cr *classroom) budgetSpent(m *member, now time.Time, need int) *QuotaError {
	l := cr.limits
	if l.TokensPerStudent > 0 {
		if t, _ := m.committed(cr.since(now)); l.TokensPerStudent-t < need {
			return tokensUsedUp(l)
		}
	}
	return classTokensUsedUp(l)
}

// overBudget is the budget a running run of m has passed; cr.mu is held.
func (cr *classroom) overBudget(m *member, now time.Time) error {
	l, since := cr.limits, cr.since(now)
	t, cost := m.committed(since)
	switch {
	case l.TokensPerStudent > 0 && t > l.TokensPerStudent:
		return tokensUsedUp(l)
	case l.TokensForClass > 0 && cr.committed(since) > l.TokensForClass:
		return classTokensUsedUp(l)
	case l.CostPerStudentUSD > 0 && cost > l.CostPerStudentUSD:
		return costUsedUp(l)
	}
	return nil
}

func costUsedUp(l ClassLimits) *QuotaError {
	return &QuotaError{Limit: "cost_per_student_usd", Msg: "Your cost budget ($" + strconv.FormatFloat(l.CostPerStudentUSD, 'f', 2, 64) + ") is used up",
		Code: CodeQuotaCost, Params: map[string]string{"limit": strconv.FormatFloat(l.CostPerStudentUSD, 'f', 2, 64)}}
}

// meter counts one running run's tokens against the budgets.
type meter struct {
	cr  *classroom
	m   *member
	run string
	// stop ends the run with the budget as its cause.
	stop func(error)
}

// charge adds tokens (negative: an estimate settled lower) and cost to
// the run; the budget it passed, if any. The tokens are counted either
// way: they were spent.
func (mt *meter) charge(tokens int, cost float64) error {
	cr := mt.cr
	cr.mu.Lock()
	r := mt.m.active[mt.run]
	if r == nil {
		cr.mu.Unlock()
		return nil
	}
	r.tokens += tokens
	r.cost += cost
	var over error
	if tokens > 0 || cost > 0 {
		over = cr.overBudget(mt.m, time.Now())
	}
	cr.mu.Unlock()
	// The wall hears of the usage at the run's next step, not at every
	// piece of an answer (40 students streaming would flood its socket).
	if over != nil {
		mt.stop(over)
	}
	return over
}

// meteredModel meters every call of a budgeted run (see the top of this
// file).
type meteredModel struct {
	loop.Model
	meter *meter
}

// Name is the metered model's, for what names a model (its errors).
func (mm meteredModel) Name() string {
	if n, ok := mm.Model.(interface{ Name() string }); ok {
		return n.Name()
	}
	return ""
}

// estimateTokens is the usual rough measure: a token per 4 bytes.
func estimateTokens(nbytes int) int { return (nbytes + 3) / 4 }

func requestBytes(req provider.Request) int {
	n := len(req.System)
	for _, m := range req.Messages {
		n += len(m.Content)
	}
	return n
}

func (mm meteredModel) Stream(ctx context.Context, req provider.Request) iter.Seq2[provider.Delta, error] {
	return func(yield func(provider.Delta, error) bool) {
		in := estimateTokens(requestBytes(req))
		// The prompt is paid for once it is sent: it must fit first.
		if err := mm.meter.charge(in, 0); err != nil {
			yield(provider.Delta{}, err)
			return
		}
		charged, nbytes := in, 0
		var text []byte
		for d, err := range mm.Model.Stream(ctx, req) {
			if err != nil {
				if got := provider.PartialOf(err); got != nil && got.Usage != (provider.Usage{}) {
					// The provider counted what it was paid for: that replaces the estimate.
					// The stream failed already: a budget that this pushes
					// over has nothing left to stop.
					_ = mm.meter.charge(got.Usage.InputTokens+got.Usage.OutputTokens-charged, got.Usage.CostUSD)
				}
				yield(d, err)
				return
			}
			if d.Done != nil {
				u := d.Done.Usage
				if u != (provider.Usage{}) {
					_ = mm.meter.charge(u.InputTokens+u.OutputTokens-charged, u.CostUSD) // over: the run stops after this answer
				}
				yield(d, nil)
				return
			}
			if !yield(d, nil) {
				return
			}
			if d.Text == "" {
				continue
			}
			nbytes += len(d.Text)
			text = append(text, d.Text...)
			out := estimateTokens(nbytes)
			if err := mm.meter.charge(in+out-charged, 0); err != nil {
				// Stop reading here: breaking out of the stream ends the request.
				partial := &provider.Response{Content: string(text), Usage: provider.Usage{InputTokens: in, OutputTokens: out}}
				yield(provider.Delta{}, provider.WithPartial(err, partial))
				return
			}
			charged = in + out
		}
	}
}

// budgetNotices are what a student's run is told when it starts: that the
// budgets lowered its iterations, or moved it to the budget profile.
func (t *classTicket) budgetNotices(maxIter int) []event.LogPayload {
	if t == nil || t.m == nil {
		return nil
	}
	var out []event.LogPayload
	if t.switchedFrom != "" {
		out = append(out, event.NewLog("warn", "your token budget is used up: this run uses "+t.budgetProfile+" instead of "+t.switchedFrom,
			event.NoticeBudgetSwitch, "from", t.switchedFrom, "to", t.budgetProfile))
	}
	if t.askedIter > maxIter {
		out = append(out, event.NewLog("warn", "the token budget left holds "+strconv.Itoa(maxIter)+" of the "+strconv.Itoa(t.askedIter)+" iterations asked for",
			event.NoticeBudgetIterations, "n", strconv.Itoa(maxIter), "asked", strconv.Itoa(t.askedIter)))
	}
	return out
}

// metered is m behind the budgets' meter, for a student's run that is held
// to them (else m).
func (t *classTicket) metered(ar *activeRun, m loop.Model) loop.Model {
	if t == nil || t.m == nil || t.free {
		return m
	}
	return meteredModel{Model: m, meter: &meter{cr: t.cr, m: t.m, run: ar.id, stop: ar.cancel}}
}
