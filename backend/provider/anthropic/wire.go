package anthropic

import "encoding/json"

// The Messages API wire format (POST {base}/v1/messages with "stream":
// true, headers x-api-key and anthropic-version), as far as loopforge uses
// it.
//
// Why not the official anthropic-sdk-go: this package uses one endpoint of
// it, and linking it brought OpenTelemetry, a JSON Schema reflector (with
// go/parser, go/doc and a second YAML library) and the SDK's whole API
// surface into every loopforge process: ~1.5 ms of package init and 700
// allocations before `loopforge --version` could print anything, and, with
// the OpenAI SDK, 28 of the binary's 48 MB (issue 13). These shapes are the
// documented ones; the tests drive them against a local server speaking
// them. Field order follows what the SDK sent.

// apiVersion is the anthropic-version header the API requires.
const apiVersion = "2023-06-01"

type messagesRequest struct {
	MaxTokens int         `json:"max_tokens"`
	Messages  []message   `json:"messages"`
	Model     string      `json:"model"`
	Stream    bool        `json:"stream"`
	System    []textBlock `json:"system,omitempty"`
	Tools     []tool      `json:"tools,omitempty"`
}

type message struct {
	Content []block `json:"content"`
	Role    string  `json:"role"`
}

// block is a content block: textBlock, toolUseBlock or toolResultBlock.
type block interface{ isBlock() }

type textBlock struct {
	Text string `json:"text"`
	Type string `json:"type"` // "text"
}

type toolUseBlock struct {
	ID    string `json:"id"`
	Input any    `json:"input"` // a JSON object
	Name  string `json:"name"`
	Type  string `json:"type"` // "tool_use"
}

type toolResultBlock struct {
	ToolUseID string `json:"tool_use_id"`
	// Content is left out for an empty result: the API refuses an empty
	// text block.
	Content []textBlock `json:"content,omitempty"`
	Type    string      `json:"type"` // "tool_result"
}

func (textBlock) isBlock()       {}
func (toolUseBlock) isBlock()    {}
func (toolResultBlock) isBlock() {}

func text(s string) textBlock { return textBlock{Text: s, Type: "text"} }

type tool struct {
	Name        string         `json:"name"`
	Description string         `json:"description,omitempty"`
	InputSchema map[string]any `json:"input_schema"`
}

// streamEvent is one event of the stream, of any type: message_start,
// content_block_start, content_block_delta, message_delta... (ping and
// error events are told apart by the SSE event name).
type streamEvent struct {
	Type    string `json:"type"`
	Message struct {
		ID    string `json:"id"`
		Model string `json:"model"`
		Usage usage  `json:"usage"`
	} `json:"message"`
	Index        int64 `json:"index"`
	ContentBlock struct {
		Type  string          `json:"type"`
		Text  string          `json:"text"`
		ID    string          `json:"id"`
		Name  string          `json:"name"`
		Input json.RawMessage `json:"input"`
		// From and To name the models of a fallback block: the API
		// answered from To instead of From.
		From struct {
			Model string `json:"model"`
		} `json:"from"`
		To struct {
			Model string `json:"model"`
		} `json:"to"`
	} `json:"content_block"`
	// Delta is a content_block_delta's (type, text, partial_json) or a
	// message_delta's (stop_reason, and stop_details for a refusal).
	Delta struct {
		Type        string       `json:"type"`
		Text        string       `json:"text"`
		PartialJSON string       `json:"partial_json"`
		StopReason  string       `json:"stop_reason"`
		StopDetails *stopDetails `json:"stop_details"`
	} `json:"delta"`
	Usage usage `json:"usage"`
}

// stopDetails explains a stop_reason; for "refusal", the policy category
// and the API's explanation.
type stopDetails struct {
	Type        string `json:"type"`
	Category    string `json:"category"`
	Explanation string `json:"explanation"`
}

type usage struct {
	InputTokens              int `json:"input_tokens"`
	CacheCreationInputTokens int `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int `json:"cache_read_input_tokens"`
	OutputTokens             int `json:"output_tokens"`
}

// errorEvent is the data of an error event, the shape of an error answer
// too: {"type":"error","error":{"type":"overloaded_error","message":...}}.
type errorEvent struct {
	Error struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	} `json:"error"`
}
