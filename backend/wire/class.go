package wire

// The classroom server (`loopforge class`): an instructor and the students who
// joined with the class's code. These types are the contract of its
// operations (backend/api) and of its websocket stream; see README "Teaching
// a class" for the behaviour.

// Role is who a request comes from.
type Role string

const (
	// RoleInstructor holds the server's token: every operation (the only
	// role of `loopforge serve` and of the desktop window).
	RoleInstructor Role = "instructor"
	// RoleStudent joined a class with its code: only the student
	// operations, only on its own sessions and runs.
	RoleStudent Role = "student"
)

// Me is who the caller is: every face asks first and shows the UI of its
// role. Class is nil outside class mode.
type Me struct {
	// Role is a Role; TypeScript reads it as a string because the Wails
	// bindings return one (compare with RoleInstructor / RoleStudent).
	Role Role `json:"role" tstype:"string"`
	// StudentID and Name: a student's own (empty for the instructor).
	StudentID string     `json:"student_id,omitempty"`
	Name      string     `json:"name,omitempty"`
	Class     *ClassView `json:"class,omitempty"`
}

// ClassView is what every member of a class sees of it. JoinCode and
// JoinURL are filled for the instructor only.
type ClassView struct {
	ID         string      `json:"id"`
	Name       string      `json:"name"`
	JoinCode   string      `json:"join_code,omitempty"`
	JoinURL    string      `json:"join_url,omitempty"`
	Paused     bool        `json:"paused"`
	Assignment *Assignment `json:"assignment,omitempty"`
	// Spotlight is the run on the stage ("" = none).
	Spotlight string `json:"spotlight,omitempty"`
	// Limits apply to each student; Usage is the caller's own (a student's)
	// or the class's total (the instructor's).
	Limits ClassLimits `json:"limits"`
	// IterationCap is the largest iteration limit a student's run may ask
	// for (the class's limit, else the server's): a student's open form
	// takes it as its cap at once (GET /api/defaults' max_iterations_limit
	// says the same).
	IterationCap int        `json:"iteration_cap"`
	Usage        ClassUsage `json:"usage"`
	// BudgetSince is when the budgets' window began (RFC 3339; "" = the
	// class's start: the window is the whole class).
	BudgetSince string `json:"budget_since,omitempty"`
}

// ClassLimits is what the instructor allows each student. Zero means "no
// limit" for the counts and budgets; empty Providers/Presets mean "all
// configured ones".
type ClassLimits struct {
	Providers []string `json:"providers"`
	Presets   []string `json:"presets"`
	// MaxIterations caps a student run's iteration limit.
	MaxIterations     int     `json:"max_iterations"`
	ConcurrentRuns    int     `json:"concurrent_runs"`
	RunsPerHour       int     `json:"runs_per_hour"`
	TokensPerStudent  int     `json:"tokens_per_student"`
	TokensForClass    int     `json:"tokens_for_class"`
	CostPerStudentUSD float64 `json:"cost_per_student_usd"`
	// ConcurrentExecutions caps the sandbox executions running at once over
	// the whole server (students and instructor); the others queue.
	ConcurrentExecutions int `json:"concurrent_executions"`
	// ScratchWorkspace gives each student a workspace folder of their own
	// (under the class's data directory) for workspace-mode runs; off = no
	// workspace mode for students.
	ScratchWorkspace bool `json:"scratch_workspace"`
	// BudgetWindow is what the token and cost budgets count: "class" (or
	// ""), "session" (since this `loopforge class` opened it), "day" (since
	// midnight) or "week" (since Monday), the server's time.
	BudgetWindow string `json:"budget_window"`
	// TokensPerIteration is what a student's run holds of the token
	// budgets per iteration from its start (0 = 5,000): runs that start
	// together cannot pass a budget together.
	TokensPerIteration int `json:"tokens_per_iteration"`
	// BudgetProfile, when set, is where a student's run goes when the
	// budgets have no room for it, instead of a refusal; the budgets do not
	// count its runs (a local or cheap profile).
	BudgetProfile string `json:"budget_profile"`
	// MaxStudentTests caps the tests a student may send with a run of
	// their own (each is one more execution per iteration); 0 = none may
	// be sent. An assignment's tests are not counted.
	MaxStudentTests int `json:"max_student_tests"`
}

// ClassUsage counts what has been spent. Tokens and CostUSD are all of it;
// the budget fields what the budgets count in their window (runs on the
// budget profile left out) and what running runs hold beyond their use.
type ClassUsage struct {
	Runs          int     `json:"runs"`
	RunningRuns   int     `json:"running_runs"`
	RunsLastHour  int     `json:"runs_last_hour"`
	Tokens        int     `json:"tokens"`
	CostUSD       float64 `json:"cost_usd"`
	BudgetTokens  int     `json:"budget_tokens"`
	BudgetHeld    int     `json:"budget_held"`
	BudgetCostUSD float64 `json:"budget_cost_usd"`
}

