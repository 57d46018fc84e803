package service

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/loopforge/loopforge/backend/access"
	"github.com/loopforge/loopforge/backend/event"
	"github.com/loopforge/loopforge/backend/judge"
	"github.com/loopforge/loopforge/backend/loop"
	"github.com/loopforge/loopforge/backend/sandbox"
	"github.com/loopforge/loopforge/backend/store"
)

// Runs in class mode: a student's request is limited and counted
// (admit), every run of the class (the instructor's too) waits in the
// execution queue, and each student's runs feed the wall.

// classTicket is an admitted request: n runs reserved for its student (m
// nil: the instructor's, which only share the queue).
type classTicket struct {
	cr         *classroom
	m          *member
	n, started int
	// hold is what each run holds of the token budgets; free: the runs go
	// to the budget profile, which the budgets do not count.
	hold int
	free bool
	// switchedFrom is the profile the budgets moved the run from (to
	// budgetProfile); askedIter the iterations asked for, when the budgets
	// lowered them.
	switchedFrom, budgetProfile string
	askedIter                   int
}

// admit checks a run request against the open class and the caller
// (nil ticket outside class mode). For a student it refuses what is not
// theirs to ask, clamps what the instructor limited, and checks the
// quotas, reserving n runs; done gives back what was not started.
func (s *Service) admit(ctx context.Context, req *RunRequest, providers []string) (*classTicket, error) {
	cr := s.classOf()
	c := access.From(ctx)
	if req.SessionID != "" {
		if err := s.checkSession(ctx, req.SessionID); err != nil {
			return nil, err
		}
	}
	if cr == nil {
		if c.IsStudent() {
			return nil, ErrNotAStudent
		}
		return nil, nil
	}
	if !c.IsStudent() {
		return &classTicket{cr: cr}, nil
	}
	cr.mu.Lock()
	limits, assign := cr.limits, cr.assign
	cr.mu.Unlock()
	if err := s.restrict(req, providers, limits, assign); err != nil {
		return nil, err
	}
	cr.mu.Lock()
	defer cr.mu.Unlock()
	m := cr.members[c.StudentID]
	if m == nil || m.st.RemovedAt != nil {
		return nil, ErrNotAStudent
	}
	if cr.row.Paused {
		return nil, ErrClassPaused
	}
	n := max(len(providers), 1)
	now := time.Now()
	if err := cr.quota(m, n, now); err != nil {
		return nil, err
	}
	t := &classTicket{cr: cr, m: m, n: n, askedIter: req.MaxIterations}
	if err := s.budget(t, req, providers, now); err != nil {
		return nil, err
	}
	m.pending += n
	return t, nil
}

// budget takes what t's runs hold of the token budgets, or moves a run
// with no room to the class's budget profile (comparisons are refused:
// their providers would all become one); cr.mu is held.
func (s *Service) budget(t *classTicket, req *RunRequest, providers []string, now time.Time) error {
	cr, l := t.cr, t.cr.limits
	if l.BudgetProfile != "" && len(providers) == 0 && req.Provider == l.BudgetProfile {
		t.free = true
		return nil
	}
	hold, err := cr.reserve(t.m, req, t.n, now)
	if err == nil {
		t.hold = hold
		return nil
	}
	if l.BudgetProfile == "" || len(providers) > 0 {
		return err
	}
	from := req.Provider
	if from == "" {
		from, _ = s.conf().DefaultProvider()
	}
	req.Provider, t.free, t.switchedFrom, t.budgetProfile = l.BudgetProfile, true, from, l.BudgetProfile
	return nil
}

