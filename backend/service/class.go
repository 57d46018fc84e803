package service

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/loopforge/loopforge/backend/access"
	"github.com/loopforge/loopforge/backend/config"
	"github.com/loopforge/loopforge/backend/event"
	"github.com/loopforge/loopforge/backend/judge"
	"github.com/loopforge/loopforge/backend/store"
)

// The classroom (`loopforge class`): one class open in this process, the
// students who joined it with its code, their limits and usage, the wall
// the instructor watches, and the execution queue every run shares. The
// caller of each operation comes from the context (backend/access); see
// README "Teaching a class".

var (
	// ErrNoClass: a class operation outside class mode.
	ErrNoClass = errors.New("not in class mode")
	// ErrClassPaused: a student's run while the instructor paused the class.
	ErrClassPaused = errors.New("The class is paused by the instructor") //nolint:staticcheck // ST1005: a sentence the API answers
	// ErrForbidden: the caller may not do this.
	ErrForbidden = errors.New("not allowed")
	// ErrWrongCode: a join with a code that is not the class's.
	ErrWrongCode = fmt.Errorf("%w: wrong class code", ErrForbidden)
	// ErrNotAStudent: a student token that is unknown, of another class, or
	// of a removed student.
	ErrNotAStudent = errors.New("not a student of this class")
)

// QuotaError is a run refused (or stopped) by a class limit. Its message
// names the limit, in English; Code and Params name it for a face that
// words it itself (CodeQuota*). RetryAt, when set, is when it will be
// possible again.
type QuotaError struct {
	Limit   string // concurrent_runs, runs_per_hour, tokens_per_student, tokens_for_class, cost_per_student_usd
	Msg     string
	RetryAt time.Time
	Code    Code
	Params  map[string]string
}

func (e *QuotaError) Error() string { return e.Msg }

// ClassLimits is what the instructor allows each student (see
// wire.ClassLimits; zero = no limit, empty lists = everything configured).
// A new class starts with DefaultClassLimits.
type ClassLimits struct {
	Providers            []string `json:"providers"`
	Presets              []string `json:"presets"`
	MaxIterations        int      `json:"max_iterations"`
	ConcurrentRuns       int      `json:"concurrent_runs"`
	RunsPerHour          int      `json:"runs_per_hour"`
	TokensPerStudent     int      `json:"tokens_per_student"`
	TokensForClass       int      `json:"tokens_for_class"`
	CostPerStudentUSD    float64  `json:"cost_per_student_usd"`
	ConcurrentExecutions int      `json:"concurrent_executions"`
	ScratchWorkspace     bool     `json:"scratch_workspace"`
	// BudgetWindow is what the token and cost budgets count: the whole
	// class ("" or WindowClass), this session of it, a day or a week.
	BudgetWindow string `json:"budget_window"`
	// TokensPerIteration is what a student's run holds of the budgets per
	// iteration from its start (0 = DefaultTokensPerIteration).
	TokensPerIteration int `json:"tokens_per_iteration"`
	// BudgetProfile, when set, is where a student's run goes when their
	// budget (or the class's) has no room for it, instead of a refusal: a
	// local or cheap profile, whose runs the budgets do not count.
	BudgetProfile string `json:"budget_profile"`
	// MaxStudentTests caps the tests a student may send with a run of their
	// own: each is one more execution per iteration, all waiting for the
	// class's sandbox slots. Unlike the other limits, 0 means none may be
	// sent (not "no limit"); a new class starts with
	// DefaultMaxStudentTests. An assignment's tests are not counted.
	MaxStudentTests int `json:"max_student_tests"`
}

// DefaultMaxStudentTests: a handful of a student's own tests, so a run
// costs at most 6 executions an iteration instead of judge.MaxTests+1 = 51.
const DefaultMaxStudentTests = 5

