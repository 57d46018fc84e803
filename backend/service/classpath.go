package service

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/loopforge/loopforge/backend/access"
	"github.com/loopforge/loopforge/backend/event"
	"github.com/loopforge/loopforge/backend/export"
	"github.com/loopforge/loopforge/backend/store"
)

// A student's learning path (issue 23 item 5): everything the student did
// in a class, in order — each run's prompt, its iterations with their
// errors and reflections, the tokens they cost, and how long the student
// took to reach a working program for each assignment. The instructor reads
// it from the wall (LearningPath) and in the class export (attempts.csv).

// PathIteration is one iteration of a run on a learning path.
type PathIteration struct {
	N int
	// Status: success, error (the code failed, or the answer had no usable
	// code), running, or the run's own status for an iteration it ended in
	// (cancelled, interrupted, error: a provider or a class limit).
	Status string
	// ErrorKind says what went wrong: an exec status (error, timeout,
	// memory, output_limit…), "format" (no usable code in the answer), or
	// the run's error code for an iteration the run ended in; "" when it
	// worked.
	ErrorKind string
	Error     string // the first line of what went wrong
	Code      string
	// Reflection is the model's analysis of the failure, before the next
	// iteration ("" when there was none).
	Reflection                string
	InputTokens, OutputTokens int // generation and reflection calls
	StartedAt                 time.Time
	// DurationMS runs from this iteration's start to the next one's (or the
	// run's end): generation, queue, execution and reflection. 0 while it
	// goes on.
	DurationMS int64
	// TestsPassed of TestsTotal: the run's tests on this iteration's
	// program (0 of 0: no tests, or it was not judged).
	TestsPassed, TestsTotal int
}

// PathRun is one run on a learning path.
type PathRun struct {
	RunID, SessionID, SessionTitle string
	// Assignment is the assignment in force when the run started (its
	// title, else its prompt's first line); "" for none.
	Assignment                string
	Prompt                    string
	Provider, Model           string
	Status                    event.RunStatus
	Error, ErrorCode          string
	StartedAt                 time.Time
	EndedAt                   *time.Time
	InputTokens, OutputTokens int
	CostUSD                   float64
	// WorkingAfterMS: from the run's start to the end of the iteration whose
	// program worked; 0 when none did.
	WorkingAfterMS int64
	Iterations     []PathIteration
}

// PathAssignment is how a student did on one assignment ("" = the runs
// made without one).
type PathAssignment struct {
	Assignment string
	Runs       int
	FirstRun   time.Time
	// WorkingAfterMS: from the student's first run on it to the end of the
	// first iteration whose program worked, across runs; 0 when none did.
	WorkingAfterMS int64
}

// LearningPath is one student's path through a class.
type LearningPath struct {
	ClassID, ClassName        string
	StudentID, Name           string
	Removed                   bool
	Runs                      []PathRun // in start order
	Assignments               []PathAssignment
	InputTokens, OutputTokens int
	CostUSD                   float64
}

// LearningPath reads a student's path through a class (classID "" = the
// open one). Instructor only: a student is refused, for their own path too
// (what they did is already theirs in their history).
func (s *Service) LearningPath(ctx context.Context, classID, studentID string) (LearningPath, error) {
	if access.From(ctx).IsStudent() {
		return LearningPath{}, instructorOnly("LearningPath")
	}
	rec, err := s.classRecordOf(ctx, classID)
	if err != nil {
		return LearningPath{}, err
	}
	i := slices.IndexFunc(rec.students, func(st store.Student) bool { return st.ID == studentID })
	if i < 0 {
		return LearningPath{}, fmt.Errorf("student %s: %w", studentID, store.ErrNotFound)
	}
	assigns, err := s.store.ClassAssignments(ctx, rec.class.ID)
	if err != nil {
		return LearningPath{}, err
	}
	return s.pathOf(ctx, rec, assigns, rec.students[i])
}

// classRecordOf is the class classID names, or the open one for "".
func (s *Service) classRecordOf(ctx context.Context, classID string) (*classRecord, error) {
	if classID == "" {
		cr := s.classOf()
		if cr == nil {
			return nil, ErrNoClass
		}
		classID = cr.row.ID
	}
	return s.classRecord(ctx, classID)
}

// recordAssignment keeps an assignment given to (or cleared from) the
// class, for the learning paths.
func (cr *classroom) recordAssignment(ctx context.Context, a *Assignment) error {
	rec := store.ClassAssignment{ClassID: cr.row.ID, SetAt: time.Now().UTC()}
	if a != nil {
		rec.Title, rec.Prompt = a.Title, a.Prompt
	}
	return cr.s.store.AddClassAssignment(ctx, rec)
}

