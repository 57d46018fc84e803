// Package event defines the closed set of things a run reports while it
// works, and the JSON envelope they travel in: {type, run_id, seq, ts, payload}.
//
// Producers (the loop) build events with New; the service stamps RunID, Seq
// and TS, persists the event and fans it out to subscribers, so a client that
// reconnects can ask for everything after a seq. Token and exec_output
// events reach subscribers before the store (they are written in batches, a
// few milliseconds later); every other event is stored first.
package event

import (
	"encoding/json"
	"fmt"
	"time"
)

// Kind names one event type. The set is closed: consumers switch on it.
type Kind string

const (
	RunStarted       Kind = "run_started"       // RunStartedPayload
	IterationStarted Kind = "iteration_started" // IterationPayload
	Token            Kind = "token"             // TokenPayload (generation or reflection text delta)
	Generated        Kind = "generated"         // GeneratedPayload (the model's full answer and the code taken from it)
	ExecStarted      Kind = "exec_started"      // IterationPayload
	ExecOutput       Kind = "exec_output"       // ExecOutputPayload: output of the running code, as it prints
	ExecFinished     Kind = "exec_finished"     // ExecPayload
	Reflection       Kind = "reflection"        // ReflectionPayload
	IterationDone    Kind = "iteration_done"    // IterationDonePayload
	RunFinished      Kind = "run_finished"      // RunFinishedPayload
	Log              Kind = "log"               // LogPayload: a notice for the user (retry, warning)
	Queued           Kind = "queued"            // QueuedPayload: an execution waits for a sandbox slot (class mode)
	Tested           Kind = "tested"            // TestsPayload: the run's tests judged the iteration's program (tests.go)

	// Workspace mode: the model edits a project folder (backend/loop).
	ToolCalled Kind = "tool_called" // ToolCallPayload: a workspace tool an API model called, with its result
	Validated  Kind = "validated"   // ValidatePayload: one validation command ran in the workdir
	Audited    Kind = "audited"     // AuditPayload: the auditor's verdict
	Git        Kind = "git"         // GitPayload: branch created, commit made, changes left uncommitted
)

// Phase tells which step a token belongs to, so a UI can colour reflection
// differently from generation.
type Phase string

const (
	PhaseGenerate Phase = "generate"
	PhaseReflect  Phase = "reflect"
	PhaseAudit    Phase = "audit"
)

// Event is one envelope. Payload holds the JSON of one of the payload structs
// below; Decode turns it back into a value.
type Event struct {
	Type    Kind            `json:"type"`
	RunID   string          `json:"run_id"`
	Seq     int64           `json:"seq"`
	TS      time.Time       `json:"ts"`
	Payload json.RawMessage `json:"payload"`
}

// New builds an unstamped event; RunID, Seq and TS are set by whoever owns the
// run's sequence (the service). Payloads are plain structs, so Marshal cannot
// fail; a failure means a programming error and panics.
func New(kind Kind, payload any) Event {
	b, err := json.Marshal(payload)
	if err != nil {
		panic(fmt.Sprintf("event: marshal %s payload: %v", kind, err))
	}
	return Event{Type: kind, Payload: b}
}

// Decode unmarshals the payload into v.
func (e Event) Decode(v any) error {
	if err := json.Unmarshal(e.Payload, v); err != nil {
		return fmt.Errorf("event %s #%d: decode payload: %w", e.Type, e.Seq, err)
	}
	return nil
}

// Terminal reports whether no event of this run follows e.
func (e Event) Terminal() bool { return e.Type == RunFinished }

type RunStartedPayload struct {
	SessionID     string `json:"session_id"`
	Provider      string `json:"provider"`
	Model         string `json:"model,omitempty"`
	Prompt        string `json:"prompt"`
	MaxIterations int    `json:"max_iterations"`
	Reflect       bool   `json:"reflect"`
	Language      string `json:"language"`
	Mode          Mode   `json:"mode"`
	// AllowNetwork: the user let this run's code reach the network.
	AllowNetwork bool `json:"allow_network,omitempty"`
	// Stdin is the text the user gave the code's standard input ("" = none).
	Stdin string `json:"stdin,omitempty"`
	// Workdir and Validate describe a workspace-mode run.
	Workdir  string   `json:"workdir,omitempty"`
	Validate []string `json:"validate,omitempty"`
	Auditor  string   `json:"auditor,omitempty"`
	// Tests is how many tests judge each iteration's program (0: none, the
	// exit status decides), HiddenTests how many of them are hidden.
	Tests       int `json:"tests,omitempty"`
	HiddenTests int `json:"hidden_tests,omitempty"`
}

// QueuedPayload: the execution of Iteration waits behind Ahead others in
// the class's execution queue (counting the one it waits for, so 1 = next);
// Ahead 0 when it gets its slot.
type QueuedPayload struct {
	Iteration int `json:"iteration"`
	Ahead     int `json:"ahead"`
	// WaitMS estimates the wait in milliseconds from the place and the
	// recent executions' times (0: nothing to judge by yet, or Ahead 0).
	WaitMS int64 `json:"wait_ms,omitempty"`
}