// DefaultClassLimits are what a new class starts with, so an instructor who
// hands out the code without opening the limits form does not pay for a
// student's 50-iteration run. The sizes, for a loop whose iteration is a
// generation and a reflection of about 2–3k tokens each (prompt, last code
// and its error in; code out):
//   - 5 iterations: the run form's own default; a program that has not
//     worked by then needs a better prompt, not more calls. Worst run ≈ 25k
//     tokens.
//   - 2 runs at a time: a comparison of two providers (one click, two
//     runs) still works; more tabs multiply the spending, not the
//     learning. (1 would refuse every comparison.)
//   - 20 runs an hour: one every 3 minutes through a lesson.
//   - 150k tokens per student: 6 worst-case runs, 15–20 typical ones (1–2
//     iterations); about US$1 at a mid-priced model's US$6 per million.
//   - 3M tokens for the class: 30 students at 100k, about US$18 there (much
//     less on a cheap model, nothing on a local one).
//
// The instructor changes any of them in the Class tab; --resume keeps a
// class's own.
func DefaultClassLimits() ClassLimits {
	return ClassLimits{Providers: []string{}, Presets: []string{}, MaxIterations: 5, ConcurrentRuns: 2,
		RunsPerHour: 20, TokensPerStudent: 150_000, TokensForClass: 3_000_000, MaxStudentTests: DefaultMaxStudentTests}
}

// Summary says the limits in one English line for the terminal, e.g. "5
// iterations a run, 2 runs at a time, 20 runs an hour"; "none" when
// nothing is limited.
func (l ClassLimits) Summary() string {
	var out []string
	add := func(n int, format string) {
		if n > 0 {
			out = append(out, fmt.Sprintf(format, thousands(n)))
		}
	}
	add(l.MaxIterations, "%s iterations a run")
	add(l.ConcurrentRuns, "%s runs at a time")
	add(l.RunsPerHour, "%s runs an hour")
	// 0 student tests is a refusal, not "no limit", but left out like the
	// rest: the line says what a student may use.
	add(l.MaxStudentTests, "%s student tests a run")
	add(l.TokensPerStudent, "%s tokens a student")
	add(l.TokensForClass, "%s tokens for the class")
	if l.BudgetWindow != "" && l.BudgetWindow != WindowClass && (l.TokensPerStudent > 0 || l.TokensForClass > 0 || l.CostPerStudentUSD > 0) {
		out = append(out, "budgets per "+l.BudgetWindow)
	}
	if l.CostPerStudentUSD > 0 {
		out = append(out, fmt.Sprintf("US$%.2f a student", l.CostPerStudentUSD))
	}
	if len(l.Providers) > 0 {
		out = append(out, "providers "+strings.Join(l.Providers, ", "))
	}
	if l.BudgetProfile != "" {
		out = append(out, "then "+l.BudgetProfile)
	}
	if len(out) == 0 {
		return "none"
	}
	return strings.Join(out, ", ")
}

// StudentPromptBytes caps a student's prompt (16 KiB, some 4k tokens: an
// exercise statement fits many times over) unless the class's assignment is
// longer. Every iteration sends the prompt again, so its size multiplies
// the spending.
const StudentPromptBytes = 16 << 10

// Assignment is what the instructor pushes to every student's form.
type Assignment struct {
	Title          string   `json:"title,omitempty"`
	Prompt         string   `json:"prompt"`
	Preset         string   `json:"preset,omitempty"`
	Providers      []string `json:"providers,omitempty"`
	MaxIterations  int      `json:"max_iterations,omitempty"`
	Language       string   `json:"language,omitempty"`
	TimeoutSeconds float64  `json:"timeout_seconds,omitempty"`
	Reflect        *bool    `json:"reflect,omitempty"`
	// Tests (YAML, backend/judge's format) judge every student's run while
	// the assignment is in force: the server puts them on the run, and a
	// student cannot replace or drop them. A student reads the visible
	// ones only (view), and HiddenTests says how many more there are.
	Tests string `json:"tests,omitempty"`
	// PromptOnly is a prompt problem (Denny et al., "Prompt Problems"):
	// Prompt is the problem statement the student reads, not a prompt put
	// in their form; the student writes the prompt, and the tests judge the
	// program it makes.
	PromptOnly bool `json:"prompt_only,omitempty"`
	// HiddenTests is how many of Tests are hidden (filled when read, not
	// stored).
	HiddenTests int `json:"-"`
}