// restrict refuses a student's request what only the instructor may ask
// for and clamps its settings to the class's limits.
func (s *Service) restrict(req *RunRequest, providers []string, l ClassLimits, a *Assignment) error {
	switch {
	case req.Model != "" || req.BaseURL != "":
		return &Error{Code: CodeStudentModel, Err: fmt.Errorf("%w: students cannot change a provider's model or endpoint", ErrForbidden)}
	case req.AllowNetwork:
		return &Error{Code: CodeStudentNetwork, Err: fmt.Errorf("%w: network access for generated code is not open to students", ErrForbidden)}
	case req.Mode == event.ModeWorkspace:
		// Limits.ScratchWorkspace (a workspace folder per student) is not
		// built yet; until it is, no student edits any folder of this
		// machine.
		return &Error{Code: CodeStudentWorkspace, Err: fmt.Errorf("%w: workspace mode is not open to students in this class", ErrForbidden)}
	case req.Task != nil || len(req.Validate) > 0 && req.Mode != event.ModeWorkspace:
		return &Error{Code: CodeStudentTask, Err: fmt.Errorf("%w: students run script tasks only", ErrForbidden)}
	}
	if limit := max(StudentPromptBytes, len(assignmentPrompt(a))); len(req.Prompt) > limit {
		return &Error{Code: CodeStudentPrompt, Params: map[string]string{"max_kib": strconv.Itoa(limit >> 10), "size_kib": strconv.Itoa(len(req.Prompt) >> 10)},
			Err: fmt.Errorf("%w: the prompt is %d KiB; in this class a prompt is at most %d KiB", ErrInvalidRequest, len(req.Prompt)>>10, limit>>10)}
	}
	if err := classTests(req, l, a); err != nil {
		return err
	}
	req.Workdir = ""
	if req.Provider == "" && len(providers) == 0 && len(l.Providers) > 0 {
		if def, _ := s.conf().DefaultProvider(); !slices.Contains(l.Providers, def) {
			req.Provider = l.Providers[0]
		}
	}
	for _, p := range append(slices.Clone(providers), req.Provider, req.Auditor) {
		if p != "" && len(l.Providers) > 0 && !slices.Contains(l.Providers, p) {
			return &Error{Code: CodeStudentProvider, Params: map[string]string{"provider": p},
				Err: fmt.Errorf("%w: provider %q is not allowed in this class", ErrForbidden, p)}
		}
	}
	if req.MaxIterations == 0 {
		req.MaxIterations = s.conf().MaxIterations
	}
	if l.MaxIterations > 0 {
		req.MaxIterations = min(req.MaxIterations, l.MaxIterations)
	}
	// One execution may take as long as the configuration or the
	// assignment says, not longer: a queue slot is shared.
	limit := s.conf().Timeout
	if a != nil && a.TimeoutSeconds > 0 {
		limit = max(limit, seconds(a.TimeoutSeconds))
	}
	req.TimeoutSeconds = clampTimeout(req.TimeoutSeconds, limit)
	return nil
}

// classTests decides what judges a student's run. While the assignment in
// force has tests, they do, hidden ones included: the student's request
// cannot drop or replace them, and tests of the student's own are refused
// rather than mixed in (they would change the count the wall and the grade
// sheet show). Otherwise a student may send up to MaxStudentTests of their
// own. A retry's tests come from the stored run, not from the student, and
// are not counted.
func classTests(req *RunRequest, l ClassLimits, a *Assignment) error {
	assigned, err := a.suite()
	if err != nil {
		return TestsError(err)
	}
	sent := req.Retry == "" && strings.TrimSpace(req.Tests) != ""
	if !assigned.Empty() {
		if sent {
			return &Error{Code: CodeStudentTestsSet, Err: fmt.Errorf("%w: this assignment's tests judge the program; a student's own tests are not taken", ErrForbidden)}
		}
		req.Tests = a.Tests
		if a.PromptOnly {
			req.Language = a.Language
		}
		return nil
	}
	if !sent {
		return nil
	}
	// Counted here, before the run's settings check the rest of them.
	own, err := judge.Parse([]byte(req.Tests))
	if err != nil {
		return TestsError(err)
	}
	if n := len(own.Cases); n > l.MaxStudentTests {
		return &Error{Code: CodeStudentTests, Params: map[string]string{"max": strconv.Itoa(l.MaxStudentTests), "count": strconv.Itoa(n)},
			Err: fmt.Errorf("%w: %d tests; in this class a student's run may carry at most %d", ErrForbidden, n, l.MaxStudentTests)}
	}
	return nil
}

func assignmentPrompt(a *Assignment) string {
	if a == nil {
		return ""
	}
	return a.Prompt
}

// quota refuses n more runs of m when a limit would be passed; cr.mu is
// held.
func (cr *classroom) quota(m *member, n int, now time.Time) error {
	l := cr.limits
	u := cr.usage(m, now)
	going := u.RunningRuns + m.pending
	switch {
	case l.ConcurrentRuns > 0 && going+n > l.ConcurrentRuns:
		return &QuotaError{Limit: "concurrent_runs", Msg: fmt.Sprintf("You already have %d %s going (the limit is %d)", going, plural(going, "run"), l.ConcurrentRuns),
			Code: CodeQuotaConcurrent, Params: map[string]string{"going": strconv.Itoa(going), "limit": strconv.Itoa(l.ConcurrentRuns)}}
	case l.RunsPerHour > 0 && u.RunsLastHour+m.pending+n > l.RunsPerHour:
		next := m.nextSlot(now)
		return &QuotaError{Limit: "runs_per_hour", RetryAt: next,
			Msg:  fmt.Sprintf("%d runs in the last hour is the limit; the next one is possible at %s", l.RunsPerHour, next.Local().Format("15:04")),
			Code: CodeQuotaHourly, Params: map[string]string{"limit": strconv.Itoa(l.RunsPerHour), "retry_at": next.UTC().Format(time.RFC3339)}}
	}
	return nil
}

