// Package claudecli runs Claude Code (`claude`) as a provider.
//
// Each range over Stream runs, in Request.Workdir (or a private directory),
//
//	claude -p --output-format stream-json --verbose --include-partial-messages
//	       --permission-mode default|acceptEdits [--model M]
//	       [--session-id NEW | --resume ID] [profile args...] PROMPT  </dev/null
//
// and streams the text_delta fragments of its stream_event lines. Tool calls
// (tool_use blocks and their tool_result), the session id, usage and cost are
// collected into the Response; success is the final `result` event's
// is_error (not its subtype, not the exit code: a 401 ends with subtype
// "success", is_error true, exit 1). A rejected key is reported as a
// *provider.Error of KindAuth, also when claude would otherwise retry it for
// minutes (api_retry events with status 401/403 stop it at once). Tools
// claude's permission mode refused are marked ToolDenied and explained in
// Response.Warnings. See cliproc for process handling and the other errors.
//
// Script mode uses permission mode "default", in which headless claude
// denies every edit and command; workspace mode uses "acceptEdits" (edits
// inside the working directory only). Bypass modes are never chosen here:
// a profile's args may add them deliberately.
//
// Sessions: claude files them under the path of its cwd, so a new session
// gets an id chosen here (--session-id) and, when no workdir is given, a
// private directory named after it; resuming (Request.SessionID) runs in a
// directory of the same path with --resume. Never --session-id with an id
// that exists: claude refuses it.
//
// Environment (see cliproc.Env): the common variables plus ANTHROPIC_*,
// CLAUDE_* and DISABLE_* (claude's own key, endpoint and settings, e.g.
// CLAUDE_CONFIG_DIR); DISABLE_AUTOUPDATER=1 and
// CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 are set; the profile's key (if
// it names api_key_env) is passed as ANTHROPIC_API_KEY and its base_url as
// ANTHROPIC_BASE_URL; the profile's pass_env is passed on; the profile's
// env comes last. When claude's settings (or CLAUDE_CODE_USE_* in the
// environment) route it through Bedrock, Vertex AI or Foundry, that cloud's
// credential variables are passed on too (see configEnv).
package claudecli

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/loopforge/loopforge/backend/provider"
	"github.com/loopforge/loopforge/backend/provider/cliproc"
)

const (
	// DefaultBinary is the executable looked up when the profile names none.
	DefaultBinary = "claude"
	// KeyEnv is the variable claude reads its API key from.
	KeyEnv = "ANTHROPIC_API_KEY"
)

var cli = cliproc.CLI{
	Name:        DefaultBinary,
	KeyEnv:      KeyEnv,
	OwnEnv:      []string{"ANTHROPIC_*", "CLAUDE_*", "DISABLE_*"},
	InstallHint: "install it with `npm install -g @anthropic-ai/claude-code`, or set binary: in the profile",
	AuthHint:    "set ANTHROPIC_API_KEY, or run `claude` once in a terminal and log in",
	NewSessions: true,
	ConfigEnv:   configEnv,
}

// Client runs claude for one profile. It is safe for concurrent use.
type Client struct {
	*cliproc.Base
}

var _ provider.Provider = (*Client)(nil)

// New builds a client for p. It starts no process and does not look for the
// executable yet (see Check). A profile that names api_key_env fails with
// provider.ErrMissingKey when that variable is empty (see cliproc.NewBase).
func New(p provider.Profile) (provider.Provider, error) {
	set := map[string]string{
		"DISABLE_AUTOUPDATER":                      "1",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
	}
	if p.BaseURL != "" {
		// claude appends /v1/messages itself.
		set["ANTHROPIC_BASE_URL"] = strings.TrimSuffix(strings.TrimRight(p.BaseURL, "/"), "/v1")
	}
	b, err := cliproc.NewBase(p, cli, set, command)
	if err != nil {
		return nil, err
	}
	return &Client{b}, nil
}

// command is claude's command line for one call; see the package doc.
func command(call cliproc.Call) cliproc.Command {
	args := []string{"-p", "--output-format", "stream-json", "--verbose", "--include-partial-messages",
		"--permission-mode", permissionMode(call.Req.Mode)}
	if call.Model != "" {
		args = append(args, "--model", call.Model)
	}
	if call.NewSession {
		args = append(args, "--session-id", call.Session)
	} else {
		args = append(args, "--resume", call.Session)
	}
	args = append(args, call.Args...)
	stdin := ""
	if len(call.Prompt) > cliproc.MaxArgPrompt {
		stdin = call.Prompt // with -p and no prompt argument, claude reads stdin
	} else {
		args = append(args, cliproc.PromptArg(call.Prompt))
	}
	return cliproc.Command{Args: args, Stdin: stdin, Parser: &parser{mode: call.Req.Mode, streamed: map[string]bool{}}}
}