// pathOf builds st's path from the class's record.
func (s *Service) pathOf(ctx context.Context, rec *classRecord, assigns []store.ClassAssignment, st store.Student) (LearningPath, error) {
	p := LearningPath{ClassID: rec.class.ID, ClassName: rec.class.Name, StudentID: st.ID, Name: st.Name,
		Removed: st.RemovedAt != nil, Runs: []PathRun{}, Assignments: []PathAssignment{}}
	titles := map[string]string{}
	for _, cs := range rec.sessions {
		if cs.StudentID == st.ID {
			titles[cs.ID] = cs.Title
		}
	}
	for _, r := range rec.runs {
		title, mine := titles[r.SessionID]
		if !mine {
			continue
		}
		its, err := s.store.ListIterations(ctx, r.ID)
		if err != nil {
			return LearningPath{}, err
		}
		steps, err := s.store.RunSteps(ctx, r.ID)
		if err != nil {
			return LearningPath{}, err
		}
		pr := pathRun(r, its, steps)
		pr.SessionTitle, pr.Assignment = title, assignmentAt(assigns, r.StartedAt)
		p.Runs = append(p.Runs, pr)
		p.InputTokens += r.InputTokens
		p.OutputTokens += r.OutputTokens
		p.CostUSD += r.CostUSD
	}
	p.Assignments = assignmentsOf(p.Runs)
	return p, nil
}

// assignmentAt names the assignment in force at t: the last one given at
// or before t ("" when none was, or it was cleared).
func assignmentAt(assigns []store.ClassAssignment, t time.Time) string {
	name := ""
	for _, a := range assigns {
		if a.SetAt.After(t) {
			break
		}
		name = assignmentName(a.Title, a.Prompt)
	}
	return name
}

// assignmentName is an assignment's title, else its prompt's first line
// (at most 80 characters).
func assignmentName(title, prompt string) string {
	if t := strings.TrimSpace(title); t != "" {
		return t
	}
	line, _, _ := strings.Cut(strings.TrimSpace(prompt), "\n")
	line = strings.TrimSpace(line)
	if utf8.RuneCountInString(line) > 80 {
		line = string([]rune(line)[:79]) + "…"
	}
	return line
}

// assignmentsOf sums up runs (in start order) per assignment, in the order
// the student first worked on each.
func assignmentsOf(runs []PathRun) []PathAssignment {
	out := []PathAssignment{}
	at := map[string]int{}
	for _, r := range runs {
		i, seen := at[r.Assignment]
		if !seen {
			i = len(out)
			at[r.Assignment] = i
			out = append(out, PathAssignment{Assignment: r.Assignment, FirstRun: r.StartedAt})
		}
		a := &out[i]
		a.Runs++
		if a.WorkingAfterMS == 0 && r.WorkingAfterMS > 0 {
			a.WorkingAfterMS = r.StartedAt.Sub(a.FirstRun).Milliseconds() + r.WorkingAfterMS
		}
	}
	return out
}

// steps is what a run's events say of each iteration.
type steps struct {
	started, done       map[int]time.Time
	inTokens, outTokens map[int]int
	tests               map[int][2]int // passed, total
	finished            time.Time
	last                int // the highest iteration started
}

func readSteps(evs []event.Event) steps {
	st := steps{started: map[int]time.Time{}, done: map[int]time.Time{}, inTokens: map[int]int{}, outTokens: map[int]int{}, tests: map[int][2]int{}}
	for _, e := range evs {
		var p struct {
			Iteration    int `json:"iteration"`
			InputTokens  int `json:"input_tokens"`
			OutputTokens int `json:"output_tokens"`
			Passed       int `json:"passed"`
			Total        int `json:"total"`
		}
		if e.Type == event.RunFinished {
			st.finished = e.TS
			continue
		}
		if e.Decode(&p) != nil {
			continue
		}
		switch e.Type {
		case event.IterationStarted:
			st.started[p.Iteration] = e.TS
			st.last = max(st.last, p.Iteration)
		case event.IterationDone:
			st.done[p.Iteration] = e.TS
		case event.Generated, event.Reflection:
			st.inTokens[p.Iteration] += p.InputTokens
			st.outTokens[p.Iteration] += p.OutputTokens
		case event.Tested:
			st.tests[p.Iteration] = [2]int{p.Passed, p.Total}
		}
	}
	return st
}

