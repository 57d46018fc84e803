package openai

import "encoding/json"

// The Chat Completions wire format (POST {base}/chat/completions with
// "stream": true), as far as loopforge uses it.
//
// Why not the official openai-go SDK: this package uses one endpoint of it,
// and linking it initialised the SDK's whole API surface (responses,
// realtime, live, shared...: 3-4 ms of package init, 1,900 allocations) in
// every loopforge process, `loopforge --version` included, whose whole run
// took 28 ms; with the Anthropic SDK gone too it takes 19 ms and the binary
// shrank from 48 to 20 MB (issue 13). These shapes are the documented ones, which OpenAI's
// compatible servers (OpenRouter, Ollama, LM Studio, vLLM) also speak; the
// tests drive them against a local server speaking them. Field order
// follows what the SDK sent.

type chatRequest struct {
	Model               string          `json:"model"`
	Messages            []message       `json:"messages"`
	Stream              bool            `json:"stream"`
	StreamOptions       streamOptions   `json:"stream_options"`
	MaxTokens           int             `json:"max_tokens,omitempty"`
	MaxCompletionTokens int             `json:"max_completion_tokens,omitempty"`
	Tools               []tool          `json:"tools,omitempty"`
	ResponseFormat      *responseFormat `json:"response_format,omitempty"`
}

type streamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

// message is a turn of any role. Content is nil only in an assistant turn
// that asks for tool calls and says nothing.
type message struct {
	Content    *string    `json:"content,omitempty"`
	ToolCalls  []toolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
	Role       string     `json:"role"`
}

type toolCall struct {
	ID       string       `json:"id"`
	Function functionCall `json:"function"`
	Type     string       `json:"type"` // "function"
}

type functionCall struct {
	Arguments string `json:"arguments"`
	Name      string `json:"name"`
}

type tool struct {
	Type     string   `json:"type"` // "function"
	Function function `json:"function"`
}

type function struct {
	Name        string         `json:"name"`
	Description string         `json:"description,omitempty"`
	Parameters  map[string]any `json:"parameters,omitzero"`
}

type responseFormat struct {
	Type       string     `json:"type"` // "json_schema"
	JSONSchema jsonSchema `json:"json_schema"`
}

type jsonSchema struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Schema      any    `json:"schema"`
	Strict      bool   `json:"strict"`
}

// chatChunk is one chat.completion.chunk event. An event may carry an error
// instead (the stream failed after it began).
type chatChunk struct {
	Model   string          `json:"model"`
	Choices []choice        `json:"choices"`
	Usage   *usage          `json:"usage"`
	Error   json.RawMessage `json:"error"`
}

type choice struct {
	Index        int64  `json:"index"`
	Delta        delta  `json:"delta"`
	FinishReason string `json:"finish_reason"`
}

type delta struct {
	Content   string          `json:"content"`
	Refusal   string          `json:"refusal"`
	ToolCalls []toolCallDelta `json:"tool_calls"`
}

// toolCallDelta is a fragment of a streamed call: the first carries its
// index, id and name, the following ones pieces of its arguments.
type toolCallDelta struct {
	Index    int64  `json:"index"`
	ID       string `json:"id"`
	Function struct {
		Name string `json:"name"`
		// Arguments is a JSON string on the wire; a server that sends the
		// object itself is taken as it wrote it (see argumentsText).
		Arguments json.RawMessage `json:"arguments"`
	} `json:"function"`
}

// usage is the last chunk's token count; OpenRouter adds the cost in USD
// as "cost" (kept raw: a number, or a number in a string).
type usage struct {
	PromptTokens     int             `json:"prompt_tokens"`
	CompletionTokens int             `json:"completion_tokens"`
	Cost             json.RawMessage `json:"cost"`
}

// streamError is the error object of an error event: OpenAI names a type,
// OpenRouter a numeric code.
type streamError struct {
	Message string `json:"message"`
	Type    string `json:"type"`
	Code    any    `json:"code"`
}