func permissionMode(m provider.Mode) string {
	if m == provider.ModeWorkspace {
		return "acceptEdits"
	}
	return "default"
}

// --- events ---------------------------------------------------------------

type event struct {
	Type            string          `json:"type"`
	Subtype         string          `json:"subtype"`
	SessionID       string          `json:"session_id"`
	Model           string          `json:"model"`
	ParentToolUseID *string         `json:"parent_tool_use_id"`
	Event           *streamEvent    `json:"event"`
	Message         *message        `json:"message"`
	Error           json.RawMessage `json:"error"` // a string so far ("authentication_failed")

	// system/api_retry
	Attempt     int  `json:"attempt"`
	MaxRetries  int  `json:"max_retries"`
	ErrorStatus *int `json:"error_status"`

	// result
	IsError           bool            `json:"is_error"`
	APIErrorStatus    *int            `json:"api_error_status"`
	Result            string          `json:"result"`
	StopReason        string          `json:"stop_reason"`
	TotalCostUSD      float64         `json:"total_cost_usd"`
	Usage             *usage          `json:"usage"`
	PermissionDenials []denial        `json:"permission_denials"`
	Errors            json.RawMessage `json:"errors"`
}

type streamEvent struct {
	Type    string `json:"type"`
	Message *struct {
		ID string `json:"id"`
	} `json:"message"`
	ContentBlock *block `json:"content_block"`
	Delta        *struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"delta"`
}

type message struct {
	ID      string          `json:"id"`
	Model   string          `json:"model"`
	Content json.RawMessage `json:"content"` // blocks, or a plain string
}

type block struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
}

type usage struct {
	InputTokens              int `json:"input_tokens"`
	OutputTokens             int `json:"output_tokens"`
	CacheCreationInputTokens int `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int `json:"cache_read_input_tokens"`
}

type denial struct {
	ToolName  string          `json:"tool_name"`
	ToolUseID string          `json:"tool_use_id"`
	ToolInput json.RawMessage `json:"tool_input"`
}

type parser struct {
	mode     provider.Mode
	streamed map[string]bool // assistant message ids whose text came as stream_event deltas
	cur      string          // id of the message being streamed
	apiError string          // an assistant event's error ("authentication_failed")
}

func (p *parser) Event(line []byte, r *cliproc.Result) error {
	var e event
	if err := json.Unmarshal(line, &e); err != nil {
		return err
	}
	top := e.ParentToolUseID == nil || *e.ParentToolUseID == "" // not inside a sub-agent
	switch e.Type {
	case "system":
		p.system(e, r)
	case "stream_event":
		if e.Event != nil && top {
			p.streamEvent(e.Event, r)
		}
	case "assistant":
		if e.Message != nil {
			p.assistant(e, top, r)
		}
	case "user":
		if e.Message != nil {
			toolResults(e.Message, r)
		}
	case "result":
		p.result(e, r)
	}
	return nil
}

func (p *parser) system(e event, r *cliproc.Result) {
	switch e.Subtype {
	case "init":
		r.SetSession(e.SessionID)
		r.SetModel(baseModel(e.Model))
	case "api_retry":
		status := 0
		if e.ErrorStatus != nil {
			status = *e.ErrorStatus
		}
		why := cliproc.Text(e.Error)
		if status == 401 || status == 403 {
			// Retrying will not make the key valid; claude would retry for minutes.
			r.Abort(status, fmt.Sprintf("the API answered %d (%s)", status, why))
			return
		}
		r.Warn(fmt.Sprintf("API request failed (status %d, %s); claude retries (attempt %d of %d)", status, why, e.Attempt, e.MaxRetries))
	}
}

// streamEvent takes the text of a top-level message as it streams; the
// assistant event that repeats it later is then skipped.
func (p *parser) streamEvent(ev *streamEvent, r *cliproc.Result) {
	switch ev.Type {
	case "message_start":
		if ev.Message != nil {
			p.cur = ev.Message.ID
		}
	case "content_block_start":
		if ev.ContentBlock != nil && ev.ContentBlock.Type == "text" {
			p.streamed[p.cur] = true
			r.Break()
			r.Text(ev.ContentBlock.Text)
		}
	case "content_block_delta":
		if ev.Delta != nil && ev.Delta.Type == "text_delta" {
			p.streamed[p.cur] = true
			r.Text(ev.Delta.Text)
		}
	}
}

