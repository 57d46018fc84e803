package event

// Tests that judge a program (backend/judge): the verdicts, as teachers know
// them from judges such as Judge0 and CodeRunner, and one iteration's
// results. They live here so the frontend gets them as generated types.

// Verdict is how one test of a program ended.
type Verdict string

const (
	VerdictPassed       Verdict = "passed"        // the output matched (an assertion test: every assertion held)
	VerdictWrongAnswer  Verdict = "wrong_answer"  // it ran, but printed something else (or an assertion failed)
	VerdictRuntimeError Verdict = "runtime_error" // it crashed, or exited with a nonzero status, or flooded its output
	VerdictTimeLimit    Verdict = "time_limit"    // it did not finish within the test's time limit
	VerdictMemoryLimit  Verdict = "memory_limit"  // it ran out of memory
)

// TestKind says what a test checks.
type TestKind string

const (
	TestKindIO     TestKind = "io"     // stdin in, stdout compared with the expected text
	TestKindAssert TestKind = "assert" // Python assertions run against the program imported as a module
)

// TestResult is one test's verdict and its evidence. For a hidden test the
// evidence (Input, Expected, Actual, Diff, Detail) is for the instructor and
// the history only: Redacted drops it before a student sees the result.
type TestResult struct {
	Index  int      `json:"index"` // 1-based, in the suite's order
	Name   string   `json:"name,omitempty"`
	Kind   TestKind `json:"kind"`
	Hidden bool     `json:"hidden,omitempty"`
	// Redacted: this hidden test's evidence was removed for the reader.
	Redacted bool    `json:"redacted,omitempty"`
	Verdict  Verdict `json:"verdict"`
	// Match is how output was compared: exact, whitespace or number (IO tests).
	Match string `json:"match,omitempty"`
	// Input is the stdin given (an IO test) or the assertion code (assert).
	Input    string `json:"input,omitempty"`
	Expected string `json:"expected,omitempty"`
	Actual   string `json:"actual,omitempty"`
	// Diff is a unified diff from Expected to Actual (wrong answer, IO test).
	Diff string `json:"diff,omitempty"`
	// Detail explains a failure: the traceback or failed assertion, or how
	// the execution ended ("timed out after 2s").
	Detail     string `json:"detail,omitempty"`
	DurationMS int64  `json:"duration_ms"`
}

// TestsPayload is one iteration's test results.
type TestsPayload struct {
	Iteration int          `json:"iteration"`
	Passed    int          `json:"passed"`
	Total     int          `json:"total"`
	Results   []TestResult `json:"results"`
}

// AllPassed reports whether every test passed (and there was one).
func (p TestsPayload) AllPassed() bool { return p.Total > 0 && p.Passed == p.Total }

// Redacted is p as a reader who may not see hidden tests gets it (a
// student): each hidden test keeps its place, name and verdict, and loses
// its input, expected and actual output, diff and detail.
func (p TestsPayload) Redacted() TestsPayload {
	out := p
	out.Results = make([]TestResult, len(p.Results))
	for i, r := range p.Results {
		if r.Hidden {
			r = TestResult{Index: r.Index, Name: r.Name, Kind: r.Kind, Hidden: true, Redacted: true,
				Verdict: r.Verdict, Match: r.Match, DurationMS: r.DurationMS}
		}
		out.Results[i] = r
	}
	return out
}

// ForStudent is e as a reader who may not see hidden tests gets it: a
// tested event with its hidden tests' evidence removed; any other event
// unchanged. Every path that sends a student's events goes through it.
func ForStudent(e Event) Event {
	if e.Type != Tested {
		return e
	}
	var p TestsPayload
	if err := e.Decode(&p); err != nil {
		// Unreadable: send nothing of it rather than risk the evidence.
		e.Payload = []byte(`{}`)
		return e
	}
	r := New(Tested, p.Redacted())
	e.Payload = r.Payload
	return e
}