// suite is the assignment's tests (nil for none). They were checked when
// the instructor pushed them; a stored one that no longer parses is an
// error, so no student's run goes unjudged by mistake.
func (a *Assignment) suite() (*judge.Suite, error) {
	if a == nil || strings.TrimSpace(a.Tests) == "" {
		return nil, nil
	}
	return judge.Parse([]byte(a.Tests))
}

// forStudent is a as a student reads it: its visible tests only, and how
// many are hidden.
func (a Assignment) forStudent() Assignment {
	suite, err := a.suite()
	if err != nil {
		a.Tests = ""
		return a
	}
	a.HiddenTests = suite.Hidden()
	a.Tests = suite.Visible().YAML()
	return a
}

// ClassUsage counts what has been spent. Tokens and CostUSD are all of
// it; the Budget fields what the budgets count in their window (runs on
// the budget profile left out), BudgetHeld what running runs hold beyond
// what they used.
type ClassUsage struct {
	Runs          int
	RunningRuns   int
	RunsLastHour  int
	Tokens        int
	CostUSD       float64
	BudgetTokens  int
	BudgetHeld    int
	BudgetCostUSD float64
}

// ClassView is a class as one caller sees it: JoinCode and JoinURL for the
// instructor only; Usage the caller's own (a student) or the class's.
type ClassView struct {
	ID, Name          string
	JoinCode, JoinURL string
	Paused            bool
	Assignment        *Assignment
	Spotlight         string
	Limits            ClassLimits
	// IterationCap is the largest iteration limit a student's run may ask
	// for: the class's limit, else the server's (config.MaxIterationsLimit).
	// A student's open form lowers (or raises) its cap to it when it changes.
	IterationCap int
	Usage        ClassUsage
	// BudgetSince is when the budgets' window began (zero: the class's
	// start).
	BudgetSince time.Time
	CreatedAt   time.Time
	EndedAt     *time.Time
}

// Me is who the caller is.
type Me struct {
	Role      access.Role
	StudentID string
	Name      string
	Class     *ClassView
}

// WallRun is a student's latest run on the wall.
type WallRun struct {
	RunID, SessionID string
	Provider, Model  string
	Status           event.RunStatus
	Iteration        int
	MaxIter          int
	StartedAt        time.Time
	EndedAt          *time.Time
	QueuePosition    int
	// QueueWait estimates the wait for the run's queued execution.
	QueueWait time.Duration
	// BudgetFrom is the profile the run was moved from to the class's
	// budget profile ("" = not moved).
	BudgetFrom string
	// ErrorCode and ErrorParams name why an ended run failed (a budget).
	ErrorCode   string
	ErrorParams map[string]string
	// TestsPassed of TestsTotal: the run's last judged program (0 of 0: no
	// tests, or none judged yet), live as its iterations are judged.
	TestsPassed, TestsTotal int
	// PromptChars is the length of the run's prompt, in characters.
	PromptChars int
}

// WallBest is a student's best run on the assignment in force: the most
// tests passed, then a success, then the fewest iterations (the earlier
// run on a tie). The grade sheet picks its best run the same way (bestRun).
type WallBest struct {
	RunID                   string
	TestsPassed, TestsTotal int
	Success                 bool
	Iterations              int
	PromptChars             int
	// Runs is how many runs the student made on the assignment.
	Runs int
}

// better reports whether a run that reached w beats b.
func (w WallBest) better(b *WallBest) bool {
	switch {
	case b == nil:
		return true
	case w.TestsPassed != b.TestsPassed:
		return w.TestsPassed > b.TestsPassed
	case w.Success != b.Success:
		return w.Success
	}
	return w.Iterations < b.Iterations
}

