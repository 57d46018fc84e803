package cliproc

import (
	"encoding/json"
	"strings"

	"github.com/loopforge/loopforge/backend/provider"
)

// Result collects what a Parser learns from a CLI's events. Text reported
// here is yielded, in order, after the line that carried it; the
// concatenation of everything yielded is Response.Content.
type Result struct {
	resp    provider.Response
	content strings.Builder
	pending []string
	sep     bool           // the next text starts a new message
	tools   map[string]int // tool call id -> index in resp.ToolCalls

	final   bool     // the CLI's final event arrived
	failure *failure // what it (or a fatal event) reported; nil = success
	fatal   bool     // stop the CLI now
}

// failure is a failure the CLI reported. status is the HTTP status behind
// it when the CLI said (0 = none); msg is its words.
type failure struct {
	status int
	msg    string
}

// Text adds answer text. A blank line separates it from the previous
// message's text when Break was called since.
func (r *Result) Text(s string) {
	if s == "" {
		return
	}
	if r.sep && r.content.Len() > 0 {
		c := r.content.String()
		switch {
		case strings.HasSuffix(c, "\n\n"):
		case strings.HasSuffix(c, "\n"):
			r.emit("\n")
		default:
			r.emit("\n\n")
		}
	}
	r.sep = false
	r.emit(s)
}

func (r *Result) emit(s string) {
	r.content.WriteString(s)
	r.pending = append(r.pending, s)
}

// Break marks the end of a message: the next Text starts a new one.
func (r *Result) Break() { r.sep = true }

// Content is the text so far.
func (r *Result) Content() string { return r.content.String() }

// SetSession records the CLI's session id.
func (r *Result) SetSession(id string) {
	if id != "" {
		r.resp.SessionID = id
	}
}

// SetModel records the model that answered.
func (r *Result) SetModel(m string) {
	if m != "" {
		r.resp.Model = m
	}
}

// SetUsage records token counts and cost (the CLI's totals for the call).
func (r *Result) SetUsage(u provider.Usage) { r.resp.Usage = u }

// AddUsage adds to the token counts (CLIs that report per turn).
func (r *Result) AddUsage(u provider.Usage) {
	r.resp.Usage.InputTokens += u.InputTokens
	r.resp.Usage.OutputTokens += u.OutputTokens
	r.resp.Usage.CostUSD += u.CostUSD
}

// Warn records something the user should know that does not fail the call.
func (r *Result) Warn(msg string) {
	if msg != "" {
		r.resp.Warnings = append(r.resp.Warnings, msg)
	}
}

// ToolUse records a tool call the CLI started. A repeated id updates it.
func (r *Result) ToolUse(id, name string, input json.RawMessage) {
	if i, ok := r.tool(id); ok {
		tc := &r.resp.ToolCalls[i]
		if name != "" {
			tc.Name = name
		}
		if len(input) > 0 {
			tc.Input = input
		}
		return
	}
	r.resp.ToolCalls = append(r.resp.ToolCalls, provider.ToolCall{ID: id, Name: name, Input: input, Status: provider.ToolPending})
	if id != "" {
		if r.tools == nil {
			r.tools = map[string]int{}
		}
		r.tools[id] = len(r.resp.ToolCalls) - 1
	}
}

// ToolResult records how tool call id ended. An unknown id is recorded as a
// call of unknown name.
func (r *Result) ToolResult(id string, status provider.ToolStatus, output, errMsg string) {
	i, ok := r.tool(id)
	if !ok {
		r.ToolUse(id, "", nil)
		i = len(r.resp.ToolCalls) - 1
	}
	tc := &r.resp.ToolCalls[i]
	tc.Status, tc.Output, tc.Error = status, output, errMsg
}

// Tool returns the recorded call with that id.
func (r *Result) Tool(id string) (provider.ToolCall, bool) {
	i, ok := r.tool(id)
	if !ok {
		return provider.ToolCall{}, false
	}
	return r.resp.ToolCalls[i], true
}

func (r *Result) tool(id string) (int, bool) {
	if id == "" {
		return 0, false
	}
	i, ok := r.tools[id]
	return i, ok
}

// Succeed records the CLI's final event reporting success.
func (r *Result) Succeed(finishReason string) {
	r.final = true
	r.failure = nil
	if finishReason != "" {
		r.resp.FinishReason = finishReason
	}
}

// Fail records the CLI's final event reporting a failure. status is the
// HTTP status behind it when known (401 makes it an auth error), else 0.
func (r *Result) Fail(status int, msg string) {
	r.final = true
	r.failure = &failure{status: status, msg: msg}
}

// Abort reports a failure the CLI would only retry in vain (a rejected
// key): the CLI is stopped at once and the call fails with it.
func (r *Result) Abort(status int, msg string) {
	r.fatal = true
	r.failure = &failure{status: status, msg: msg}
}

// Final reports whether the CLI's final event arrived.
func (r *Result) Final() bool { return r.final }

func (r *Result) takePending() []string {
	p := r.pending
	r.pending = nil
	return p
}

// hasOutput: some answer arrived (text or tool calls).
func (r *Result) hasOutput() bool {
	return r.content.Len() > 0 || len(r.resp.ToolCalls) > 0
}
