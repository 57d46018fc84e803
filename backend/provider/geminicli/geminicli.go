// Package geminicli runs Gemini CLI (`gemini`) as a provider.
//
// Each range over Stream runs, in Request.Workdir (or a private directory),
//
//	gemini -o stream-json --skip-trust --approval-mode default|auto_edit
//	       [-m M] [--session-id NEW | --resume ID] [profile args...] -p PROMPT  </dev/null
//
// and streams the assistant `message` deltas. tool_use / tool_result events
// become Response.ToolCalls; `error` events (warnings the CLI survives) become
// Response.Warnings; the final `result` event decides success and gives the
// usage. gemini exits with the HTTP status of a failed API call (401 exits
// 145 = 401 & 0xFF) and exits 0 without a result when terminated: neither
// exit code is trusted, the result event is. A 401 is a *provider.Error of
// KindAuth. See cliproc for process handling and the other errors.
//
// gemini.js re-launches itself in a child process and ignores SIGTERM in
// the parent; GEMINI_CLI_NO_RELAUNCH=true keeps it to one process, and the
// whole group is killed anyway. GEMINI_CLI_TRUST_WORKSPACE=true and
// --skip-trust stop it from refusing an untrusted folder (exit 55).
//
// Script mode uses approval mode "default", in which headless gemini does
// not even offer its write and shell tools to the model; workspace mode uses
// "auto_edit" (file edits approved, shell commands not). Never yolo by
// itself: a profile's args may add it deliberately.
//
// Sessions: gemini files them per project directory (its cwd), so a new
// session gets an id chosen here (--session-id) and, when no workdir is
// given, a private directory named after it; resuming runs in a directory of
// the same path with --resume ID.
//
// Environment (see cliproc.Env): the common variables plus GEMINI_* and
// GOOGLE_* (its key, endpoint and Vertex/ADC settings), the two variables
// above, the profile's key (if it names api_key_env) as GEMINI_API_KEY and
// its base_url as GOOGLE_GEMINI_BASE_URL, the variables its settings refer
// to ($NAME, ${NAME}; see configEnv) and the profile's pass_env, then the
// profile's env.
package geminicli

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/loopforge/loopforge/backend/provider"
	"github.com/loopforge/loopforge/backend/provider/cliproc"
)

const (
	// DefaultBinary is the executable looked up when the profile names none.
	DefaultBinary = "gemini"
	// KeyEnv is the variable gemini reads its API key from.
	KeyEnv = "GEMINI_API_KEY"

	// stdinPrompt replaces -p's value when the prompt goes to stdin, which
	// gemini puts before it.
	stdinPrompt = "Follow the instructions above."
)

var cli = cliproc.CLI{
	Name:        DefaultBinary,
	KeyEnv:      KeyEnv,
	OwnEnv:      []string{"GEMINI_*", "GOOGLE_*"},
	InstallHint: "install it with `npm install -g @google/gemini-cli`, or set binary: in the profile",
	AuthHint:    "set GEMINI_API_KEY, or run `gemini` once in a terminal and log in",
	NewSessions: true,
	Explain:     explainExit,
	ConfigEnv:   configEnv,
}

// Client runs gemini for one profile. It is safe for concurrent use.
type Client struct {
	*cliproc.Base
}

var _ provider.Provider = (*Client)(nil)

// New builds a client for p. It starts no process and does not look for the
// executable yet (see Check). A profile that names api_key_env fails with
// provider.ErrMissingKey when that variable is empty (see cliproc.NewBase).
func New(p provider.Profile) (provider.Provider, error) {
	set := map[string]string{
		"GEMINI_CLI_TRUST_WORKSPACE": "true",
		"GEMINI_CLI_NO_RELAUNCH":     "true",
	}
	if p.BaseURL != "" {
		// The SDK appends /v1beta/models/... itself.
		set["GOOGLE_GEMINI_BASE_URL"] = strings.TrimSuffix(strings.TrimRight(p.BaseURL, "/"), "/v1beta")
	}
	b, err := cliproc.NewBase(p, cli, set, command)
	if err != nil {
		return nil, err
	}
	return &Client{b}, nil
}

// command is gemini's command line for one call; see the package doc.
func command(call cliproc.Call) cliproc.Command {
	args := []string{"-o", "stream-json", "--skip-trust", "--approval-mode", approvalMode(call.Req.Mode)}
	if call.Model != "" {
		args = append(args, "-m", call.Model)
	}
	if call.NewSession {
		args = append(args, "--session-id", call.Session)
	} else {
		args = append(args, "--resume", call.Session)
	}
	args = append(args, call.Args...)
	stdin, prompt := "", call.Prompt
	if len(prompt) > cliproc.MaxArgPrompt {
		stdin, prompt = prompt, stdinPrompt
	}
	args = append(args, "-p", cliproc.PromptArg(prompt))
	return cliproc.Command{Args: args, Stdin: stdin, Parser: &parser{mode: call.Req.Mode}}
}

func approvalMode(m provider.Mode) string {
	if m == provider.ModeWorkspace {
		return "auto_edit"
	}
	return "default"
}