// WallEntry is one student's line on the wall.
type WallEntry struct {
	StudentID string
	Name      string
	JoinedAt  time.Time
	Removed   bool
	Current   *WallRun
	Usage     ClassUsage
	// Best is the student's best run on the assignment in force (nil: no
	// assignment, or no run on it yet).
	Best *WallBest
}

// ClassOptions open a class (OpenClass).
type ClassOptions struct {
	Name string
	// Resume reopens this stored class: same id and students, a new code.
	Resume string
	// JoinURL is where students join (shown to the instructor).
	JoinURL string
}

// classroom is the open class. mu guards everything below it; the store
// is written with mu released where a write may wait (joins, settings).
type classroom struct {
	s       *Service
	hub     *classHub
	queue   *execQueue
	joinURL string

	mu      sync.Mutex
	row     store.Class
	opened  time.Time // this process opened (or resumed) it: WindowSession
	limits  ClassLimits
	assign  *Assignment
	code    string // normalised (joinCodeLen characters, no dash)
	members map[string]*member
	order   []string          // student ids in join order
	byHash  map[string]string // token hash → student id
	ended   bool
	// assignGen counts the assignments pushed: a run belongs to the one
	// in force when it started (its classRun.gen).
	assignGen int
}

// member is one student and what the class knows of its runs.
type member struct {
	st   store.Student
	gone chan struct{} // closed on removal: its sockets close
	// runs counts every run started; starts are those of the last hour.
	runs    int
	starts  []time.Time
	pending int // admitted, not yet registered as running
	// pendingTokens are what those runs hold of the budgets.
	pendingTokens int
	active        map[string]*classRun
	// spent is what finished runs spent (sums: its cached window sums);
	// active runs add their own.
	spent   []spend
	sums    spentSums
	current *WallRun
	// best is the student's best run on the assignment in force, onAssign
	// where each run made on it stands now (in start order).
	best     *WallBest
	onAssign []WallBest
}

// classRun is one active run of a student.
type classRun struct {
	tokens int     // used so far, metered as they stream
	cost   float64 // reported so far
	hold   int     // set aside of the budgets when it started
	free   bool    // on the budget profile: not held to the budgets
	wall   *WallRun
	gen    int // the assignment in force when it started (classroom.assignGen)
}

// classOf returns the open class, or nil.
func (s *Service) classOf() *classroom {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.class
}

// InClass reports whether a class is open.
func (s *Service) InClass() bool { return s.classOf() != nil }

// joinAlphabet has no 0/O, 1/I/L: a code read off a projector is typed right.
const (
	joinAlphabet = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"
	joinCodeLen  = 6
)

func newJoinCode() string {
	b := make([]byte, joinCodeLen)
	_, _ = rand.Read(b)
	for i := range b {
		b[i] = joinAlphabet[int(b[i])%len(joinAlphabet)]
	}
	return string(b)
}

// normaliseCode reads a typed code: case ignored, dashes and spaces dropped.
func normaliseCode(c string) string {
	return strings.Map(func(r rune) rune {
		if r == '-' || unicode.IsSpace(r) {
			return -1
		}
		return unicode.ToUpper(r)
	}, c)
}

// GroupCode shows a code as two groups of three: K7Q-X2M.
func GroupCode(c string) string {
	if len(c) != joinCodeLen {
		return c
	}
	return c[:3] + "-" + c[3:]
}

func hashToken(tok string) string {
	h := sha256.Sum256([]byte(tok))
	return hex.EncodeToString(h[:])
}

