package export

import (
	"encoding/json"
	"slices"
	"time"

	"github.com/loopforge/loopforge/backend/event"
	"github.com/loopforge/loopforge/backend/store"
)

// The JSON export's own types. The file is a format that other loopforge
// versions read back (ReadBundle), so it is spelled out here field by field
// instead of following the store's rows or the event envelope: a column
// added to the database does not change it unseen.
// testdata/session.loopforge.json pins it byte for byte.

type bundleFile struct {
	Format     string                     `json:"format"`
	Version    int                        `json:"version"`
	Exported   time.Time                  `json:"exported_at"`
	Session    sessionFile                `json:"session"`
	Runs       []runFile                  `json:"runs"`
	Iterations map[string][]iterationFile `json:"iterations"` // by run id
	Messages   map[string][]messageFile   `json:"messages"`   // by run id
	Events     map[string][]eventFile     `json:"events"`     // by run id
	// Images are absent from files of sessions without pictures (and from
	// files written before loopforge kept them).
	Images map[string][]imageFile `json:"images,omitempty"` // by run id
}

// imageFile is one picture; its bytes are base64 in the file.
type imageFile struct {
	RunID     string `json:"run_id"`
	Iteration int    `json:"iteration"`
	Name      string `json:"name"`
	MIME      string `json:"mime"`
	Width     int    `json:"width"`
	Height    int    `json:"height"`
	Data      []byte `json:"data"`
}

type sessionFile struct {
	ID     string            `json:"id"`
	Title  string            `json:"title"`
	Prompt string            `json:"prompt"`
	Mode   event.SessionMode `json:"mode"`
	// Kind is absent from files written before sessions had one; reading
	// such a file takes it from the runs (see bundle).
	Kind      event.Mode `json:"kind,omitempty"`
	Workdir   string     `json:"workdir"`
	CreatedAt time.Time  `json:"created_at"`
	UpdatedAt time.Time  `json:"updated_at"`
}

type runFile struct {
	ID            string            `json:"id"`
	SessionID     string            `json:"session_id"`
	Provider      string            `json:"provider"`
	Model         string            `json:"model"`
	Prompt        string            `json:"prompt"`
	Stdin         string            `json:"stdin,omitempty"`
	Status        event.RunStatus   `json:"status"`
	MaxIterations int               `json:"max_iterations"`
	Reflect       bool              `json:"reflect"`
	Language      string            `json:"language"`
	Iterations    int               `json:"iterations"`
	FinalCode     string            `json:"final_code"`
	Error         string            `json:"error"`
	ErrorCode     string            `json:"error_code,omitempty"`
	ErrorParams   map[string]string `json:"error_params,omitempty"`
	InputTokens   int               `json:"input_tokens"`
	OutputTokens  int               `json:"output_tokens"`
	CostUSD       float64           `json:"cost_usd"`
	StartedAt     time.Time         `json:"started_at"`
	FinishedAt    *time.Time        `json:"finished_at"`
	DurationMS    int64             `json:"duration_ms"`
	// Tests (YAML) and how the last judged program fared; absent from
	// runs without tests (and from files written before them).
	Tests       string `json:"tests,omitempty"`
	TestsPassed int    `json:"tests_passed,omitempty"`
	TestsTotal  int    `json:"tests_total,omitempty"`
}

type iterationFile struct {
	RunID      string                `json:"run_id"`
	N          int                   `json:"n"`
	Code       string                `json:"code"`
	Content    string                `json:"content"`
	ExecStatus string                `json:"exec_status"`
	ExitCode   int                   `json:"exit_code"`
	Stdout     string                `json:"stdout"`
	Stderr     string                `json:"stderr"`
	Truncated  bool                  `json:"truncated"`
	ExecMS     int64                 `json:"exec_ms"`
	Isolation  string                `json:"isolation"`
	Reflection string                `json:"reflection"`
	Status     event.IterationStatus `json:"status"`
	Summary    string                `json:"summary"`
}

type messageFile struct {
	RunID     string    `json:"run_id"`
	Seq       int       `json:"seq"`
	Role      string    `json:"role"`
	Content   string    `json:"content"`
	CreatedAt time.Time `json:"created_at"`
}

type eventFile struct {
	Type    string          `json:"type"`
	RunID   string          `json:"run_id"`
	Seq     int64           `json:"seq"`
	TS      time.Time       `json:"ts"`
	Payload json.RawMessage `json:"payload"`
}

// toFile converts b, with Runs as b.runs() and every collection non-nil
// (an empty one is [] or {} in the file, never null).
func toFile(b *Bundle) bundleFile {
	s := b.Session
	return bundleFile{Format: FormatName, Version: Version, Exported: b.Exported,
		Session: sessionFile{ID: s.ID, Title: s.Title, Prompt: s.Prompt, Mode: s.Mode, Kind: s.Kind, Workdir: s.Workdir,
			CreatedAt: s.CreatedAt, UpdatedAt: s.UpdatedAt},
		Runs:       each(b.runs(), runToFile),
		Iterations: eachByRun(b.Iterations, iterationToFile),
		Messages:   eachByRun(b.Messages, messageToFile),
		Events:     eachByRun(b.Events, eventToFile),
		Images:     eachByRun(b.Images, imageToFile)}
}

