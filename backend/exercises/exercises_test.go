package exercises

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/loopforge/loopforge/backend/event"
	"github.com/loopforge/loopforge/backend/judge"
	"github.com/loopforge/loopforge/backend/sandbox"
)

func TestMain(m *testing.M) {
	sandbox.RunChildIfRequested() // the test binary doubles as the sandbox shim
	os.Exit(m.Run())
}

// Every exercise's tests are right: a reference solution passes all of
// them in the real sandbox, and a plausible wrong one fails at least one.
// Without this an exercise could ask for what its tests do not check.
func TestEveryExercisePassesItsSolutionAndFailsAWrongOne(t *testing.T) {
	x, err := sandbox.NewRunner(sandbox.Options{})
	if err != nil {
		t.Skipf("no sandbox here: %v", err)
	}
	all := All()
	if len(all) != len(order) || all[0].ID != "data-structures-pt" {
		t.Fatalf("presets %d, first %q", len(all), all[0].ID)
	}
	base := sandbox.Request{Language: "python", Limits: sandbox.Limits{Timeout: 20 * time.Second}}
	for _, p := range all {
		t.Run(p.ID, func(t *testing.T) {
			if p.Suite().Hidden() == 0 && p.ID != "data-structures-pt" && p.ID != "data-structures-en" {
				t.Errorf("a class exercise without a hidden test")
			}
			for _, c := range []struct {
				file string
				pass bool
			}{{p.ID + ".py", true}, {p.ID + ".wrong.py", false}} {
				code, err := os.ReadFile(filepath.Join("testdata", c.file))
				if err != nil {
					t.Fatal(err)
				}
				res, err := judge.Run(context.Background(), x, base, string(code), p.Suite(), 1)
				if err != nil {
					t.Fatal(err)
				}
				if res.AllPassed() != c.pass {
					for _, r := range res.Results {
						if r.Verdict != event.VerdictPassed {
							t.Logf("%s: test %d %s: %s %s", c.file, r.Index, r.Verdict, r.Diff, r.Detail)
						}
					}
					t.Errorf("%s: %d/%d passed, want all passed = %v", c.file, res.Passed, res.Total, c.pass)
				}
			}
		})
	}
}
