// Package provider defines what the loop needs from a model: a streamed answer
// to a conversation. Each subpackage adapts one API or coding CLI to it.
//
// Contract: Stream returns a pull iterator. It yields zero or more text deltas
// in order and then exactly one Delta whose Done is non-nil, or it yields a
// non-nil error and stops. The concatenation of every Text equals
// Done.Content. A Delta may instead carry a Notice for the user about the
// call itself (a retry); it is not part of the answer. Breaking out of the
// loop early (or cancelling ctx) releases the request or process.
//
// HTTP providers (openai, anthropic, gemini) make their calls through an
// HTTPCall: every call has a first-byte, an idle and an overall time limit
// (Limits; exceeding one is an *Error of KindTimeout wrapping a
// *TimeoutError), and transient failures before any text are retried with
// a Notice (RetryPolicy). A call that fails once its answer has begun
// ends with a *PartialError (see WithPartial) holding the text and the
// token counts that arrived; a stream cut short is an *Error of
// KindInterrupted, a refusal (a safety stop, a blocked prompt) one of
// KindRefusal.
//
// Coding CLIs (codexcli, claudecli, geminicli) also honour Request.Workdir,
// Mode, SessionID and Timeout, and fill the Response's Status, ToolCalls,
// Warnings, RawEvents and Command. Once their process has started, a call that
// does not succeed ends with a *PartialError whose Partial is what arrived
// (see PartialOf); the typed cause (*ExecutionError, *ParseError, *Error of
// KindAuth or KindTimeout, context.Canceled) is reachable with errors.As and
// errors.Is.
package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"sort"
	"strings"
	"time"
)

// Provider is one configured profile, ready to answer.
type Provider interface {
	Name() string
	Capabilities() Capabilities
	Stream(ctx context.Context, req Request) iter.Seq2[Delta, error]
}

// Capabilities say what a provider can do beyond plain text.
type Capabilities struct {
	// StructuredOutput: the provider honours Request.Schema and answers with
	// JSON matching it.
	StructuredOutput bool `json:"structured_output"`
	// Sessions: the provider keeps the conversation itself and can resume it
	// by Response.SessionID (Request.SessionID).
	Sessions bool `json:"sessions"`
	// Tools: the provider honours Request.Tools and may answer with
	// Response.ToolCalls for the caller to run (API providers).
	Tools bool `json:"tools,omitempty"`
}

// Mode says what a coding CLI may do besides answering.
type Mode string

const (
	// ModeScript (the default; "" means the same) asks only for code: the CLI
	// gets no write access and no command approval.
	ModeScript Mode = "script"
	// ModeWorkspace lets the CLI edit files inside Request.Workdir, and
	// nowhere else. No provider ever uses a bypass-everything flag by itself.
	ModeWorkspace Mode = "workspace"
)

// Role of a message in the conversation.
type Role string

const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	// RoleTool carries the result of one tool call (Message.ToolCallID).
	RoleTool Role = "tool"
)

// Message is one turn. The system prompt travels separately in Request.System
// because every API places it differently.
type Message struct {
	Role    Role   `json:"role"`
	Content string `json:"content"`
	// ToolCalls, on an assistant message, are the calls it asked for.
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	// ToolCallID, on a RoleTool message, names the call it answers.
	ToolCallID string `json:"tool_call_id,omitempty"`
}

// ToolSpec offers one function to a model that supports tools.
type ToolSpec struct {
	Name        string
	Description string
	Parameters  map[string]any // JSON Schema of the arguments (an object)
}

// Schema asks for structured output; JSON is a JSON Schema object.
type Schema struct {
	Name        string
	Description string
	JSON        map[string]any
}

// Request is one call.
type Request struct {
	System   string
	Messages []Message
	// Schema, when non-nil and the provider supports it, asks for JSON output.
	Schema *Schema
	// MaxTokens caps the answer; 0 means the provider's default.
	MaxTokens int
	// Tools, for providers with Capabilities.Tools, are the functions the
	// model may call. The answer then may end with Response.ToolCalls
	// (status ToolPending, FinishReason "tool_calls"): the caller runs them,
	// appends the assistant message (with its ToolCalls) and one RoleTool
	// message per call, and asks again.
	Tools []ToolSpec

	// The fields below matter to coding CLIs only; HTTP providers ignore them.
	// A CLI takes a single prompt: System and Messages are flattened into one
	// transcript ending with the last user message (see cliproc.Prompt).

	// Workdir is the CLI's working directory. "" means a private temporary
	// directory that is removed when the call ends (for CLIs that file
	// sessions by directory, its path is derived from the session id, so a
	// resumed call runs from the same path).
	Workdir string
	// Mode is ModeScript ("" too) or ModeWorkspace.
	Mode Mode
	// SessionID resumes that CLI session (a Response.SessionID). Only the last
	// user message is then sent: the CLI already holds the rest.
	SessionID string
	// Timeout bounds this call; 0 means the profile's timeout, else
	// DefaultCallTimeout.
	Timeout time.Duration
}

