// Package provider defines what the loop needs from a model: a streamed answer
// to a conversation. Each subpackage adapts one API or coding CLI to it.
//
// Contract: Stream returns a pull iterator. It yields zero or more text deltas
// in order and then exactly one Delta whose Done is non-nil, or it yields a
// non-nil error and stops. The concatenation of every Text equals
// Done.Content. Breaking out of the loop early (or cancelling ctx) releases
// the request or process.
package provider

import (
	"context"
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
}

// Role of a message in the conversation.
type Role string

const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
)

// Message is one turn. The system prompt travels separately in Request.System
// because every API places it differently.
type Message struct {
	Role    Role   `json:"role"`
	Content string `json:"content"`
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
}

// Usage counts tokens and, when the provider reports it, cost.
type Usage struct {
	InputTokens  int     `json:"input_tokens"`
	OutputTokens int     `json:"output_tokens"`
	CostUSD      float64 `json:"cost_usd,omitempty"`
}

// Response is the complete answer, delivered once at the end of a stream.
type Response struct {
	Content      string        `json:"content"`
	Model        string        `json:"model,omitempty"`
	Usage        Usage         `json:"usage"`
	FinishReason string        `json:"finish_reason,omitempty"`
	SessionID    string        `json:"session_id,omitempty"` // coding CLIs: resumable session
	Duration     time.Duration `json:"duration"`
}

// Delta is one item of a stream: a text fragment, or the final Response.
type Delta struct {
	Text string
	Done *Response
}

// Profile is a named provider configuration (see design.md §3). APIKey holds
// the resolved secret and is never serialised.
type Profile struct {
	Name      string            `json:"name" yaml:"-"`
	Kind      string            `json:"kind" yaml:"kind"`
	Model     string            `json:"model,omitempty" yaml:"model"`
	BaseURL   string            `json:"base_url,omitempty" yaml:"base_url"`
	APIKeyEnv string            `json:"api_key_env,omitempty" yaml:"api_key_env"`
	Binary    string            `json:"binary,omitempty" yaml:"binary"`
	Args      []string          `json:"args,omitempty" yaml:"args"`
	Env       map[string]string `json:"env,omitempty" yaml:"env"`
	Timeout   time.Duration     `json:"timeout,omitempty" yaml:"-"`
	// Structured turns structured output on or off where the kind supports it
	// (nil = the kind's default). Some OpenAI-compatible servers reject
	// response_format, hence the switch.
	Structured *bool `json:"structured,omitempty" yaml:"structured"`

	APIKey string `json:"-" yaml:"-"`
}

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

// Collect drains a stream into its final Response, calling onText for every
// delta (onText may be nil).
func Collect(seq iter.Seq2[Delta, error], onText func(string)) (*Response, error) {
	var final *Response
	for d, err := range seq {
		if err != nil {
			return nil, err
		}
		if d.Text != "" && onText != nil {
			onText(d.Text)
		}
		if d.Done != nil {
			final = d.Done
		}
	}
	if final == nil {
		return nil, &Error{Kind: KindProtocol, Message: "stream ended without a final response"}
	}
	return final, nil
}
