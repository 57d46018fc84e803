package wire

import (
	"time"

	"github.com/loopforge/loopforge/backend/event"
)

// RunStatus is a run's status as stored and as announced by run_finished
// (event.RunStatus: running, success, limit_reached, error, cancelled or
// interrupted).
type RunStatus = event.RunStatus

// SessionMode is how a session was started (event.SessionMode: script,
// workspace or compare).
type SessionMode = event.SessionMode

// IterationStatus is a stored iteration's status (event.IterationStatus:
// running, success or error).
type IterationStatus = event.IterationStatus

// SessionSummary is one line of the history list.
type SessionSummary struct {
	ID     string      `json:"id"`
	Title  string      `json:"title"`
	Prompt string      `json:"prompt"`
	Mode   SessionMode `json:"mode"`
	// Kind is what its runs work on: "script" or "workspace" (a
	// comparison has either; Mode says "compare").
	Kind      string    `json:"kind"`
	Workdir   string    `json:"workdir"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
	// Runs are in start order.
	Runs []RunBrief `json:"runs"`
	// A class session's class, student and the student's display name
	// (`loopforge class`); absent for every other session.
	ClassID     string `json:"class_id,omitempty"`
	StudentID   string `json:"student_id,omitempty"`
	StudentName string `json:"student_name,omitempty"`
}

// RunBrief is what the history list shows of a run.
type RunBrief struct {
	ID         string    `json:"id"`
	Provider   string    `json:"provider"`
	Status     RunStatus `json:"status"`
	Iterations int       `json:"iterations"`
}

// SessionDetail is a session with every run and every run's iterations.
type SessionDetail struct {
	ID     string      `json:"id"`
	Title  string      `json:"title"`
	Prompt string      `json:"prompt"`
	Mode   SessionMode `json:"mode"`
	// Kind is what its runs work on: "script" or "workspace" (a
	// comparison has either; Mode says "compare").
	Kind      string    `json:"kind"`
	Workdir   string    `json:"workdir"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
	// Runs are in start order.
	Runs []StoredRun `json:"runs"`
	// Iterations are keyed by run id.
	Iterations map[string][]StoredIteration `json:"iterations"`
	// Images are the pictures of the runs' iterations, by run id, in order.
	Images map[string][]StoredImage `json:"images"`
}

// StoredRun is one run of a stored session.
type StoredRun struct {
	ID        string `json:"id"`
	SessionID string `json:"session_id"`
	Provider  string `json:"provider"`
	Model     string `json:"model"`
	// Prompt is what this run answered (a follow-up's own prompt).
	Prompt string `json:"prompt"`
	// Stdin is what the run gave its code's standard input ("" = none).
	Stdin         string    `json:"stdin,omitempty"`
	Status        RunStatus `json:"status"`
	MaxIterations int       `json:"max_iterations"`
	Reflect       bool      `json:"reflect"`
	Language      string    `json:"language"`
	Iterations    int       `json:"iterations"`
	FinalCode     string    `json:"final_code"`
	Error         string    `json:"error"`
	// ErrorCode and ErrorParams name Error (service.Code; absent for runs
	// recorded before codes): the frontend shows it in its own words.
	ErrorCode    string            `json:"error_code,omitempty"`
	ErrorParams  map[string]string `json:"error_params,omitempty"`
	InputTokens  int               `json:"input_tokens"`
	OutputTokens int               `json:"output_tokens"`
	CostUSD      float64           `json:"cost_usd"`
	StartedAt    time.Time         `json:"started_at"`
	// FinishedAt is null while the run is running.
	FinishedAt *time.Time `json:"finished_at" tstype:"string | null"`
	DurationMS int64      `json:"duration_ms"`
	// Tests is the run's tests as YAML ("" = none; a student gets the
	// visible ones), TestsPassed of TestsTotal how its last judged program
	// fared (0 of 0: not judged).
	Tests       string `json:"tests,omitempty"`
	TestsPassed int    `json:"tests_passed,omitempty"`
	TestsTotal  int    `json:"tests_total,omitempty"`
}

