package service

import (
	"context"
	"testing"
	"time"

	"github.com/loopforge/loopforge/backend/testwait"
)

// TestWallAndGradeSheetPickTheSameBest: the wall's best and the grade
// sheet's best run are one ranking over what each run stands at (its last
// judged program). They used to differ: on a tie the sheet took the earlier
// run where the wall took the one with fewer iterations (Ana), and the wall
// kept a run's best iteration where the sheet counted its last (Bia).
func TestWallAndGradeSheetPickTheSameBest(t *testing.T) {
	needSandbox(t)
	const wrong = "print(0)"
	// Answers in order: Ana's two runs, then Bia's two.
	svc := classService(t, &echoModel{answers: []string{wrong, smallProgram, smallProgram, smallProgram, wrong, wrong}}, nil)
	v := openClass(t, svc, ClassLimits{MaxStudentTests: 5})
	ana, _ := joinAs(t, svc, v.JoinCode, "Ana")
	bia, _ := joinAs(t, svc, v.JoinCode, "Bia")
	if _, err := svc.Assign(context.Background(), Assignment{Title: "Soma", Prompt: "Sum.", Tests: promptProblem, PromptOnly: true}); err != nil {
		t.Fatal(err)
	}
	run := func(who context.Context, iterations int) string {
		t.Helper()
		info, err := svc.StartRun(who, RunRequest{Prompt: "sum", Provider: "fake", MaxIterations: iterations})
		if err != nil {
			t.Fatal(err)
		}
		waitRun(t, svc, info.RunID)
		return info.RunID
	}
	// Ana: 0/2 then 1/2 in two iterations, then 1/2 at once.
	run(ana, 2)
	anaBest := run(ana, 1)
	// Bia: 1/2 then 0/2 (the run ends at 0/2), then 0/2 at once.
	run(bia, 2)
	biaBest := run(bia, 1)

	want := map[string]string{"Ana": anaBest, "Bia": biaBest}
	testwait.Until(t, "the wall's bests", time.Minute, func() bool {
		wall, err := svc.Wall(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range wall {
			if e.Best == nil || e.Best.RunID != want[e.Name] || e.Best.Runs != 2 {
				return false
			}
		}
		return len(wall) == 2
	})
	_, data, err := svc.ExportClass(context.Background(), "", "grades", "en", "UTC")
	if err != nil {
		t.Fatal(err)
	}
	grades := readCSV(t, data)
	if len(grades) != 3 {
		t.Fatalf("grade sheet: %q", grades)
	}
	for _, row := range grades[1:] {
		if row[8] != want[row[0]] {
			t.Errorf("%s's best on the grade sheet: %s, on the wall %s (row %q)", row[0], row[8], want[row[0]], row)
		}
	}
}