// DefaultCallTimeout bounds a provider call (a coding CLI's, or an HTTP
// call with its retries) when neither the request nor the profile sets a
// timeout.
const DefaultCallTimeout = 10 * time.Minute

// Status is how a call ended.
type Status string

const (
	StatusSuccess Status = "success" // the CLI's (or API's) final event reported success
	StatusError   Status = "error"   // it reported a failure, or its output was unusable
	StatusPartial Status = "partial" // it was cut off (cancel, timeout, crash) before its final event
)

// ToolStatus is how one tool call of a coding CLI ended.
type ToolStatus string

const (
	ToolPending ToolStatus = "pending" // started, no result seen
	ToolSuccess ToolStatus = "success"
	ToolError   ToolStatus = "error"
	ToolDenied  ToolStatus = "denied" // the CLI's permission mode refused it
)

// ToolCall is one tool a coding CLI used while answering (a shell command, a
// file edit, ...), as reported in its event stream.
type ToolCall struct {
	ID     string          `json:"id,omitempty"`
	Name   string          `json:"name"`
	Input  json.RawMessage `json:"input,omitempty"`
	Output string          `json:"output,omitempty"`
	Error  string          `json:"error,omitempty"`
	Status ToolStatus      `json:"status"`
}

// Usage counts tokens and, when the provider reports it, cost.
type Usage struct {
	InputTokens  int     `json:"input_tokens"`
	OutputTokens int     `json:"output_tokens"`
	CostUSD      float64 `json:"cost_usd,omitempty"`
}

// Add is u and v counted together.
func (u Usage) Add(v Usage) Usage {
	return Usage{InputTokens: u.InputTokens + v.InputTokens, OutputTokens: u.OutputTokens + v.OutputTokens,
		CostUSD: u.CostUSD + v.CostUSD}
}

// Response is the complete answer, delivered once at the end of a stream.
type Response struct {
	// Status is StatusSuccess in a Done delta; a *PartialError carries a
	// Response with StatusError or StatusPartial. "" (HTTP providers) means
	// success.
	Status   Status `json:"status,omitempty"`
	Provider string `json:"provider,omitempty"` // profile name
	Content  string `json:"content"`
	Model    string `json:"model,omitempty"`
	// FallbackFrom is the model the call asked for when the API answered
	// from another one, Model (Anthropic's fallback); "" when the model
	// asked for answered.
	FallbackFrom string        `json:"fallback_from,omitempty"`
	Usage        Usage         `json:"usage"`
	FinishReason string        `json:"finish_reason,omitempty"`
	SessionID    string        `json:"session_id,omitempty"` // coding CLIs: resumable session
	Duration     time.Duration `json:"duration"`

	// ToolCalls: for coding CLIs, the tools the CLI used itself; for API
	// providers given Request.Tools, the calls the model asks the caller to
	// run (status ToolPending, Input = the JSON arguments).
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	// Warnings are things the user should know that did not fail the call
	// (permission denials, retries, stray output).
	Warnings []string `json:"warnings,omitempty"`
	// RawEvents are the CLI's JSON lines, in order. A line that was not
	// valid JSON is kept as a JSON string.
	RawEvents []json.RawMessage `json:"raw_events,omitempty"`
	// Command is the argv that ran (argv[0] is the resolved binary). Keys
	// travel in the environment, never here.
	Command []string `json:"command,omitempty"`
}

// Delta is one item of a stream: a text fragment, the final Response, or a
// notice.
type Delta struct {
	Text string
	Done *Response
	// Notice tells the user something about the call while it goes on
	// ("gemini-api: rate limited (HTTP 429), retrying in 4s (retry 1/3)").
	Notice string
	// Retry is the same notice as data, for a face that words it itself.
	Retry *RetryNotice
}