func (p *parser) assistant(e event, top bool, r *cliproc.Result) {
	if s := cliproc.Text(e.Error); s != "" {
		p.apiError = s
	}
	if e.Message.Model != "" && e.Message.Model != "<synthetic>" && top {
		r.SetModel(e.Message.Model)
	}
	for _, b := range blocks(e.Message.Content) {
		switch b.Type {
		case "text":
			if top && !p.streamed[e.Message.ID] {
				r.Break()
				r.Text(b.Text)
			}
		case "tool_use":
			r.ToolUse(b.ID, b.Name, b.Input)
		}
	}
}

func toolResults(m *message, r *cliproc.Result) {
	for _, b := range blocks(m.Content) {
		if b.Type != "tool_result" {
			continue
		}
		out := resultText(b.Content)
		if b.IsError {
			r.ToolResult(b.ToolUseID, provider.ToolError, "", out)
		} else {
			r.ToolResult(b.ToolUseID, provider.ToolSuccess, out, "")
		}
	}
}

func (p *parser) result(e event, r *cliproc.Result) {
	r.SetSession(e.SessionID)
	if u := e.Usage; u != nil {
		r.SetUsage(provider.Usage{
			InputTokens:  u.InputTokens + u.CacheCreationInputTokens + u.CacheReadInputTokens,
			OutputTokens: u.OutputTokens,
			CostUSD:      e.TotalCostUSD,
		})
	}
	for _, d := range e.PermissionDenials {
		p.deny(r, d)
	}
	if !e.IsError {
		r.Succeed(e.StopReason)
		return
	}
	status := 0
	if e.APIErrorStatus != nil {
		status = *e.APIErrorStatus
	} else if p.apiError == "authentication_failed" {
		status = 401
	}
	msg := strings.TrimSpace(e.Result)
	if msg == "" {
		msg = strings.TrimSpace(e.Subtype + " " + errorsText(e.Errors))
	}
	r.Fail(status, msg)
}

// deny marks a tool claude's permission mode refused and says what to do.
func (p *parser) deny(r *cliproc.Result, d denial) {
	prev, _ := r.Tool(d.ToolUseID)
	if prev.Name == "" {
		r.ToolUse(d.ToolUseID, d.ToolName, d.ToolInput)
	}
	r.ToolResult(d.ToolUseID, provider.ToolDenied, "", prev.Error)
	target := ""
	var in struct {
		FilePath string `json:"file_path"`
		Command  string `json:"command"`
	}
	if json.Unmarshal(d.ToolInput, &in) == nil {
		switch {
		case in.FilePath != "":
			target = " on " + in.FilePath
		case in.Command != "":
			target = fmt.Sprintf(" (%q)", in.Command)
		}
	}
	advice := "script mode grants no write access; use workspace mode to let it edit files in the workdir"
	if p.mode == provider.ModeWorkspace {
		advice = "workspace mode only accepts file edits in the workdir; allow more with --allowedTools in the profile's args"
	}
	r.Warn(fmt.Sprintf("claude was not allowed to use %s%s: %s", d.ToolName, target, advice))
}

// blocks decodes message content; a plain string has none.
func blocks(raw json.RawMessage) []block {
	var bs []block
	if len(raw) == 0 || raw[0] != '[' || json.Unmarshal(raw, &bs) != nil {
		return nil
	}
	return bs
}

// resultText is a tool_result's content: a string or text blocks.
func resultText(raw json.RawMessage) string {
	if bs := blocks(raw); bs != nil {
		var parts []string
		for _, b := range bs {
			if b.Type == "text" {
				parts = append(parts, b.Text)
			}
		}
		return strings.Join(parts, "\n")
	}
	return cliproc.Text(raw)
}

func errorsText(raw json.RawMessage) string {
	var ss []string
	if json.Unmarshal(raw, &ss) == nil {
		return strings.Join(ss, "; ")
	}
	return cliproc.Text(raw)
}

// baseModel drops claude's context-size tag: "claude-opus-4-8[1m]" is the
// model "claude-opus-4-8".
func baseModel(m string) string {
	if i := strings.IndexByte(m, '['); i > 0 {
		return m[:i]
	}
	return m
}
