package wire

import (
	"time"

	"github.com/loopforge/loopforge/backend/access"
	"github.com/loopforge/loopforge/backend/service"
)

// Conversions of the classroom's types (class.go).

// ToService converts the instructor's limits.
func (l ClassLimits) ToService() service.ClassLimits {
	return service.ClassLimits{Providers: l.Providers, Presets: l.Presets, MaxIterations: l.MaxIterations,
		ConcurrentRuns: l.ConcurrentRuns, RunsPerHour: l.RunsPerHour, TokensPerStudent: l.TokensPerStudent,
		TokensForClass: l.TokensForClass, CostPerStudentUSD: l.CostPerStudentUSD,
		ConcurrentExecutions: l.ConcurrentExecutions, ScratchWorkspace: l.ScratchWorkspace,
		BudgetWindow: l.BudgetWindow, TokensPerIteration: l.TokensPerIteration, BudgetProfile: l.BudgetProfile,
		MaxStudentTests: l.MaxStudentTests}
}

func fromLimits(l service.ClassLimits) ClassLimits {
	return ClassLimits{Providers: nonNil(l.Providers), Presets: nonNil(l.Presets), MaxIterations: l.MaxIterations,
		ConcurrentRuns: l.ConcurrentRuns, RunsPerHour: l.RunsPerHour, TokensPerStudent: l.TokensPerStudent,
		TokensForClass: l.TokensForClass, CostPerStudentUSD: l.CostPerStudentUSD,
		ConcurrentExecutions: l.ConcurrentExecutions, ScratchWorkspace: l.ScratchWorkspace,
		BudgetWindow: l.BudgetWindow, TokensPerIteration: l.TokensPerIteration, BudgetProfile: l.BudgetProfile,
		MaxStudentTests: l.MaxStudentTests}
}

func nonNil(xs []string) []string {
	if xs == nil {
		return []string{}
	}
	return xs
}

// ToService converts an assignment.
func (a Assignment) ToService() service.Assignment {
	return service.Assignment{Title: a.Title, Prompt: a.Prompt, Preset: a.Preset, Providers: a.Providers,
		MaxIterations: a.MaxIterations, Language: a.Language, TimeoutSeconds: a.TimeoutSeconds, Reflect: a.Reflect,
		Tests: a.Tests, PromptOnly: a.PromptOnly}
}

func fromAssignment(a *service.Assignment) *Assignment {
	if a == nil {
		return nil
	}
	return &Assignment{Title: a.Title, Prompt: a.Prompt, Preset: a.Preset, Providers: a.Providers,
		MaxIterations: a.MaxIterations, Language: a.Language, TimeoutSeconds: a.TimeoutSeconds, Reflect: a.Reflect,
		Tests: a.Tests, HiddenTests: a.HiddenTests, PromptOnly: a.PromptOnly}
}

// FromClassView converts a class as one caller sees it.
func FromClassView(v service.ClassView) ClassView {
	out := ClassView{ID: v.ID, Name: v.Name, JoinCode: v.JoinCode, JoinURL: v.JoinURL, Paused: v.Paused,
		Assignment: fromAssignment(v.Assignment), Spotlight: v.Spotlight, Limits: fromLimits(v.Limits), IterationCap: v.IterationCap, Usage: fromUsage(v.Usage)}
	if !v.BudgetSince.IsZero() {
		out.BudgetSince = rfc3339(v.BudgetSince)
	}
	return out
}

func fromUsage(u service.ClassUsage) ClassUsage {
	return ClassUsage{Runs: u.Runs, RunningRuns: u.RunningRuns, RunsLastHour: u.RunsLastHour, Tokens: u.Tokens, CostUSD: u.CostUSD,
		BudgetTokens: u.BudgetTokens, BudgetHeld: u.BudgetHeld, BudgetCostUSD: u.BudgetCostUSD}
}

// FromMe converts who the caller is.
func FromMe(m service.Me) Me {
	out := Me{Role: RoleInstructor, StudentID: m.StudentID, Name: m.Name}
	if m.Role == access.Student {
		out.Role = RoleStudent
	}
	if m.Class != nil {
		v := FromClassView(*m.Class)
		out.Class = &v
	}
	return out
}

func rfc3339(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// FromWallEntry converts one student's line.
func FromWallEntry(e service.WallEntry) WallEntry {
	out := WallEntry{StudentID: e.StudentID, Name: e.Name, JoinedAt: rfc3339(e.JoinedAt), Removed: e.Removed, Usage: fromUsage(e.Usage)}
	if r := e.Current; r != nil {
		out.Current = &WallRun{RunID: r.RunID, SessionID: r.SessionID, Provider: r.Provider, Model: r.Model, Status: string(r.Status),
			Iteration: r.Iteration, MaxIter: r.MaxIter, StartedAt: rfc3339(r.StartedAt), QueuePosition: r.QueuePosition,
			QueueWaitMS: r.QueueWait.Milliseconds(), BudgetFrom: r.BudgetFrom, ErrorCode: r.ErrorCode, ErrorParams: r.ErrorParams,
			TestsPassed: r.TestsPassed, TestsTotal: r.TestsTotal, PromptChars: r.PromptChars}
		if r.EndedAt != nil {
			out.Current.EndedAt = rfc3339(*r.EndedAt)
		}
	}
	if b := e.Best; b != nil {
		out.Best = &WallBest{RunID: b.RunID, TestsPassed: b.TestsPassed, TestsTotal: b.TestsTotal, Success: b.Success,
			Iterations: b.Iterations, PromptChars: b.PromptChars, Runs: b.Runs}
	}
	return out
}

// FromWall converts the wall.
func FromWall(es []service.WallEntry) []WallEntry { return each(es, FromWallEntry) }

// FromClasses converts the class history.
func FromClasses(cs []service.ClassSummary) []ClassSummary {
	return each(cs, func(c service.ClassSummary) ClassSummary {
		out := ClassSummary{ID: c.ID, Name: c.Name, CreatedAt: rfc3339(c.CreatedAt), Students: c.Students, Runs: c.Runs}
		if c.EndedAt != nil {
			out.EndedAt = rfc3339(*c.EndedAt)
		}
		return out
	})
}

// FromClassDetail converts a class of the history.
func FromClassDetail(d service.ClassDetail) ClassDetail {
	return ClassDetail{Class: FromClassView(d.Class), Students: FromWall(d.Students), Sessions: FromSessions(d.Sessions)}
}