// exitStatus maps gemini's exit codes for a failed API call (the HTTP
// status & 0xFF) back to the status.
var exitStatus = map[int]int{145: 401, 147: 403, 173: 429, 244: 500, 246: 502, 247: 503}

var stderrMessage = regexp.MustCompile(`"message"\s*:\s*"((?:[^"\\]|\\.)*)"`)

// explainExit interprets an exit without a result event.
func explainExit(code int, stderr string) (int, string) {
	msg := ""
	if m := stderrMessage.FindStringSubmatch(stderr); m != nil {
		var s string
		if json.Unmarshal([]byte(`"`+m[1]+`"`), &s) == nil {
			msg = s
		}
	}
	switch code {
	case 41:
		if msg == "" {
			msg = "no usable credentials"
		}
		return 401, msg
	case 55:
		return 0, "gemini refused the workdir as untrusted"
	}
	if st, ok := exitStatus[code]; ok {
		return st, msg
	}
	return 0, ""
}

// --- events ---------------------------------------------------------------

type event struct {
	Type       string          `json:"type"`
	SessionID  string          `json:"session_id"`
	Model      string          `json:"model"`
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"`
	Delta      bool            `json:"delta"`
	ToolName   string          `json:"tool_name"`
	ToolID     string          `json:"tool_id"`
	Parameters json.RawMessage `json:"parameters"`
	Status     string          `json:"status"`
	Output     json.RawMessage `json:"output"`
	Error      json.RawMessage `json:"error"` // {type, message} in tool_result and result
	Severity   string          `json:"severity"`
	Message    string          `json:"message"`
	Stats      *struct {
		InputTokens  int                        `json:"input_tokens"`
		OutputTokens int                        `json:"output_tokens"`
		Models       map[string]json.RawMessage `json:"models"`
	} `json:"stats"`
}

type errorInfo struct {
	Type    string `json:"type"`
	Message string `json:"message"`
}

func errorOf(raw json.RawMessage) errorInfo {
	var e errorInfo
	if len(raw) > 0 && raw[0] == '{' {
		_ = json.Unmarshal(raw, &e)
	} else {
		e.Message = cliproc.Text(raw)
	}
	return e
}

type parser struct {
	mode provider.Mode
}

func (p *parser) Event(line []byte, r *cliproc.Result) error {
	var e event
	if err := json.Unmarshal(line, &e); err != nil {
		return err
	}
	switch e.Type {
	case "init":
		r.SetSession(e.SessionID)
		if e.Model != "auto" {
			r.SetModel(e.Model)
		}
	case "message":
		if e.Role != "assistant" {
			return nil // the prompt, echoed
		}
		if e.Delta {
			r.Text(cliproc.Text(e.Content))
		} else {
			r.Break()
			r.Text(cliproc.Text(e.Content))
			r.Break()
		}
	case "tool_use":
		r.ToolUse(e.ToolID, e.ToolName, e.Parameters)
		r.Break()
	case "tool_result":
		if e.Status == "success" {
			r.ToolResult(e.ToolID, provider.ToolSuccess, cliproc.Text(e.Output), "")
			return nil
		}
		info := errorOf(e.Error)
		r.ToolResult(e.ToolID, provider.ToolError, cliproc.Text(e.Output), strings.TrimSpace(info.Type+": "+info.Message))
		if deniedWords(info.Type + " " + info.Message) {
			tc, _ := r.Tool(e.ToolID)
			advice := "script mode grants no write access; use workspace mode to let it edit files in the workdir"
			if p.mode == provider.ModeWorkspace {
				advice = "workspace mode approves file edits only; allow more with the profile's args (e.g. --allowed-tools)"
			}
			r.Warn(fmt.Sprintf("gemini was not allowed to use %s: %s", tc.Name, advice))
		}
	case "error":
		r.Warn(strings.TrimSpace(e.Severity + ": " + e.Message))
	case "result":
		if s := e.Stats; s != nil {
			r.SetUsage(provider.Usage{InputTokens: s.InputTokens, OutputTokens: s.OutputTokens})
			if len(s.Models) == 1 {
				for m := range s.Models {
					r.SetModel(m)
				}
			}
		}
		if e.Status == "success" {
			r.Succeed("")
			return nil
		}
		msg := errorOf(e.Error).Message
		if msg == "" {
			msg = "status " + e.Status
		}
		r.Fail(cliproc.HTTPStatus(msg), apiMessage(msg))
	}
	return nil
}

// apiMessage digs the API's own words out of gemini's wrapping, e.g.
// `[API Error: {"error":{"code":401,"message":"API key not valid..."}}]`.
func apiMessage(msg string) string {
	i, j := strings.IndexByte(msg, '{'), strings.LastIndexByte(msg, '}')
	if i < 0 || j < i {
		return msg
	}
	if inner := provider.BodyMessage([]byte(msg[i : j+1])); inner != msg[i:j+1] {
		return inner
	}
	return msg
}

func deniedWords(s string) bool {
	s = strings.ToLower(s)
	return strings.Contains(s, "denied") || strings.Contains(s, "not allowed") ||
		strings.Contains(s, "permission") || strings.Contains(s, "not approved")
}
