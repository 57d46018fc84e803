package service

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/loopforge/loopforge/backend/access"
	"github.com/loopforge/loopforge/backend/config"
	"github.com/loopforge/loopforge/backend/loop"
	"github.com/loopforge/loopforge/backend/store"
)

// The instructor's operations on the open class. Each saves the class row,
// then tells every socket of the class (see classHub).

// SetClassLimits replaces the students' limits.
func (s *Service) SetClassLimits(ctx context.Context, l ClassLimits) (ClassView, error) {
	cr, err := s.instructorClass(ctx)
	if err != nil {
		return ClassView{}, err
	}
	if err := s.checkLimits(l); err != nil {
		return ClassView{}, err
	}
	l.Providers, l.Presets = nonNil(l.Providers), nonNil(l.Presets)
	b, _ := json.Marshal(l)
	err = cr.update(ctx, func(row *store.Class) { row.Limits = string(b); cr.limits = l })
	if err != nil {
		return ClassView{}, err
	}
	cr.queue.setSize(l.executions())
	return cr.changed(ctx), nil
}

func nonNil(xs []string) []string {
	if xs == nil {
		return []string{}
	}
	return xs
}

func (s *Service) checkLimits(l ClassLimits) error {
	if l.MaxIterations < 0 || l.ConcurrentRuns < 0 || l.RunsPerHour < 0 || l.TokensPerStudent < 0 ||
		l.TokensForClass < 0 || l.CostPerStudentUSD < 0 || l.ConcurrentExecutions < 0 || l.TokensPerIteration < 0 {
		return invalid(CodeLimitNegative, nil, "a limit cannot be negative (0 = no limit)")
	}
	if l.MaxIterations > 0 {
		if err := config.CheckMaxIterations("the iteration limit", l.MaxIterations); err != nil {
			return fmt.Errorf("%w: %w", ErrInvalidRequest, err)
		}
	}
	if !validWindow(l.BudgetWindow) {
		return invalid(CodeBudgetWindow, map[string]string{"window": l.BudgetWindow}, "the budget window %q is not one of class, session, day, week", l.BudgetWindow)
	}
	if err := s.checkProviders(append(slices.Clone(l.Providers), l.BudgetProfile)); err != nil {
		return err
	}
	return s.checkPresets(l.Presets)
}

func (s *Service) checkProviders(names []string) error {
	for _, p := range names {
		if p == "" {
			continue
		}
		if _, ok := s.conf().Profiles[p]; !ok {
			return invalid(CodeUnknownProvider, map[string]string{"provider": p}, "no provider profile %q", p)
		}
	}
	return nil
}

func (s *Service) checkPresets(ids []string) error {
	for _, id := range ids {
		if !slices.ContainsFunc(s.Presets(), func(p config.Preset) bool { return p.ID == id }) {
			return invalid(CodeUnknownPreset, map[string]string{"preset": id}, "no preset %q", id)
		}
	}
	return nil
}

// Assign pushes an assignment to every student (an empty prompt clears it).
func (s *Service) Assign(ctx context.Context, a Assignment) (ClassView, error) {
	cr, err := s.instructorClass(ctx)
	if err != nil {
		return ClassView{}, err
	}
	var text string
	if strings.TrimSpace(a.Prompt) != "" {
		if err := s.checkAssignment(a); err != nil {
			return ClassView{}, err
		}
		b, _ := json.Marshal(a)
		text = string(b)
	}
	a.HiddenTests = 0
	err = cr.update(ctx, func(row *store.Class) {
		row.Assignment = text
		cr.assign = nil
		if text != "" {
			cr.assign = &a
		}
		// A new assignment starts every student's best over.
		cr.assignGen++
		for _, m := range cr.members {
			m.best, m.onAssign = nil, nil
		}
	})
	if err != nil {
		return ClassView{}, err
	}
	var given *Assignment
	if text != "" {
		given = &a
	}
	if err := cr.recordAssignment(ctx, given); err != nil {
		return ClassView{}, err
	}
	return cr.changed(ctx), nil
}

func (s *Service) checkAssignment(a Assignment) error {
	if err := s.checkProviders(a.Providers); err != nil {
		return err
	}
	if a.Preset != "" {
		if err := s.checkPresets([]string{a.Preset}); err != nil {
			return err
		}
	}
	if a.MaxIterations != 0 {
		if err := config.CheckMaxIterations("the iteration limit", a.MaxIterations); err != nil {
			return fmt.Errorf("%w: %w", ErrInvalidRequest, err)
		}
	}
	if a.Language != "" {
		if _, err := loop.LookupLanguage(a.Language); err != nil {
			return fmt.Errorf("%w: %w", ErrInvalidRequest, err)
		}
	}
	if a.TimeoutSeconds != 0 {
		if err := config.CheckTimeout("the time limit", seconds(a.TimeoutSeconds)); err != nil {
			return fmt.Errorf("%w: %w", ErrInvalidRequest, err)
		}
	}
	suite, err := a.suite()
	if err != nil {
		return TestsError(err)
	}
	lang, _ := loop.LookupLanguage(a.Language)
	if err := suite.CheckLanguage(lang.Sandbox); err != nil {
		return TestsError(err)
	}
	if a.PromptOnly && suite.Empty() {
		return invalid(CodeAssignNoTests, nil, "a prompt problem (students write only the prompt) needs tests to judge the program")
	}
	return nil
}

func seconds(f float64) time.Duration { return time.Duration(f * float64(time.Second)) }