// bundle converts a file read back; every collection is non-nil.
func (f bundleFile) bundle() *Bundle {
	s := f.Session
	if s.Kind == "" {
		s.Kind = oldKind(s.Mode, f.Runs)
	}
	return &Bundle{Format: f.Format, Version: f.Version, Exported: f.Exported,
		Session: store.Session{ID: s.ID, Title: s.Title, Prompt: s.Prompt, Mode: s.Mode, Kind: s.Kind, Workdir: s.Workdir,
			CreatedAt: s.CreatedAt, UpdatedAt: s.UpdatedAt},
		Runs:       each(f.Runs, runFromFile),
		Iterations: eachByRun(f.Iterations, iterationFromFile),
		Messages:   eachByRun(f.Messages, messageFromFile),
		Events:     eachByRun(f.Events, eventFromFile),
		Images:     imagesFromFile(f.Images)}
}

// imagesFromFile is nil for a file without pictures, like a Bundle of a
// session without any.
func imagesFromFile(m map[string][]imageFile) map[string][]store.Image {
	if len(m) == 0 {
		return nil
	}
	return eachByRun(m, imageFromFile)
}

// oldKind is the kind of a session exported before sessions had one, by
// the rule migration 0004 applies to the history: a workspace session, or
// a comparison whose runs recorded a patch.
func oldKind(mode event.SessionMode, runs []runFile) event.Mode {
	if mode == event.SessionModeWorkspace || slices.ContainsFunc(runs, func(r runFile) bool { return r.Language == LanguageDiff }) {
		return event.ModeWorkspace
	}
	return event.ModeScript
}

func each[A, B any](xs []A, f func(A) B) []B {
	out := make([]B, 0, len(xs))
	for _, x := range xs {
		out = append(out, f(x))
	}
	return out
}

func eachByRun[A, B any](m map[string][]A, f func(A) B) map[string][]B {
	out := make(map[string][]B, len(m))
	for id, xs := range m {
		out[id] = each(xs, f)
	}
	return out
}

func runToFile(r store.Run) runFile {
	return runFile{ID: r.ID, SessionID: r.SessionID, Provider: r.Provider, Model: r.Model, Prompt: r.Prompt, Stdin: r.Stdin,
		Status: r.Status, MaxIterations: r.MaxIterations, Reflect: r.Reflect, Language: r.Language,
		Iterations: r.Iterations, FinalCode: r.FinalCode, Error: r.Error, ErrorCode: r.ErrorCode, ErrorParams: r.ErrorParams,
		InputTokens:  r.InputTokens,
		OutputTokens: r.OutputTokens, CostUSD: r.CostUSD, StartedAt: r.StartedAt, FinishedAt: r.FinishedAt,
		DurationMS: r.DurationMS, Tests: r.Tests, TestsPassed: r.TestsPassed, TestsTotal: r.TestsTotal}
}

func runFromFile(r runFile) store.Run {
	return store.Run{ID: r.ID, SessionID: r.SessionID, Provider: r.Provider, Model: r.Model, Prompt: r.Prompt, Stdin: r.Stdin,
		Status: r.Status, MaxIterations: r.MaxIterations, Reflect: r.Reflect, Language: r.Language,
		Iterations: r.Iterations, FinalCode: r.FinalCode, Error: r.Error, ErrorCode: r.ErrorCode, ErrorParams: r.ErrorParams,
		InputTokens:  r.InputTokens,
		OutputTokens: r.OutputTokens, CostUSD: r.CostUSD, StartedAt: r.StartedAt, FinishedAt: r.FinishedAt,
		DurationMS: r.DurationMS, Tests: r.Tests, TestsPassed: r.TestsPassed, TestsTotal: r.TestsTotal}
}

// Iterations and messages have the same fields as their rows today; the
// conversions stop compiling when a row gains one, which is the moment to
// decide whether the file gets it too.

func iterationToFile(it store.Iteration) iterationFile { return iterationFile(it) }

func iterationFromFile(it iterationFile) store.Iteration { return store.Iteration(it) }

func messageToFile(m store.Message) messageFile { return messageFile(m) }

func messageFromFile(m messageFile) store.Message { return store.Message(m) }

func eventToFile(e event.Event) eventFile {
	return eventFile{Type: string(e.Type), RunID: e.RunID, Seq: e.Seq, TS: e.TS, Payload: e.Payload}
}

func eventFromFile(e eventFile) event.Event {
	return event.Event{Type: event.Kind(e.Type), RunID: e.RunID, Seq: e.Seq, TS: e.TS, Payload: e.Payload}
}

func imageToFile(im store.Image) imageFile {
	return imageFile{RunID: im.RunID, Iteration: im.Iteration, Name: im.Name, MIME: im.MIME, Width: im.Width, Height: im.Height, Data: im.Data}
}

func imageFromFile(im imageFile) store.Image {
	return store.Image{RunID: im.RunID, Iteration: im.Iteration, Name: im.Name, MIME: im.MIME, Width: im.Width, Height: im.Height,
		Size: int64(len(im.Data)), Data: im.Data}
}