type IterationPayload struct {
	Iteration int `json:"iteration"`
}

type TokenPayload struct {
	Iteration int    `json:"iteration"`
	Phase     Phase  `json:"phase"`
	Text      string `json:"text"`
}

type GeneratedPayload struct {
	Iteration int    `json:"iteration"`
	Content   string `json:"content"`
	Code      string `json:"code"`
	Language  string `json:"language"`
	// Model is the model that answered, as the provider named it ("" when
	// it did not).
	Model       string `json:"model,omitempty"`
	FormatError string `json:"format_error,omitempty"` // set when no usable code was found
	// FormatCode and FormatParams name FormatError for a frontend that words
	// it itself (loop.Format* codes).
	FormatCode   string            `json:"format_code,omitempty"`
	FormatParams map[string]string `json:"format_params,omitempty"`
	InputTokens  int               `json:"input_tokens,omitempty"`
	OutputTokens int               `json:"output_tokens,omitempty"`
	DurationMS   int64             `json:"duration_ms"`
}

// ExecOutputPayload is a piece of one stream of the running code, between
// exec_started and exec_finished. Pieces of one stream arrive in order and
// join into what it printed, up to a limit per execution (the head that
// exec_finished keeps); the piece that reaches the limit is Capped, and no
// more of that stream follows live. The two streams are separate pipes:
// their pieces are not ordered relative to each other. exec_finished carries
// the whole capped head and tail and supersedes the pieces.
type ExecOutputPayload struct {
	Iteration int    `json:"iteration"`
	Stream    string `json:"stream"` // stdout | stderr
	Text      string `json:"text"`
	Capped    bool   `json:"capped,omitempty"`
}

// Streams of ExecOutputPayload.
const (
	StreamStdout = "stdout"
	StreamStderr = "stderr"
)

type ExecPayload struct {
	Iteration  int        `json:"iteration"`
	Status     ExecStatus `json:"status"`
	ExitCode   int        `json:"exit_code"`
	Signal     string     `json:"signal,omitempty"`
	Stdout     string     `json:"stdout"`
	Stderr     string     `json:"stderr"`
	Truncated  bool       `json:"truncated"`
	DurationMS int64      `json:"duration_ms"`
	Isolation  string     `json:"isolation"`
	// Outcome is how it ended, as data (an Outcome* code); Description is
	// its English, one line: "exit 1: ValueError: boom". Events recorded
	// before outcomes have only Description.
	Outcome     *ExecNote `json:"outcome,omitempty"`
	Description string    `json:"description"`
	// Protections that applied to this execution, by Protection name
	// (files, network, processes, memory, signals), and notes about the
	// missing ones (Note* codes; Warnings are their English).
	Protections map[string]bool `json:"protections,omitempty"`
	Notes       []ExecNote      `json:"notes,omitempty"`
	Warnings    []string        `json:"warnings,omitempty"`
	// Images are the pictures the program left (matplotlib figures, image
	// files it wrote), stored with the run: the bytes are fetched by run,
	// iteration and name. ImageNotes say which were left out and why (too
	// large, too many, unreadable: NoteImage* codes), ImagesSkipped the
	// same in English.
	Images        []ImageRef `json:"images,omitempty"`
	ImageNotes    []ExecNote `json:"image_notes,omitempty"`
	ImagesSkipped []string   `json:"images_skipped,omitempty"`
}

// ImageRef names one stored picture of an execution.
type ImageRef struct {
	Name   string `json:"name"` // its path in the run dir: "figure-1.png", "out/chart.svg"
	MIME   string `json:"mime"` // image/png, image/jpeg, image/gif or image/svg+xml
	Size   int64  `json:"size"` // bytes
	Width  int    `json:"width,omitempty"`
	Height int    `json:"height,omitempty"`
}

type ReflectionPayload struct {
	Iteration int    `json:"iteration"`
	Text      string `json:"text"`
	// InputTokens and OutputTokens are the reflection call's usage, so an
	// iteration's cost is its generation's plus its reflection's (absent in
	// events recorded before they were added).
	InputTokens  int `json:"input_tokens,omitempty"`
	OutputTokens int `json:"output_tokens,omitempty"`
}

type IterationDonePayload struct {
	Iteration int             `json:"iteration"`
	Status    IterationStatus `json:"status"` // IterationStatusSuccess or IterationStatusError
	Summary   string          `json:"summary"`
}

// RunStatus is a run's status: as the loop ends it, as the history stores
// it, as run_finished announces it and as the API sends it. The JSON and
// the database hold these strings.
type RunStatus string

const (
	RunStatusRunning      RunStatus = "running"       // started, not finished
	RunStatusSuccess      RunStatus = "success"       // the code (or the workspace's validation) ran cleanly
	RunStatusLimitReached RunStatus = "limit_reached" // the iterations ran out first
	RunStatusError        RunStatus = "error"         // a provider, recording or setup failure
	RunStatusCancelled    RunStatus = "cancelled"     // stopped on request
	RunStatusInterrupted  RunStatus = "interrupted"   // its process went away before it finished
)