// RetryNotice says a call is tried again: why (Reason*), after what HTTP
// status (0 when none), after how long, and which retry of how many.
type RetryNotice struct {
	Provider string
	Reason   string
	Status   int
	Wait     time.Duration
	N, Max   int
}

// Why a call is retried (RetryNotice.Reason).
const (
	ReasonRateLimit        = "rate_limit"
	ReasonServer           = "server"
	ReasonRequestTimeout   = "request_timeout"
	ReasonConnectionClosed = "connection_closed"
)

// Profile is a named provider configuration: a built-in one or an entry of
// loopforge.yml's providers: (backend/config). APIKey holds the resolved
// secret and is never serialised.
type Profile struct {
	Name      string            `json:"name" yaml:"-"`
	Kind      string            `json:"kind" yaml:"kind"`
	Model     string            `json:"model,omitempty" yaml:"model"`
	BaseURL   string            `json:"base_url,omitempty" yaml:"base_url"`
	APIKeyEnv string            `json:"api_key_env,omitempty" yaml:"api_key_env"`
	Binary    string            `json:"binary,omitempty" yaml:"binary"`
	Args      []string          `json:"args,omitempty" yaml:"args"`
	Env       map[string]string `json:"env,omitempty" yaml:"env"`
	// PassEnv names further variables of loopforge's environment a coding
	// CLI may inherit (names only: values stay in the environment).
	PassEnv []string `json:"pass_env,omitempty" yaml:"pass_env"`
	// Timeout bounds one call: a coding CLI's run, or an HTTP call with
	// its retries (Limits.Overall).
	Timeout time.Duration `json:"timeout,omitempty" yaml:"-"`
	// FirstByteTimeout and IdleTimeout bound an HTTP call's wait for the
	// start of the answer and its silences (Limits); 0 means the default.
	FirstByteTimeout time.Duration `json:"first_byte_timeout,omitempty" yaml:"-"`
	IdleTimeout      time.Duration `json:"idle_timeout,omitempty" yaml:"-"`
	// Retry overrides DefaultRetry() for an HTTP profile: loopforge.yml's
	// max_retries sets its count; tests shorten the waits.
	Retry *RetryPolicy `json:"-" yaml:"-"`
	// MaxOutputTokens caps each answer (reasoning included) where the
	// kind supports it; 0 means the kind's default (see each adapter).
	MaxOutputTokens int `json:"max_output_tokens,omitempty" yaml:"-"`
	// MaxTokensField names the request field of that cap for an
	// OpenAI-compatible server (FieldMaxTokens or FieldMaxCompletionTokens);
	// "" lets the adapter choose by the server.
	MaxTokensField string `json:"max_tokens_field,omitempty" yaml:"-"`
	// Structured turns structured output on or off where the kind supports it
	// (nil = the kind's default). Some OpenAI-compatible servers reject
	// response_format, hence the switch.
	Structured *bool `json:"structured,omitempty" yaml:"structured"`

	APIKey string `json:"-" yaml:"-"`
}

// The request fields that can carry an OpenAI-compatible answer's cap
// (Profile.MaxTokensField): OpenAI's current one, which its reasoning
// models require (they refuse the other with HTTP 400), and the older one,
// the only one most compatible servers (Ollama, OpenRouter, vLLM, LM
// Studio, DeepSeek) document.
const (
	FieldMaxCompletionTokens = "max_completion_tokens"
	FieldMaxTokens           = "max_tokens"
)

// Factory builds a Provider for a profile of one kind.
type Factory func(Profile) (Provider, error)

// Registry maps a kind to its factory. It is built explicitly by the
// service, not filled by init functions.
type Registry map[string]Factory

// New builds the provider for p, or fails with ErrUnknownProvider naming the
// kind before anything is started.
func (r Registry) New(p Profile) (Provider, error) {
	f, ok := r[p.Kind]
	if !ok {
		return nil, fmt.Errorf("profile %q has kind %q (known kinds: %s): %w",
			p.Name, p.Kind, strings.Join(r.Kinds(), ", "), ErrUnknownProvider)
	}
	return f(p)
}

// Kinds lists the registered kinds, sorted.
func (r Registry) Kinds() []string {
	ks := make([]string, 0, len(r))
	for k := range r {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