// PauseClass stops (or lets again) students start runs; running ones go on.
func (s *Service) PauseClass(ctx context.Context, paused bool) (ClassView, error) {
	cr, err := s.instructorClass(ctx)
	if err != nil {
		return ClassView{}, err
	}
	if err := cr.update(ctx, func(row *store.Class) { row.Paused = paused }); err != nil {
		return ClassView{}, err
	}
	return cr.changed(ctx), nil
}

// SetSpotlight puts a run on the stage ("" = none).
func (s *Service) SetSpotlight(ctx context.Context, runID string) (ClassView, error) {
	cr, err := s.instructorClass(ctx)
	if err != nil {
		return ClassView{}, err
	}
	if runID != "" {
		if _, err := s.store.GetRun(ctx, runID); err != nil {
			return ClassView{}, err
		}
	}
	if err := cr.update(ctx, func(row *store.Class) { row.Spotlight = runID }); err != nil {
		return ClassView{}, err
	}
	return cr.changed(ctx), nil
}

// RemoveStudent takes a student out of the class: its token is refused
// from now on, its sockets close and its runs are cancelled.
func (s *Service) RemoveStudent(ctx context.Context, studentID string) error {
	cr, err := s.instructorClass(ctx)
	if err != nil {
		return err
	}
	cr.mu.Lock()
	m := cr.members[studentID]
	cr.mu.Unlock()
	if m == nil {
		return fmt.Errorf("student %s: %w", studentID, store.ErrNotFound)
	}
	at := time.Now().UTC()
	if err := s.store.RemoveStudent(ctx, studentID, at); err != nil {
		return err
	}
	cr.mu.Lock()
	var runs []string
	if m.st.RemovedAt == nil {
		m.st.RemovedAt = &at
		close(m.gone)
		// A new join code: the removed student knows the old one and could
		// otherwise come back under another name. Students in the class keep
		// their cookies; the instructor's view shows the new code.
		cr.rotateCode()
	}
	for id := range m.active {
		runs = append(runs, id)
	}
	cr.mu.Unlock()
	for _, id := range runs {
		_ = s.Cancel(id)
	}
	cr.hub.studentChanged(studentID)
	cr.hub.classChanged()
	return nil
}

// RotateJoinCode gives the open class a new join code (instructor only;
// the server calls it when the class sees a flood of wrong codes). Students
// in the class keep their cookies; the old code stops working at once and
// every instructor's page gets the new one over the class socket.
func (s *Service) RotateJoinCode(ctx context.Context) (ClassView, error) {
	cr, err := s.instructorClass(ctx)
	if err != nil {
		return ClassView{}, err
	}
	cr.mu.Lock()
	cr.rotateCode()
	cr.mu.Unlock()
	return cr.changed(ctx), nil
}

// rotateCode draws a new join code, never the current one; cr.mu is held.
func (cr *classroom) rotateCode() {
	for old := cr.code; cr.code == old; {
		cr.code = newJoinCode()
	}
}

// update changes the class row under mu and saves it.
func (cr *classroom) update(ctx context.Context, change func(*store.Class)) error {
	cr.mu.Lock()
	defer cr.mu.Unlock()
	before := cr.row
	limits, assign := cr.limits, cr.assign
	change(&cr.row)
	if err := cr.s.store.UpdateClass(ctx, &cr.row); err != nil {
		cr.row, cr.limits, cr.assign = before, limits, assign
		return err
	}
	return nil
}

// changed tells every socket of the class, and returns the instructor's
// view.
func (cr *classroom) changed(ctx context.Context) ClassView {
	cr.hub.classChanged()
	v, _ := cr.s.ClassView(ctx)
	return v
}

// ClassSummary is one class of the history.
type ClassSummary struct {
	ID, Name       string
	CreatedAt      time.Time
	EndedAt        *time.Time
	Students, Runs int
}

// Classes lists the stored classes, most recent first (instructor only).
func (s *Service) Classes(ctx context.Context) ([]ClassSummary, error) {
	if access.From(ctx).IsStudent() {
		return nil, instructorOnly("Classes")
	}
	list, err := s.store.ListClasses(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]ClassSummary, len(list))
	for i, c := range list {
		out[i] = ClassSummary{ID: c.ID, Name: c.Name, CreatedAt: c.CreatedAt, EndedAt: c.EndedAt, Students: c.Students, Runs: c.Runs}
	}
	return out, nil
}

// ClassDetail is a stored class as it was: its settings, its students'
// lines and its sessions.
type ClassDetail struct {
	Class    ClassView
	Students []WallEntry
	Sessions []store.SessionSummary
}

// ClassDetail reads a class of the history (instructor only). The open
// class reads as it is now, without its code.
func (s *Service) ClassDetail(ctx context.Context, id string) (ClassDetail, error) {
	if access.From(ctx).IsStudent() {
		return ClassDetail{}, instructorOnly("ClassDetail")
	}
	row, err := s.store.GetClass(ctx, id)
	if err != nil {
		return ClassDetail{}, err
	}
	cr := &classroom{s: s, row: *row, members: map[string]*member{}, byHash: map[string]string{}}
	if err := cr.load(ctx); err != nil {
		return ClassDetail{}, err
	}
	if open := s.classOf(); open != nil && open.row.ID == id {
		cr = open
	}
	v := cr.view(access.Caller{Role: access.Instructor})
	v.JoinCode, v.JoinURL = "", ""
	d := ClassDetail{Class: v, Students: []WallEntry{}}
	cr.mu.Lock()
	for _, sid := range cr.order {
		d.Students = append(d.Students, cr.entry(cr.members[sid], time.Now()))
	}
	cr.mu.Unlock()
	d.Sessions, err = s.store.ListSessions(ctx, store.ListOptions{ClassID: id})
	if d.Sessions == nil {
		d.Sessions = []store.SessionSummary{}
	}
	return d, err
}
