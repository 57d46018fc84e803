package export

import (
	"fmt"
	"strings"

	"github.com/loopforge/loopforge/backend/event"
	"github.com/loopforge/loopforge/backend/store"
)

// tests is how the tests judged iteration n of a run (its tested event),
// nil when they did not. Evidence of hidden tests is in it as the bundle
// holds it: a student's bundle has none (service.Bundle).
func (b *Bundle) tests(runID string, n int) *event.TestsPayload {
	for _, e := range b.Events[runID] {
		if e.Type != event.Tested {
			continue
		}
		var p event.TestsPayload
		if e.Decode(&p) == nil && p.Iteration == n {
			return &p
		}
	}
	return nil
}

// testsView is an iteration's tests in a handout: the count, a ✓/✗ per
// test, and what each failing one shows (a hidden one: its verdict only).
type testsView struct {
	Summary  string // "2/3 tests passed"
	Row      string // "✓✗✓"
	Failures []testFailView
}

type testFailView struct {
	Label    string // "Test 2 (sum): wrong answer"
	Evidence string // the diff, or the traceback or how it ended; "" for a hidden test
}

// failureEvidenceLines bounds what a handout quotes of one failing test.
const failureEvidenceLines, failureEvidenceBytes = 20, 2_000

func newTestsView(p *event.TestsPayload, l words) *testsView {
	if p == nil {
		return nil
	}
	v := &testsView{Summary: testsSummary(p.Passed, p.Total, l)}
	var row strings.Builder
	for _, r := range p.Results {
		if r.Verdict == event.VerdictPassed {
			row.WriteString("✓")
			continue
		}
		row.WriteString("✗")
		label := l.t("testN", r.Index)
		if r.Name != "" {
			label += " (" + oneLine(r.Name) + ")"
		}
		label += ": " + l.verdict(r.Verdict)
		f := testFailView{Label: label}
		switch {
		case r.Hidden:
			f.Label += " — " + l.t("hiddenTest")
		case r.Diff != "":
			f.Evidence = clip(r.Diff, failureEvidenceLines, failureEvidenceBytes, false, l)
		case r.Detail != "":
			f.Evidence = clip(r.Detail, failureEvidenceLines, failureEvidenceBytes, true, l)
		}
		v.Failures = append(v.Failures, f)
	}
	v.Row = row.String()
	return v
}

// testsSummary is "3/5 tests passed" in l.
func testsSummary(passed, total int, l words) string {
	return l.t("testsPassed", fmt.Sprint(passed), fmt.Sprint(total))
}

// runTests is a run's tests passed for its facts line, "" when it had none.
func runTests(r *store.Run, l words) string {
	if r.TestsTotal == 0 {
		return ""
	}
	return testsSummary(r.TestsPassed, r.TestsTotal, l)
}

// verdict words a test's verdict in l.
func (w words) verdict(v event.Verdict) string {
	if _, ok := texts["verdict."+string(v)]; ok {
		return w.t("verdict." + string(v))
	}
	return string(v)
}