// OpenClass starts class mode: a new class, or the stored one o.Resume
// names (its students and their usage come back; the code is new).
func (s *Service) OpenClass(ctx context.Context, o ClassOptions) (ClassView, error) {
	if s.classOf() != nil {
		return ClassView{}, &Error{Code: CodeClassOpen, Err: fmt.Errorf("%w: a class is already open", ErrInvalidRequest)}
	}
	cr := &classroom{s: s, hub: newClassHub(), joinURL: o.JoinURL, code: newJoinCode(), opened: time.Now(),
		members: map[string]*member{}, byHash: map[string]string{}}
	if o.Resume != "" {
		row, err := s.store.GetClass(ctx, o.Resume)
		if err != nil {
			return ClassView{}, fmt.Errorf("class %s: %w", o.Resume, err)
		}
		cr.row = *row
		cr.row.EndedAt = nil
		if o.Name != "" {
			cr.row.Name = o.Name
		}
		if err := cr.load(ctx); err != nil {
			return ClassView{}, err
		}
		if err := s.store.UpdateClass(ctx, &cr.row); err != nil {
			return ClassView{}, err
		}
	} else {
		name := strings.TrimSpace(o.Name)
		if name == "" {
			name = "Class of " + time.Now().Format("2006-01-02 15:04")
		}
		cr.limits = DefaultClassLimits()
		b, _ := json.Marshal(cr.limits)
		cr.row = store.Class{Name: name, Limits: string(b)}
		if err := s.store.CreateClass(ctx, &cr.row); err != nil {
			return ClassView{}, err
		}
	}
	cr.queue = newExecQueue(cr.limits.executions())
	s.mu.Lock()
	s.class = cr
	s.mu.Unlock()
	return cr.view(access.Caller{Role: access.Instructor}), nil
}

// load reads a stored class's settings, students and usage.
func (cr *classroom) load(ctx context.Context) error {
	if err := json.Unmarshal([]byte(cr.row.Limits), &cr.limits); err != nil {
		return fmt.Errorf("class %s: its limits: %w", cr.row.ID, err)
	}
	if cr.row.Assignment != "" {
		cr.assign = &Assignment{}
		if err := json.Unmarshal([]byte(cr.row.Assignment), cr.assign); err != nil {
			return fmt.Errorf("class %s: its assignment: %w", cr.row.ID, err)
		}
	}
	sts, err := cr.s.store.ListStudents(ctx, cr.row.ID)
	if err != nil {
		return err
	}
	for _, st := range sts {
		cr.addMember(st)
	}
	sessions, err := cr.s.store.ClassSessions(ctx, cr.row.ID)
	if err != nil {
		return err
	}
	owner := map[string]string{}
	for _, cs := range sessions {
		owner[cs.ID] = cs.StudentID
	}
	runs, err := cr.s.store.ClassRuns(ctx, cr.row.ID)
	if err != nil {
		return err
	}
	var assignedAt time.Time // when the assignment in force was given
	if cr.assign != nil {
		assigns, err := cr.s.store.ClassAssignments(ctx, cr.row.ID)
		if err != nil {
			return err
		}
		if len(assigns) > 0 {
			assignedAt = assigns[len(assigns)-1].SetAt
		}
	}
	hourAgo := time.Now().Add(-time.Hour)
	for _, r := range runs {
		m := cr.members[owner[r.SessionID]]
		if m == nil {
			continue
		}
		if cr.assign != nil && !r.StartedAt.Before(assignedAt) {
			m.bestOf(wallRunOf(r), r.ID)
		}
		m.runs++
		m.spent = append(m.spent, spend{at: r.StartedAt, tokens: r.InputTokens + r.OutputTokens, cost: r.CostUSD,
			free: r.Provider == cr.limits.BudgetProfile && cr.limits.BudgetProfile != ""})
		if r.StartedAt.After(hourAgo) {
			m.starts = append(m.starts, r.StartedAt)
		}
		m.current = wallRunOf(r)
	}
	return nil
}

func wallRunOf(r store.Run) *WallRun {
	return &WallRun{RunID: r.ID, SessionID: r.SessionID, Provider: r.Provider, Model: r.Model, Status: r.Status,
		Iteration: r.Iterations, MaxIter: r.MaxIterations, StartedAt: r.StartedAt, EndedAt: r.FinishedAt,
		ErrorCode: r.ErrorCode, ErrorParams: r.ErrorParams, TestsPassed: r.TestsPassed, TestsTotal: r.TestsTotal,
		PromptChars: utf8.RuneCountInString(r.Prompt)}
}

