package service

import (
	"context"

	"github.com/loopforge/loopforge/backend/event"
	"github.com/loopforge/loopforge/backend/export"
	"github.com/loopforge/loopforge/backend/store"
)

// The class export's grade sheet (issue 25 item 4): per student and
// assignment, the best run's tests passed, the attempts and the time from
// the first run to the best, and the best run's verdict per test. A run
// belongs to the assignment in force when it started, as on the learning
// path; runs made without one are not graded.

// gradeRows is grades.csv and grade-tests.csv: every student (in join
// order) × every assignment some student ran (in the order they were
// given), so a gradebook sees a row for each student, attempts 0 included.
func (s *Service) gradeRows(ctx context.Context, rec *classRecord) ([]export.GradeRow, []export.GradeTestRow, error) {
	assigns, err := s.store.ClassAssignments(ctx, rec.class.ID)
	if err != nil {
		return nil, nil, err
	}
	owner := map[string]string{}
	for _, cs := range rec.sessions {
		owner[cs.ID] = cs.StudentID
	}
	type key struct{ student, assignment string }
	runsOf := map[key][]store.Run{}
	total := map[string]int{}
	used := map[string]bool{}
	for _, r := range rec.runs {
		name, st := assignmentAt(assigns, r.StartedAt), owner[r.SessionID]
		if name == "" || st == "" {
			continue
		}
		runsOf[key{st, name}] = append(runsOf[key{st, name}], r)
		total[name] = max(total[name], r.TestsTotal)
		used[name] = true
	}
	var names []string
	for _, a := range assigns {
		if n := assignmentName(a.Title, a.Prompt); used[n] {
			names = append(names, n)
			used[n] = false // each once, where it was first given
		}
	}
	var grades []export.GradeRow
	var tests []export.GradeTestRow
	for _, st := range rec.students {
		for _, name := range names {
			runs := runsOf[key{st.ID, name}]
			row := export.GradeRow{Student: st.Name, Assignment: name, TestsTotal: total[name], Attempts: len(runs)}
			best := bestRun(runs)
			if best == nil {
				grades = append(grades, row)
				continue
			}
			row.TestsPassed, row.BestStatus, row.BestRunID = best.TestsPassed, best.Status, best.ID
			if best.TestsTotal > 0 {
				row.TestsTotal = best.TestsTotal
			}
			if best.FinishedAt != nil {
				row.BestAfterMS = max(best.FinishedAt.Sub(runs[0].StartedAt).Milliseconds(), 1)
			}
			grades = append(grades, row)
			results, err := s.lastTested(ctx, best.ID)
			if err != nil {
				return nil, nil, err
			}
			for _, t := range results {
				tests = append(tests, export.GradeTestRow{Student: st.Name, Assignment: name, RunID: best.ID, Test: t.Index,
					Name: t.Name, Hidden: t.Hidden, Verdict: t.Verdict})
			}
		}
	}
	return grades, tests, nil
}

// bestRun is the wall's best among runs (in start order; nil for none):
// WallBest.better ranks both, so the sheet and the wall name the same run.
func bestRun(runs []store.Run) *store.Run {
	var best *store.Run
	var top *WallBest
	for i := range runs {
		if w := standing(wallRunOf(runs[i]), runs[i].ID); w.better(top) {
			best, top = &runs[i], &w
		}
	}
	return best
}

// standing is what ranks a run among a student's runs on an assignment.
func standing(w *WallRun, runID string) WallBest {
	return WallBest{RunID: runID, TestsPassed: w.TestsPassed, TestsTotal: w.TestsTotal, Success: w.Status == event.RunStatusSuccess,
		Iterations: w.Iteration, PromptChars: w.PromptChars}
}

// lastTested is the verdicts of a run's last judged program (those its
// tests_passed counts); nil when no program was judged.
func (s *Service) lastTested(ctx context.Context, runID string) ([]event.TestResult, error) {
	evs, err := s.store.RunSteps(ctx, runID)
	if err != nil {
		return nil, err
	}
	for i := len(evs) - 1; i >= 0; i-- {
		if evs[i].Type != event.Tested {
			continue
		}
		var p event.TestsPayload
		if err := evs[i].Decode(&p); err != nil {
			return nil, err
		}
		return p.Results, nil
	}
	return nil, nil
}