type RunFinishedPayload struct {
	Status     RunStatus `json:"status"` // never RunStatusRunning
	Iterations int       `json:"iterations"`
	FinalCode  string    `json:"final_code"`
	Error      string    `json:"error,omitempty"`
	// ErrorKind classifies Error for a UI that would otherwise attribute it
	// to the provider: ErrorWorkspaceGuard, or "" for any other error.
	ErrorKind string `json:"error_kind,omitempty"`
	// ErrorCode and ErrorParams name Error for a UI that shows it in its
	// own words (service.Code; "" for runs recorded before codes).
	ErrorCode   string            `json:"error_code,omitempty"`
	ErrorParams map[string]string `json:"error_params,omitempty"`
	// Model is the model that answered when the provider answered from a
	// fallback model instead of the run's (run_started's); "" when the
	// run's model did.
	Model        string `json:"model,omitempty"`
	InputTokens  int    `json:"input_tokens"`
	OutputTokens int    `json:"output_tokens"`
	DurationMS   int64  `json:"duration_ms"`
	// TestsPassed of TestsTotal: how the run's last judged program fared
	// (absent: the run had no tests, or none was judged).
	TestsPassed int `json:"tests_passed,omitempty"`
	TestsTotal  int `json:"tests_total,omitempty"`
}

// ErrorWorkspaceGuard (RunFinishedPayload.ErrorKind): loopforge stopped a
// workspace run to protect the repository — its git control files changed,
// or HEAD left the run's branch — before running git on it again.
const ErrorWorkspaceGuard = "workspace_guard"

// ErrorQuota (RunFinishedPayload.ErrorKind): a class limit (a token budget)
// stopped the run.
const ErrorQuota = "quota"

type LogPayload struct {
	Level   string `json:"level"` // info | warn
	Message string `json:"message"`
	// Code and Params name Message for a face that words it itself (a
	// Notice); "" for text that is someone else's (a coding CLI's warning).
	Code   Notice            `json:"code,omitempty"`
	Params map[string]string `json:"params,omitempty"`
}

// Notice names what a LogPayload says; each code's parameters follow it
// (durations in milliseconds).
type Notice string

const (
	NoticeRetry                Notice = "retry"                  // provider, reason (rate_limit, server, request_timeout, connection_closed), status (HTTP, may be absent), wait_ms, retry, max
	NoticeReflectionEmpty      Notice = "reflection_empty"       //
	NoticeNoChange             Notice = "no_change"              // validation passed but the model changed nothing: no commit
	NoticeMetadataFailed       Notice = "metadata_failed"        // detail
	NoticeSandbox              Notice = "sandbox"                // note (a Note code), and that note's parameters
	NoticeWorktreeKept         Notice = "worktree_kept"          // path, branch
	NoticeWorktreeMetaFailed   Notice = "worktree_meta_failed"   // path, detail
	NoticeWorktreeRemoveFailed Notice = "worktree_remove_failed" // path, detail
	NoticeWorktreeRemoved      Notice = "worktree_removed"       // branch, path
	NoticeFallback             Notice = "fallback"               // from, to: the provider answered from model to instead of from
	NoticeBudgetSwitch         Notice = "budget_switch"          // from, to: a class's token budget moved the run from profile from to its budget profile to
	NoticeBudgetIterations     Notice = "budget_iterations"      // n, asked: a class's token budget left room for n of the asked iterations
)

// NewLog is a notice of loopforge's own: its English and its code.
func NewLog(level, message string, code Notice, kv ...string) LogPayload {
	l := LogPayload{Level: level, Message: message, Code: code}
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] == "" {
			continue
		}
		if l.Params == nil {
			l.Params = map[string]string{}
		}
		l.Params[kv[i]] = kv[i+1]
	}
	return l
}

type ToolCallPayload struct {
	Iteration  int    `json:"iteration"`
	ID         string `json:"id,omitempty"`
	Name       string `json:"name"`
	Input      string `json:"input"`  // JSON arguments as sent by the model
	Output     string `json:"output"` // what went back to the model
	OK         bool   `json:"ok"`
	DurationMS int64  `json:"duration_ms"`
}

type ValidatePayload struct {
	Iteration  int    `json:"iteration"`
	Command    string `json:"command"`
	ExitCode   int    `json:"exit_code"`
	Passed     bool   `json:"passed"`
	TimedOut   bool   `json:"timed_out,omitempty"`
	Stdout     string `json:"stdout"`
	Stderr     string `json:"stderr"`
	Truncated  bool   `json:"truncated,omitempty"`
	DurationMS int64  `json:"duration_ms"`
}

type AuditPayload struct {
	Iteration int      `json:"iteration"`
	Approved  bool     `json:"approved"`
	Reasons   []string `json:"reasons,omitempty"`
}

type GitPayload struct {
	Action  string `json:"action"` // branch | commit | uncommitted | metadata | worktree (a comparison provider's own checkout, at Path)
	Branch  string `json:"branch,omitempty"`
	Commit  string `json:"commit,omitempty"`
	Message string `json:"message,omitempty"`
	Path    string `json:"path,omitempty"` // metadata file, relative to the workdir
}