// pathRun is r with its iterations, from the stored iterations and the
// run's step events.
func pathRun(r store.Run, its []store.Iteration, evs []event.Event) PathRun {
	pr := PathRun{RunID: r.ID, SessionID: r.SessionID, Prompt: r.Prompt, Provider: r.Provider, Model: r.Model,
		Status: r.Status, Error: firstLineOf(r.Error), ErrorCode: r.ErrorCode, StartedAt: r.StartedAt, EndedAt: r.FinishedAt,
		InputTokens: r.InputTokens, OutputTokens: r.OutputTokens, CostUSD: r.CostUSD, Iterations: []PathIteration{}}
	st := readSteps(evs)
	byN := map[int]store.Iteration{}
	last := st.last
	for _, it := range its {
		byN[it.N] = it
		last = max(last, it.N)
	}
	end := st.finished
	if end.IsZero() && r.FinishedAt != nil {
		end = *r.FinishedAt
	}
	for n := 1; n <= last; n++ {
		it, stored := byN[n]
		pi := PathIteration{N: n, Code: it.Code, Reflection: it.Reflection, InputTokens: st.inTokens[n],
			OutputTokens: st.outTokens[n], StartedAt: st.started[n], TestsPassed: st.tests[n][0], TestsTotal: st.tests[n][1]}
		next := st.started[n+1]
		if next.IsZero() {
			next = end
		}
		if !pi.StartedAt.IsZero() && !next.IsZero() {
			pi.DurationMS = next.Sub(pi.StartedAt).Milliseconds()
		}
		pi.Status, pi.ErrorKind, pi.Error = iterationOutcome(r, it, stored && it.Status != "", n == last)
		if pi.Status == string(event.IterationStatusSuccess) && pr.WorkingAfterMS == 0 {
			done := cmp.Or(st.done[n], end)
			if !done.IsZero() {
				pr.WorkingAfterMS = max(done.Sub(r.StartedAt).Milliseconds(), 1)
			}
		}
		pr.Iterations = append(pr.Iterations, pi)
	}
	return pr
}

// iterationOutcome is an iteration's status, error kind and error line.
// finished: the loop decided on it; else it is the run's last and either
// still going or where the run ended.
func iterationOutcome(r store.Run, it store.Iteration, finished, last bool) (status, kind, msg string) {
	switch {
	case finished && it.Status == event.IterationStatusSuccess:
		return string(event.IterationStatusSuccess), "", ""
	case finished && it.ExecStatus != "" && it.ExecStatus != string(event.ExecStatusOK):
		return string(event.IterationStatusError), it.ExecStatus, firstLineOf(it.Summary)
	case finished:
		return string(event.IterationStatusError), "format", firstLineOf(it.Summary)
	case r.Status == event.RunStatusRunning:
		return string(event.IterationStatusRunning), "", ""
	case last:
		return string(r.Status), cmp.Or(r.ErrorCode, string(r.Status)), firstLineOf(r.Error)
	}
	return string(r.Status), "", ""
}

func firstLineOf(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(line)
}

// attemptRows is attempts.csv: every student's path (in join order), one
// row per run and iteration.
func (s *Service) attemptRows(ctx context.Context, rec *classRecord) ([]export.AttemptRow, error) {
	assigns, err := s.store.ClassAssignments(ctx, rec.class.ID)
	if err != nil {
		return nil, err
	}
	var rows []export.AttemptRow
	for _, st := range rec.students {
		p, err := s.pathOf(ctx, rec, assigns, st)
		if err != nil {
			return nil, err
		}
		working := map[string]int64{}
		for _, a := range p.Assignments {
			working[a.Assignment] = a.WorkingAfterMS
		}
		for _, r := range p.Runs {
			row := export.AttemptRow{Student: p.Name, Assignment: r.Assignment, RunID: r.RunID, Started: r.StartedAt,
				RunStatus: r.Status, WorkingAfterMS: working[r.Assignment]}
			if len(r.Iterations) == 0 {
				row.ErrorKind, row.Error = r.ErrorCode, r.Error
				rows = append(rows, row)
				continue
			}
			for _, it := range r.Iterations {
				row.Iteration, row.Status, row.ErrorKind, row.Error = it.N, it.Status, it.ErrorKind, it.Error
				row.TokensIn, row.TokensOut, row.DurationMS = it.InputTokens, it.OutputTokens, it.DurationMS
				rows = append(rows, row)
			}
		}
	}
	return rows, nil
}