// StoredIteration is one attempt of a stored run.
type StoredIteration struct {
	RunID string `json:"run_id"`
	N     int    `json:"n"`
	Code  string `json:"code"`
	// Content is the model's full answer.
	Content    string          `json:"content"`
	ExecStatus string          `json:"exec_status"`
	ExitCode   int             `json:"exit_code"`
	Stdout     string          `json:"stdout"`
	Stderr     string          `json:"stderr"`
	Truncated  bool            `json:"truncated"`
	ExecMS     int64           `json:"exec_ms"`
	Isolation  string          `json:"isolation"`
	Reflection string          `json:"reflection"`
	Status     IterationStatus `json:"status"`
	Summary    string          `json:"summary"`
}

// StoredImage names one picture a stored run's program left; the Image
// operation fetches it.
type StoredImage struct {
	RunID     string `json:"run_id"`
	Iteration int    `json:"iteration"`
	// Name is its path in the run dir: "figure-1.png", "out/chart.svg".
	Name   string `json:"name"`
	MIME   string `json:"mime"`
	Width  int    `json:"width"`
	Height int    `json:"height"`
	Size   int64  `json:"size"`
}

// ImageRef names one picture of a stored run: Image's input.
type ImageRef struct {
	RunID     string `json:"run_id" path:"run_id"`
	Iteration int    `json:"iteration" query:"iteration"`
	Name      string `json:"name" query:"name"`
}

// ImageData is one picture, ready for an <img src>: a data: URL of its
// checked type (never put into the page's DOM as markup, SVG included).
type ImageData struct {
	Name    string `json:"name"`
	MIME    string `json:"mime"`
	Width   int    `json:"width"`
	Height  int    `json:"height"`
	DataURL string `json:"data_url"`
}

// ComparisonRow is one run of a comparison session; a null number is
// unknown.
type ComparisonRow struct {
	RunID               string    `json:"run_id"`
	Provider            string    `json:"provider"`
	Model               string    `json:"model"`
	Status              RunStatus `json:"status"`
	Iterations          int       `json:"iterations"`
	IterationsToSuccess *int      `json:"iterations_to_success" tstype:"number | null"`
	WallMS              int64     `json:"wall_ms"`
	FirstTokenMS        *int64    `json:"first_token_ms" tstype:"number | null"`
	InputTokens         int       `json:"input_tokens"`
	OutputTokens        int       `json:"output_tokens"`
	// CostUSD is 0 when the provider reports none.
	CostUSD       float64 `json:"cost_usd"`
	LinesOfCode   int     `json:"lines_of_code"`
	FinalExitCode *int    `json:"final_exit_code" tstype:"number | null"`
	// TestsPassed of TestsTotal: the run's last judged program (0 of 0:
	// the comparison had no tests).
	TestsPassed int `json:"tests_passed,omitempty"`
	TestsTotal  int `json:"tests_total,omitempty"`
}

// Stats summarise the history, in total and per provider and model.
type Stats struct {
	Total  StatsGroup   `json:"total"`
	Groups []StatsGroup `json:"groups"`
}

// StatsGroup is the summary of one provider and model (both empty in the
// total).
type StatsGroup struct {
	Provider  string `json:"provider,omitempty"`
	Model     string `json:"model,omitempty"`
	Runs      int    `json:"runs"`
	Successes int    `json:"successes"`
	// Failures are runs that ended limit_reached, error or interrupted.
	Failures  int `json:"failures"`
	Cancelled int `json:"cancelled"`
	// ExecTimeouts are executions of generated code that hit the time limit.
	ExecTimeouts int `json:"exec_timeouts"`
	// SuccessRate is successes / runs.
	SuccessRate      float64 `json:"success_rate"`
	AvgDurationMS    int64   `json:"avg_duration_ms"`
	MedianDurationMS int64   `json:"median_duration_ms"`
	// AvgIterationsToSuccess is over successful runs only.
	AvgIterationsToSuccess float64 `json:"avg_iterations_to_success"`
	InputTokens            int     `json:"input_tokens"`
	OutputTokens           int     `json:"output_tokens"`
	CostUSD                float64 `json:"cost_usd"`
	// TestedRuns had tests; TestsPassed of TestsTotal add up their last
	// judged programs' tests.
	TestedRuns  int `json:"tested_runs,omitempty"`
	TestsPassed int `json:"tests_passed,omitempty"`
	TestsTotal  int `json:"tests_total,omitempty"`
}
