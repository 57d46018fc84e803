package gemini

// The REST shapes of models.streamGenerateContent, as far as loopforge uses
// them (https://ai.google.dev/api/generate-content). Field order follows
// the API reference, which is also the order the tests read.

type generateRequest struct {
	Contents          []content        `json:"contents"`
	Tools             []tool           `json:"tools,omitempty"`
	SystemInstruction *content         `json:"systemInstruction,omitempty"`
	GenerationConfig  generationConfig `json:"generationConfig,omitzero"`
}

type content struct {
	Parts []part `json:"parts"`
	Role  string `json:"role,omitempty"`
}

type part struct {
	FunctionCall     *functionCall     `json:"functionCall,omitempty"`
	FunctionResponse *functionResponse `json:"functionResponse,omitempty"`
	Text             string            `json:"text,omitempty"`
	Thought          bool              `json:"thought,omitempty"`
	// ThoughtSignature is base64 on the wire, which is how encoding/json
	// writes and reads a []byte.
	ThoughtSignature []byte `json:"thoughtSignature,omitempty"`
}

type functionCall struct {
	ID   string         `json:"id,omitempty"`
	Args map[string]any `json:"args,omitempty"`
	Name string         `json:"name"`
}

type functionResponse struct {
	ID       string         `json:"id,omitempty"`
	Name     string         `json:"name"`
	Response map[string]any `json:"response"`
}

type tool struct {
	FunctionDeclarations []functionDeclaration `json:"functionDeclarations"`
}

type functionDeclaration struct {
	Name                 string `json:"name"`
	Description          string `json:"description,omitempty"`
	ParametersJSONSchema any    `json:"parametersJsonSchema,omitempty"`
}

type generationConfig struct {
	MaxOutputTokens    int    `json:"maxOutputTokens,omitempty"`
	ResponseMIMEType   string `json:"responseMimeType,omitempty"`
	ResponseJSONSchema any    `json:"responseJsonSchema,omitempty"`
}

// generateResponse is one event of the stream. An event may carry an error
// instead (the stream failed after it began).
type generateResponse struct {
	Candidates     []candidate     `json:"candidates"`
	PromptFeedback *promptFeedback `json:"promptFeedback"`
	UsageMetadata  *usageMetadata  `json:"usageMetadata"`
	ModelVersion   string          `json:"modelVersion"`
	Error          *rpcStatus      `json:"error"`
}

type candidate struct {
	Content      *content `json:"content"`
	FinishReason string   `json:"finishReason"`
	// FinishMessage explains a finish reason, when the API gives one.
	FinishMessage string         `json:"finishMessage"`
	SafetyRatings []safetyRating `json:"safetyRatings"`
}

// safetyRating is one harm category's verdict; Blocked says it stopped
// the answer.
type safetyRating struct {
	Category string `json:"category"`
	Blocked  bool   `json:"blocked"`
}

type promptFeedback struct {
	BlockReason        string `json:"blockReason"`
	BlockReasonMessage string `json:"blockReasonMessage"`
}

type usageMetadata struct {
	PromptTokenCount     int `json:"promptTokenCount"`
	CandidatesTokenCount int `json:"candidatesTokenCount"`
	ThoughtsTokenCount   int `json:"thoughtsTokenCount"`
}

// errorBody is an error answer: {"error": {...}}.
type errorBody struct {
	Error *rpcStatus `json:"error"`
}

// rpcStatus is Google's error object (google.rpc.Status as JSON).
type rpcStatus struct {
	Code    int              `json:"code"`
	Message string           `json:"message"`
	Status  string           `json:"status"`
	Details []map[string]any `json:"details"`
}

func (e *rpcStatus) Error() string {
	if e.Status != "" {
		return e.Status + ": " + e.Message
	}
	return e.Message
}
