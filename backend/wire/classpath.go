package wire

import "github.com/loopforge/loopforge/backend/service"

// A student's learning path (GET /api/class/students/{id}/path, the
// instructor's only): every run the student made in the class, in order,
// with its iterations. See service.LearningPath.

// PathRequest names the student, and the class (of the history) when it
// is not the open one.
type PathRequest struct {
	StudentID string `json:"id" path:"id"`
	ClassID   string `json:"class,omitempty" query:"class"`
}

// LearningPath is one student's path through a class.
type LearningPath struct {
	ClassID      string           `json:"class_id"`
	ClassName    string           `json:"class_name"`
	StudentID    string           `json:"student_id"`
	Name         string           `json:"name"`
	Removed      bool             `json:"removed,omitempty"`
	Runs         []PathRun        `json:"runs"`
	Assignments  []PathAssignment `json:"assignments"`
	InputTokens  int              `json:"input_tokens"`
	OutputTokens int              `json:"output_tokens"`
	CostUSD      float64          `json:"cost_usd"`
}

// PathAssignment is how the student did on one assignment ("" = runs made
// with none in force).
type PathAssignment struct {
	Assignment string `json:"assignment"`
	Runs       int    `json:"runs"`
	FirstRun   string `json:"first_run"` // RFC 3339
	// WorkingAfterMS: from the first run on it to the first program that
	// worked, across runs; 0 when none did.
	WorkingAfterMS int64 `json:"working_after_ms"`
}

// PathRun is one run on the path.
type PathRun struct {
	RunID        string `json:"run_id"`
	SessionID    string `json:"session_id"`
	SessionTitle string `json:"session_title"`
	// Assignment in force when the run started ("" = none).
	Assignment   string  `json:"assignment"`
	Prompt       string  `json:"prompt"`
	Provider     string  `json:"provider"`
	Model        string  `json:"model,omitempty"`
	Status       string  `json:"status"` // backend/event.RunStatus
	Error        string  `json:"error,omitempty"`
	ErrorCode    string  `json:"error_code,omitempty"`
	StartedAt    string  `json:"started_at"`         // RFC 3339
	EndedAt      string  `json:"ended_at,omitempty"` // RFC 3339
	InputTokens  int     `json:"input_tokens"`
	OutputTokens int     `json:"output_tokens"`
	CostUSD      float64 `json:"cost_usd"`
	// WorkingAfterMS: from the run's start to the end of the iteration
	// whose program worked; 0 when none did.
	WorkingAfterMS int64           `json:"working_after_ms"`
	Iterations     []PathIteration `json:"iterations"`
}

// PathIteration is one iteration of a run on the path.
type PathIteration struct {
	N int `json:"n"`
	// Status: success, error, running, or the run's status for the
	// iteration it ended in (cancelled, interrupted, error).
	Status string `json:"status"`
	// ErrorKind: an exec status (error, timeout, memory…), "format" (no
	// usable code in the answer), or the run's error code; "" when it
	// worked.
	ErrorKind    string `json:"error_kind,omitempty"`
	Error        string `json:"error,omitempty"` // its first line
	Code         string `json:"code"`
	Reflection   string `json:"reflection,omitempty"`
	InputTokens  int    `json:"input_tokens"`         // generation and reflection
	OutputTokens int    `json:"output_tokens"`        // generation and reflection
	StartedAt    string `json:"started_at,omitempty"` // RFC 3339
	// DurationMS: to the next iteration's start (or the run's end); 0 while
	// it goes on.
	DurationMS int64 `json:"duration_ms"`
	// TestsPassed of TestsTotal: this iteration's program judged by the
	// run's tests (0 of 0: no tests, or not judged).
	TestsPassed int `json:"tests_passed,omitempty"`
	TestsTotal  int `json:"tests_total,omitempty"`
}

// FromLearningPath converts a student's path.
func FromLearningPath(p service.LearningPath) LearningPath {
	return LearningPath{ClassID: p.ClassID, ClassName: p.ClassName, StudentID: p.StudentID, Name: p.Name, Removed: p.Removed,
		Runs: each(p.Runs, fromPathRun), Assignments: each(p.Assignments, fromPathAssignment),
		InputTokens: p.InputTokens, OutputTokens: p.OutputTokens, CostUSD: p.CostUSD}
}

func fromPathAssignment(a service.PathAssignment) PathAssignment {
	return PathAssignment{Assignment: a.Assignment, Runs: a.Runs, FirstRun: rfc3339(a.FirstRun), WorkingAfterMS: a.WorkingAfterMS}
}

func fromPathRun(r service.PathRun) PathRun {
	out := PathRun{RunID: r.RunID, SessionID: r.SessionID, SessionTitle: r.SessionTitle, Assignment: r.Assignment, Prompt: r.Prompt,
		Provider: r.Provider, Model: r.Model, Status: string(r.Status), Error: r.Error, ErrorCode: r.ErrorCode,
		StartedAt: rfc3339(r.StartedAt), InputTokens: r.InputTokens, OutputTokens: r.OutputTokens, CostUSD: r.CostUSD,
		WorkingAfterMS: r.WorkingAfterMS, Iterations: each(r.Iterations, fromPathIteration)}
	if r.EndedAt != nil {
		out.EndedAt = rfc3339(*r.EndedAt)
	}
	return out
}

func fromPathIteration(it service.PathIteration) PathIteration {
	out := PathIteration{N: it.N, Status: it.Status, ErrorKind: it.ErrorKind, Error: it.Error, Code: it.Code, Reflection: it.Reflection,
		InputTokens: it.InputTokens, OutputTokens: it.OutputTokens, DurationMS: it.DurationMS,
		TestsPassed: it.TestsPassed, TestsTotal: it.TestsTotal}
	if !it.StartedAt.IsZero() {
		out.StartedAt = rfc3339(it.StartedAt)
	}
	return out
}
