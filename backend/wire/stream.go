package wire

// StreamRequest is what a client sends on the event websocket (GET
// /api/ws): op "subscribe" asks for the events of RunID with seq > After
// (then as they happen), op "unsubscribe" stops them. The server answers
// with event envelopes (backend/event.Event), in seq order per run, and with
// {"type":"error","run_id":…,"payload":{"message":…}} for a subscription it
// cannot serve.
type StreamRequest struct {
	Op    StreamOp `json:"op"`
	RunID string   `json:"run_id,omitempty"`
	After int64    `json:"after,omitempty"` // subscribe only; 0 = from the start
}

// StreamOp is a StreamRequest's operation.
type StreamOp string

const (
	StreamOpSubscribe   StreamOp = "subscribe"
	StreamOpUnsubscribe StreamOp = "unsubscribe"
	// StreamOpSubscribeClass asks for the class stream (class mode; see
	// class.go). It names no run.
	StreamOpSubscribeClass StreamOp = "subscribe_class"
)

// StreamErrorType is the type of the envelope that reports a failed
// subscription.
const StreamErrorType = "error"

// StreamErrorPayload is the payload of an "error" envelope: the English
// text, and the code and parameters of Error.
type StreamErrorPayload struct {
	Message string            `json:"message"`
	Code    string            `json:"code,omitempty"`
	Params  map[string]string `json:"params,omitempty"`
}