// Assignment is what the instructor pushes to every student: their run form
// is filled with it.
type Assignment struct {
	Title     string   `json:"title,omitempty"`
	Prompt    string   `json:"prompt"`
	Preset    string   `json:"preset,omitempty"`
	Providers []string `json:"providers,omitempty"`
	// MaxIterations, Language, TimeoutSeconds: 0/"" = the defaults.
	MaxIterations  int     `json:"max_iterations,omitempty"`
	Language       string  `json:"language,omitempty"`
	TimeoutSeconds float64 `json:"timeout_seconds,omitempty"`
	// Reflect: nil = the default.
	Reflect *bool `json:"reflect,omitempty"`
	// Tests (YAML, the format of a run's tests) judge every student's run
	// while the assignment is in force; a student cannot drop or replace
	// them. A student reads the visible ones only; HiddenTests says how
	// many more there are (set by the server).
	Tests       string `json:"tests,omitempty"`
	HiddenTests int    `json:"hidden_tests,omitempty"`
	// PromptOnly: a prompt problem. Prompt is the problem statement the
	// student reads; the student writes the prompt themselves, and the
	// tests judge the program it makes.
	PromptOnly bool `json:"prompt_only,omitempty"`
}

// JoinRequest is a student joining (POST /api/class/join, the one request
// without a token: it is rate-limited per client address). On success the
// server sets the student's cookie and answers with Me.
type JoinRequest struct {
	Code string `json:"code"`
	Name string `json:"name"`
}

// WallEntry is one student's line on the instructor's live wall.
type WallEntry struct {
	StudentID string `json:"student_id"`
	Name      string `json:"name"`
	JoinedAt  string `json:"joined_at"` // RFC 3339
	// Removed: the instructor removed this student (kept on the wall, greyed).
	Removed bool       `json:"removed,omitempty"`
	Current *WallRun   `json:"current,omitempty"` // the latest run, running or not
	Usage   ClassUsage `json:"usage"`
	// Best is the student's best run on the assignment in force (absent:
	// no assignment, or no run on it yet).
	Best *WallBest `json:"best,omitempty"`
}

// WallBest is a student's best run on the assignment in force: the most
// tests passed, then a success, then the fewest iterations.
type WallBest struct {
	RunID       string `json:"run_id"`
	TestsPassed int    `json:"tests_passed"`
	TestsTotal  int    `json:"tests_total"`
	Success     bool   `json:"success"`
	// Iterations it took to get there; PromptChars the prompt's length in
	// characters; Runs the student's runs on the assignment.
	Iterations  int `json:"iterations"`
	PromptChars int `json:"prompt_chars"`
	Runs        int `json:"runs"`
}

// WallRun is a student's latest run as the wall shows it.
type WallRun struct {
	RunID     string `json:"run_id"`
	SessionID string `json:"session_id"`
	Provider  string `json:"provider"`
	Model     string `json:"model,omitempty"`
	Status    string `json:"status"` // backend/event.RunStatus
	Iteration int    `json:"iteration"`
	MaxIter   int    `json:"max_iterations"`
	StartedAt string `json:"started_at"`         // RFC 3339
	EndedAt   string `json:"ended_at,omitempty"` // RFC 3339
	// QueuePosition > 0: the run's next execution waits behind this many.
	QueuePosition int `json:"queue_position,omitempty"`
	// QueueWaitMS estimates that wait (0: nothing to judge by yet).
	QueueWaitMS int64 `json:"queue_wait_ms,omitempty"`
	// BudgetFrom is the profile the class's budgets moved this run from,
	// to the budget profile ("" = not moved).
	BudgetFrom string `json:"budget_from,omitempty"`
	// ErrorCode and ErrorParams name why an ended run failed (a class
	// budget: class.quota.*), for the wall to word.
	ErrorCode   string            `json:"error_code,omitempty"`
	ErrorParams map[string]string `json:"error_params,omitempty"`
	// TestsPassed of TestsTotal: the run's last judged program, live.
	TestsPassed int `json:"tests_passed,omitempty"`
	TestsTotal  int `json:"tests_total,omitempty"`
	// PromptChars is the prompt's length in characters.
	PromptChars int `json:"prompt_chars,omitempty"`
}

// ClassSummary is one class in the history (GET /api/classes).
type ClassSummary struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	CreatedAt string `json:"created_at"`
	EndedAt   string `json:"ended_at,omitempty"`
	Students  int    `json:"students"`
	Runs      int    `json:"runs"`
}

// ClassDetail is a class as it was: its settings, its students' lines and
// their sessions (GET /api/classes/{id}).
type ClassDetail struct {
	Class    ClassView        `json:"class"`
	Students []WallEntry      `json:"students"`
	Sessions []SessionSummary `json:"sessions"`
}

// Spotlight puts one run on the stage ("" = none).
type Spotlight struct {
	RunID string `json:"run_id"`
}

// Pause stops (or lets again) students start runs; running ones go on.
type Pause struct {
	Paused bool `json:"paused"`
}

// StudentRef names a student (DELETE /api/class/students/{id}).
type StudentRef struct {
	ID string `json:"id" path:"id"`
}

// ClassRef names a class of the history.
type ClassRef struct {
	ID string `json:"id" path:"id"`
}

// The websocket's class stream: a client sends
// {"op":"subscribe_class"}; the server then sends envelopes
// {"type": ClassStateType, "payload": ClassView} whenever the class changes
// (assignment, pause, spotlight, limits) and, to the instructor only,
// {"type": WallType, "payload": WallEntry} whenever a student's line changes
// (joined, removed, a run started, an iteration began, a run ended, its
// queue position moved). Both come once on subscribing (the state now).
const (
	ClassStateType = "class_state"
	WallType       = "wall"
)