// bestOf counts a run on the assignment in force (each run id once) with
// what it stands at now (its last judged program, as the history and the
// grade sheet count it) and picks the student's best again. cr.mu is held
// (or cr is not shared yet).
func (m *member) bestOf(w *WallRun, runID string) {
	now := standing(w, runID)
	if i := slices.IndexFunc(m.onAssign, func(b WallBest) bool { return b.RunID == runID }); i >= 0 {
		m.onAssign[i] = now
	} else {
		m.onAssign = append(m.onAssign, now)
	}
	m.best = nil
	for i := range m.onAssign {
		if m.onAssign[i].better(m.best) {
			b := m.onAssign[i]
			m.best = &b
		}
	}
	m.best.Runs = len(m.onAssign)
}

func (cr *classroom) addMember(st store.Student) *member {
	m := &member{st: st, gone: make(chan struct{}), active: map[string]*classRun{}}
	if st.RemovedAt != nil {
		close(m.gone)
	}
	cr.members[st.ID] = m
	cr.order = append(cr.order, st.ID)
	cr.byHash[st.TokenHash] = st.ID
	return m
}

// EndClass records the class's end (Ctrl-C on `loopforge class`).
func (s *Service) EndClass(ctx context.Context) error {
	cr := s.classOf()
	if cr == nil {
		return nil
	}
	cr.mu.Lock()
	end := time.Now().UTC()
	cr.row.EndedAt, cr.ended = &end, true
	row := cr.row
	cr.mu.Unlock()
	return s.store.UpdateClass(ctx, &row)
}

// iterationCap is the largest iteration limit a student's run may ask for.
func (l ClassLimits) iterationCap() int {
	if l.MaxIterations > 0 {
		return min(l.MaxIterations, config.MaxIterationsLimit)
	}
	return config.MaxIterationsLimit
}

// executionsPerCPU is how many executions the queue lets run at once per
// CPU when the class does not say. A slot is mostly waiting, not computing:
// the interpreter was started outside it (a warm sandbox), and what holds
// the slot is the hand-over, a class's short program and the sandbox's
// end. In `go run ./bench/classload -students 40 -runs 2` on 2 busy cores a
// slot was held ~250 ms for a program bare python runs in ~15 ms of CPU:
// with one slot per CPU the burst took 1.8x the same programs run bare two
// at a time, with two per CPU 1.1x. A CPU-bound program still gets at least
// half a core.
const executionsPerCPU = 2

func (l ClassLimits) executions() int {
	if l.ConcurrentExecutions > 0 {
		return l.ConcurrentExecutions
	}
	return executionsPerCPU * runtime.NumCPU()
}

// Join adds a student to the open class: code must be the class's, name
// 1–40 printable characters (a name taken gets " (2)"). It returns the
// student as Me and the token of its cookie.
func (s *Service) Join(ctx context.Context, code, name string) (Me, string, error) {
	cr := s.classOf()
	if cr == nil {
		return Me{}, "", ErrNoClass
	}
	name = strings.TrimSpace(name)
	if n := utf8.RuneCountInString(name); n < 1 || n > 40 || strings.ContainsFunc(name, func(r rune) bool { return !unicode.IsPrint(r) }) {
		return Me{}, "", invalid(CodeStudentName, map[string]string{"max": "40"}, "a name is 1 to 40 printable characters")
	}
	cr.mu.Lock()
	ok := normaliseCode(code) == cr.code && !cr.ended
	cr.mu.Unlock()
	if !ok {
		return Me{}, "", ErrWrongCode
	}
	tok := newStudentToken()
	st := store.Student{ClassID: cr.row.ID, TokenHash: hashToken(tok)}
	// The name is chosen and the row written under mu, so two students
	// joining as "Ana" at once get "Ana" and "Ana (2)".
	cr.mu.Lock()
	st.Name = cr.freeName(name)
	if err := s.store.AddStudent(ctx, &st); err != nil {
		cr.mu.Unlock()
		return Me{}, "", err
	}
	cr.addMember(st)
	cr.mu.Unlock()
	cr.hub.studentChanged(st.ID)
	caller := access.Caller{Role: access.Student, StudentID: st.ID, ClassID: cr.row.ID}
	me, err := s.Me(access.With(ctx, caller))
	return me, tok, err
}

