package loop

import (
	"context"
	"fmt"

	"github.com/loopforge/loopforge/backend/event"
	"github.com/loopforge/loopforge/backend/judge"
	"github.com/loopforge/loopforge/backend/sandbox"
)

// test judges the iteration's program by the run's tests, one execution
// each through the run's executor (in a class, each waits for its slot as
// the program's own execution does), and records the results.
func (r *runner) test(ctx context.Context, it int, code string) (event.TestsPayload, error) {
	p, err := judge.Run(ctx, r.exec, r.execRequest(), code, r.set.Tests, it)
	if err != nil {
		return p, fmt.Errorf("running the tests: %w", err)
	}
	if err := r.send(event.Tested, p); err != nil {
		return p, err
	}
	return p, nil
}

// verdict is how one iteration's program fared: its own execution, and
// the tests when the run has some (then they alone decide).
type verdict struct {
	res   sandbox.Result
	tests *event.TestsPayload
}

func (v verdict) passed() bool {
	if v.tests != nil {
		return v.tests.AllPassed()
	}
	return v.res.Status == sandbox.StatusOK
}

// summary is the iteration_done line.
func (v verdict) summary() string {
	switch {
	case v.tests != nil:
		return fmt.Sprintf("%d/%d tests passed", v.tests.Passed, v.tests.Total)
	case v.passed():
		return "ran cleanly"
	}
	return v.res.Description()
}

// feedback is the message that tells the model how its program failed.
func (v verdict) feedback() string {
	if v.tests != nil {
		return testsFailedPrompt.render(testsData(*v.tests))
	}
	return execFailedPrompt.render(feedbackData(v.res))
}

// reflectData completes d with what went wrong.
func (v verdict) reflectData(d reflectData) reflectData {
	if v.tests != nil {
		t := testsData(*v.tests)
		d.Description, d.Tests = v.summary(), &t
		return d
	}
	f := feedbackData(v.res)
	d.Description, d.Stderr = f.Description, f.Stderr
	return d
}

// testsData is the evidence the model gets: everything of a visible test
// that failed, and only the verdict of a hidden one (its input, expected
// output and traceback would give the hidden test away).
func testsData(p event.TestsPayload) testsFeedback {
	d := testsFeedback{Passed: p.Passed, Total: p.Total}
	for _, t := range p.Results {
		if t.Verdict == event.VerdictPassed {
			continue
		}
		f := testFailure{Index: t.Index, Name: t.Name, Verdict: judge.English(t.Verdict), Hidden: t.Hidden,
			Assert: t.Kind == event.TestKindAssert}
		if !t.Hidden {
			f.Input, f.Expected, f.Actual, f.Detail = t.Input, t.Expected, t.Actual, t.Detail
		}
		d.Failures = append(d.Failures, f)
	}
	return d
}