// nextSlot is when the oldest run of the last hour leaves it.
func (m *member) nextSlot(now time.Time) time.Time {
	var oldest time.Time
	for _, t := range m.starts {
		if now.Sub(t) < time.Hour && (oldest.IsZero() || t.Before(oldest)) {
			oldest = t
		}
	}
	if oldest.IsZero() {
		return now
	}
	return oldest.Add(time.Hour)
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

// thousands writes n with comma separators: 50,000.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// session marks a new session as the class's and the student's.
func (t *classTicket) session(sess *store.Session) {
	if t == nil || t.m == nil {
		return
	}
	sess.ClassID, sess.StudentID = t.cr.row.ID, t.m.st.ID
}

// done gives back the reserved runs that were not started.
func (t *classTicket) done() {
	if t == nil || t.m == nil {
		return
	}
	t.cr.mu.Lock()
	t.m.pending -= t.n - t.started
	if !t.free {
		t.m.pendingTokens -= (t.n - t.started) * t.hold
	}
	t.started = t.n
	t.cr.mu.Unlock()
}

// register makes a launched run the class's: its student's running run and
// wall line. It runs before the run's first event.
func (t *classTicket) register(ar *activeRun, run *store.Run) {
	if t == nil {
		return
	}
	ar.class = t.cr
	if t.m == nil {
		return
	}
	ar.student = t.m.st.ID
	t.cr.mu.Lock()
	t.started++
	t.m.pending--
	w := wallRunOf(*run)
	w.BudgetFrom = t.switchedFrom
	if !t.free {
		t.m.pendingTokens -= t.hold
	}
	t.m.active[run.ID] = &classRun{wall: w, hold: t.hold, free: t.free, gen: t.cr.assignGen}
	if t.cr.assign != nil {
		t.m.bestOf(w, run.ID)
	}
	t.m.runs++
	t.m.starts = append(slices.DeleteFunc(t.m.starts, func(x time.Time) bool { return time.Since(x) >= time.Hour }), run.StartedAt)
	t.m.current = w
	t.cr.mu.Unlock()
	t.cr.hub.studentChanged(t.m.st.ID)
}

// observe follows a class run's events for the wall and the token
// budgets; it runs in the run's goroutine, after the event was emitted.
func (s *Service) observe(ar *activeRun, e event.Event) {
	cr := ar.class
	if cr == nil {
		return
	}
	var p struct {
		Iteration int   `json:"iteration"`
		Ahead     int   `json:"ahead"`
		WaitMS    int64 `json:"wait_ms"`
		Passed    int   `json:"passed"`
		Total     int   `json:"total"`
	}
	switch e.Type {
	case event.IterationStarted, event.ExecStarted, event.Queued, event.Tested:
		if e.Decode(&p) != nil {
			return
		}
	default:
		return
	}
	if e.Type == event.IterationStarted {
		ar.iteration.Store(int64(p.Iteration))
	}
	if ar.student == "" {
		return
	}
	cr.mu.Lock()
	m := cr.members[ar.student]
	r := m.active[ar.id]
	if r == nil {
		cr.mu.Unlock()
		return
	}
	switch e.Type {
	case event.IterationStarted:
		r.wall.Iteration, r.wall.QueuePosition, r.wall.QueueWait = p.Iteration, 0, 0
	case event.Queued:
		r.wall.QueuePosition, r.wall.QueueWait = p.Ahead, time.Duration(p.WaitMS)*time.Millisecond
	case event.Tested:
		// The instructor sees who passes what while the run goes on.
		r.wall.TestsPassed, r.wall.TestsTotal = p.Passed, p.Total
		if r.gen == cr.assignGen && cr.assign != nil {
			m.bestOf(r.wall, ar.id)
		}
	}
	cr.mu.Unlock()
	cr.hub.studentChanged(ar.student)
}

// tokensUsedUp: a student's token budget is spent.
func tokensUsedUp(l ClassLimits) *QuotaError {
	return &QuotaError{Limit: "tokens_per_student", Msg: fmt.Sprintf("Your token budget (%s) is used up", thousands(l.TokensPerStudent)),
		Code: CodeQuotaTokens, Params: map[string]string{"limit": strconv.Itoa(l.TokensPerStudent)}}
}

// classTokensUsedUp: the class's token budget is spent.
func classTokensUsedUp(l ClassLimits) *QuotaError {
	return &QuotaError{Limit: "tokens_for_class", Msg: "The class token budget is used up",
		Code: CodeQuotaClassTokens, Params: map[string]string{"limit": strconv.Itoa(l.TokensForClass)}}
}

// classFinished moves an ended run's spending to its student and its end
// to the wall.
func (s *Service) classFinished(ar *activeRun, run *store.Run) {
	cr := ar.class
	if cr == nil || ar.student == "" {
		return
	}
	cr.mu.Lock()
	m := cr.members[ar.student]
	if r := m.active[ar.id]; r != nil {
		delete(m.active, ar.id)
		// The run's own count replaces the meter's (estimates settled).
		m.spent = append(m.spent, spend{at: run.StartedAt, tokens: run.InputTokens + run.OutputTokens, cost: run.CostUSD, free: r.free})
		w := wallRunOf(*run)
		w.BudgetFrom = r.wall.BudgetFrom
		if m.current == r.wall {
			m.current = w
		}
		if r.gen == cr.assignGen && cr.assign != nil {
			m.bestOf(w, ar.id)
		}
	}
	cr.mu.Unlock()
	cr.hub.studentChanged(ar.student)
}

// quotaStatus turns a run a quota stopped (cancelled with a *QuotaError)
// into an error whose kind says so.
func quotaStatus(out loop.Outcome) (event.RunStatus, string, bool) {
	if _, ok := errors.AsType[*QuotaError](out.Err); ok && out.Status == event.RunStatusCancelled {
		return event.RunStatusError, event.ErrorQuota, true
	}
	return out.Status, "", false
}

// queuedExec runs code through the class's execution queue, telling the
// run its place while it waits. A class's runs ask to be forked from the
// sandbox's zygote (sandbox.Request.Forked; see zygoteUse).
type queuedExec struct {
	inner loop.Executor
	q     *execQueue
	wait  func(ahead int)
}

func (x *queuedExec) Run(ctx context.Context, req sandbox.Request) (sandbox.Result, error) {
	release, err := x.q.acquire(ctx, x.wait)
	if err != nil {
		return sandbox.Result{}, err
	}
	defer release()
	req.Forked = true
	return x.inner.Run(ctx, req)
}

// queuedPreparer is a queuedExec whose executor prepares sandboxes ahead
// of their code (loop.Preparer). Preparing takes no slot: a prepared
// sandbox is an interpreter waiting idle for its program (no CPU, some
// 10 MB of memory, at most one per run), while the queue bounds the
// programs running at once. The slot is taken when the code is handed
// over, before the program's timeout starts, as for a cold run.
type queuedPreparer struct {
	queuedExec
	prep loop.Preparer
}

func (x *queuedPreparer) Prepare(ctx context.Context, req sandbox.Request) (sandbox.Prepared, error) {
	req.Forked = true
	p, err := x.prep.Prepare(ctx, req)
	if err != nil {
		return nil, err
	}
	return &queuedPrepared{Prepared: p, x: &x.queuedExec}, nil
}

// queuedPrepared waits for its slot before it hands the code over.
type queuedPrepared struct {
	sandbox.Prepared
	x *queuedExec
}

func (p *queuedPrepared) Run(ctx context.Context, req sandbox.Request) (sandbox.Result, error) {
	release, err := p.x.q.acquire(ctx, p.x.wait)
	if err != nil {
		p.Close()
		return sandbox.Result{}, err
	}
	defer release()
	return p.Prepared.Run(ctx, req)
}

// executorFor is the executor of one run: in class mode, behind the queue.
func (s *Service) executorFor(ar *activeRun) loop.Executor {
	exec, _ := s.executor() // made by prepare; nil only where the run needs none (unsandboxed workspace commands)
	if exec == nil || ar.class == nil {
		return exec
	}
	q := s.queuedExec(ar, exec)
	if prep, ok := exec.(loop.Preparer); ok {
		return &queuedPreparer{queuedExec: *q, prep: prep}
	}
	return q
}

// queuedExec puts exec behind the class's execution queue, telling the
// run its place while it waits.
func (s *Service) queuedExec(ar *activeRun, exec loop.Executor) *queuedExec {
	cr := ar.class
	return &queuedExec{inner: exec, q: cr.queue, wait: func(ahead int) {
		e := event.New(event.Queued, event.QueuedPayload{Iteration: int(ar.iteration.Load()), Ahead: ahead,
			WaitMS: cr.queue.estimate(ahead).Milliseconds()})
		if err := s.emit(ar, e); err != nil {
			s.log.Warn("recording a queue position", "run", ar.id, "err", err)
			return
		}
		s.observe(ar, e)
	}}
}