func newStudentToken() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// freeName returns name, or name (2), (3)… when a present student has it;
// cr.mu is held.
func (cr *classroom) freeName(name string) string {
	taken := map[string]bool{}
	for _, m := range cr.members {
		if m.st.RemovedAt == nil {
			taken[strings.ToLower(m.st.Name)] = true
		}
	}
	cand := name
	for i := 2; taken[strings.ToLower(cand)]; i++ {
		cand = fmt.Sprintf("%s (%d)", name, i)
	}
	return cand
}

// Student returns the caller a student token stands for: ErrNotAStudent
// when it is unknown, of another class, or its student was removed.
func (s *Service) Student(token string) (access.Caller, error) {
	cr := s.classOf()
	if cr == nil || token == "" {
		return access.Caller{}, ErrNotAStudent
	}
	cr.mu.Lock()
	defer cr.mu.Unlock()
	m := cr.members[cr.byHash[hashToken(token)]]
	if m == nil || m.st.RemovedAt != nil {
		return access.Caller{}, ErrNotAStudent
	}
	return access.Caller{Role: access.Student, StudentID: m.st.ID, ClassID: cr.row.ID}, nil
}

// StudentGone is closed when the student is removed (nil for an unknown
// student, or outside class mode).
func (s *Service) StudentGone(studentID string) <-chan struct{} {
	cr := s.classOf()
	if cr == nil {
		return nil
	}
	cr.mu.Lock()
	defer cr.mu.Unlock()
	if m := cr.members[studentID]; m != nil {
		return m.gone
	}
	return nil
}

// Me says who the caller is and, in class mode, the class as it sees it.
func (s *Service) Me(ctx context.Context) (Me, error) {
	c := access.From(ctx)
	cr := s.classOf()
	if cr == nil {
		if c.IsStudent() {
			return Me{}, ErrNotAStudent
		}
		return Me{Role: access.Instructor}, nil
	}
	v := cr.view(c)
	me := Me{Role: c.Role, Class: &v}
	if c.IsStudent() {
		cr.mu.Lock()
		m := cr.members[c.StudentID]
		cr.mu.Unlock()
		if m == nil {
			return Me{}, ErrNotAStudent
		}
		me.StudentID, me.Name = m.st.ID, m.st.Name
	}
	return me, nil
}

// ClassView is the open class as the caller sees it.
func (s *Service) ClassView(ctx context.Context) (ClassView, error) {
	cr := s.classOf()
	if cr == nil {
		return ClassView{}, ErrNoClass
	}
	return cr.view(access.From(ctx)), nil
}

func (cr *classroom) view(c access.Caller) ClassView {
	cr.mu.Lock()
	defer cr.mu.Unlock()
	v := ClassView{ID: cr.row.ID, Name: cr.row.Name, Paused: cr.row.Paused, Spotlight: cr.row.Spotlight,
		Limits: cr.limits, IterationCap: cr.limits.iterationCap(), CreatedAt: cr.row.CreatedAt, EndedAt: cr.row.EndedAt}
	now := time.Now()
	v.BudgetSince = cr.since(now)
	if cr.assign != nil {
		a := *cr.assign
		if c.IsStudent() {
			a = a.forStudent()
		} else if suite, err := a.suite(); err == nil {
			a.HiddenTests = suite.Hidden()
		}
		v.Assignment = &a
	}
	if c.IsStudent() {
		if m := cr.members[c.StudentID]; m != nil {
			v.Usage = cr.usage(m, now)
		}
		return v
	}
	v.JoinCode, v.JoinURL = GroupCode(cr.code), cr.joinURL
	for _, m := range cr.members {
		u := cr.usage(m, now)
		v.Usage.Runs += u.Runs
		v.Usage.RunningRuns += u.RunningRuns
		v.Usage.RunsLastHour += u.RunsLastHour
		v.Usage.Tokens += u.Tokens
		v.Usage.CostUSD += u.CostUSD
		v.Usage.BudgetTokens += u.BudgetTokens
		v.Usage.BudgetHeld += u.BudgetHeld
		v.Usage.BudgetCostUSD += u.BudgetCostUSD
	}
	return v
}

// usage is what m has spent; cr.mu is held.
func (cr *classroom) usage(m *member, now time.Time) ClassUsage {
	u := ClassUsage{Runs: m.runs, RunningRuns: len(m.active)}
	since := cr.since(now)
	for _, s := range m.spent {
		u.Tokens += s.tokens
		u.CostUSD += s.cost
		if !s.free && !s.at.Before(since) {
			u.BudgetTokens += s.tokens
			u.BudgetCostUSD += s.cost
		}
	}
	u.BudgetHeld = m.pendingTokens
	for _, r := range m.active {
		u.Tokens += r.tokens
		u.CostUSD += r.cost
		if !r.free {
			u.BudgetTokens += r.tokens
			u.BudgetCostUSD += r.cost
			u.BudgetHeld += max(r.hold-r.tokens, 0)
		}
	}
	for _, t := range m.starts {
		if now.Sub(t) < time.Hour {
			u.RunsLastHour++
		}
	}
	return u
}

// Wall is every student's line, in join order (instructor only).
func (s *Service) Wall(ctx context.Context) ([]WallEntry, error) {
	cr, err := s.instructorClass(ctx)
	if err != nil {
		return nil, err
	}
	cr.mu.Lock()
	defer cr.mu.Unlock()
	out := make([]WallEntry, 0, len(cr.order))
	for _, id := range cr.order {
		out = append(out, cr.entry(cr.members[id], time.Now()))
	}
	return out, nil
}

// WallEntry is one student's line (instructor only).
func (s *Service) WallEntry(ctx context.Context, studentID string) (WallEntry, error) {
	cr, err := s.instructorClass(ctx)
	if err != nil {
		return WallEntry{}, err
	}
	cr.mu.Lock()
	defer cr.mu.Unlock()
	m := cr.members[studentID]
	if m == nil {
		return WallEntry{}, fmt.Errorf("student %s: %w", studentID, store.ErrNotFound)
	}
	return cr.entry(m, time.Now()), nil
}

// entry is m's wall line; cr.mu is held.
func (cr *classroom) entry(m *member, now time.Time) WallEntry {
	e := WallEntry{StudentID: m.st.ID, Name: m.st.Name, JoinedAt: m.st.JoinedAt, Removed: m.st.RemovedAt != nil, Usage: cr.usage(m, now)}
	if m.current != nil {
		w := *m.current
		e.Current = &w
	}
	if m.best != nil {
		b := *m.best
		e.Best = &b
	}
	return e
}

// instructorOnly refuses a student an instructor's operation (op "" when
// it is not one operation of the API).
func instructorOnly(op string) error {
	return &Error{Code: CodeStudentOnly, Params: map[string]string{"operation": op}, Err: fmt.Errorf("%w: only the instructor may do this", ErrForbidden)}
}

// instructorClass returns the open class when the caller is its
// instructor.
func (s *Service) instructorClass(ctx context.Context) (*classroom, error) {
	if access.From(ctx).IsStudent() {
		return nil, instructorOnly("")
	}
	cr := s.classOf()
	if cr == nil {
		return nil, ErrNoClass
	}
	return cr, nil
}
