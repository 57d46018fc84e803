// Package codexcli runs OpenAI Codex CLI (`codex exec`) as a provider.
//
// Each range over Stream runs
//
//	codex exec --json --skip-git-repo-check -C DIR -s read-only|workspace-write
//	      [-m M] [profile args...] PROMPT                          </dev/null
//	codex exec --json --skip-git-repo-check -C DIR -s ... [-m M] [profile args...]
//	      resume ID PROMPT                                         (Request.SessionID)
//
// stdin is /dev/null: codex appends piped stdin to the prompt. codex --json
// prints whole messages, not token deltas, so each agent_message is yielded
// as one fragment (messages separated by a blank line). command_execution,
// file_change and other tool items become Response.ToolCalls, `error` items
// and non-fatal `error` events warnings; turn.completed decides success and
// gives the usage, turn.failed the failure. A 401/403 ("unexpected status
// 401 Unauthorized"), which codex would retry five times, stops it at once as
// a *provider.Error of KindAuth. See cliproc for process handling and the
// other errors.
//
// Script mode passes `-s read-only` explicitly (a user's config.toml may say
// otherwise); workspace mode `-s workspace-write` with /tmp and $TMPDIR
// excluded (-c sandbox_workspace_write.exclude_*): edits inside DIR only.
// Never --dangerously-bypass-approvals-and-sandbox by itself: a profile's
// args may add it deliberately.
//
// A profile with base_url points codex at that Responses API endpoint
// through a custom model provider given with -c (codex ignores
// OPENAI_BASE_URL, and its built-in provider tries WebSockets first); the
// key goes in the variable the profile's api_key_env names.
//
// Environment (see cliproc.Env): the common variables plus CODEX_* and
// OPENAI_* (CODEX_HOME, its keys), the variables the user's codex config
// names (a custom model provider's env_key and the like; see configEnv) and
// the profile's pass_env; the profile's key, if it names api_key_env, as
// CODEX_API_KEY (or, with base_url, under that name); then the profile's
// env. When codex still misses a variable ("Missing environment variable"),
// the call fails with a *provider.Error of KindMissingEnv saying how to pass
// it. CODEX_HOME must not be under /tmp: codex then refuses to set up its
// sandbox helper and every command fails.
package codexcli

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/loopforge/loopforge/backend/provider"
	"github.com/loopforge/loopforge/backend/provider/cliproc"
)

const (
	// DefaultBinary is the executable looked up when the profile names none.
	DefaultBinary = "codex"
	// KeyEnv is the variable `codex exec` reads an API key from.
	KeyEnv = "CODEX_API_KEY"

	// customProvider names the model provider defined for a base_url.
	customProvider = "loopforge"
)

var cli = cliproc.CLI{
	Name:        DefaultBinary,
	KeyEnv:      KeyEnv,
	OwnEnv:      []string{"CODEX_*", "OPENAI_*"},
	InstallHint: "install it with `npm install -g @openai/codex` (with its optional native package), or set binary: in the profile",
	AuthHint:    "set CODEX_API_KEY, or run `codex login` in a terminal",
	// codex finds a session by id wherever it runs: no named directory.
	NewSessions: false,
	ConfigEnv:   configEnv,
	Classify:    classify,
}

// Client runs codex for one profile. It is safe for concurrent use.
type Client struct {
	*cliproc.Base
	provArgs []string // -c overrides for base_url
}

var _ provider.Provider = (*Client)(nil)

// New builds a client for p. It starts no process and does not look for the
// executable yet (see Check). A profile that names api_key_env fails with
// provider.ErrMissingKey when that variable is empty (see cliproc.NewBase).
func New(p provider.Profile) (provider.Provider, error) {
	c := &Client{}
	cli := cli // with base_url, the key goes in the profile's variable
	if p.BaseURL != "" {
		def := fmt.Sprintf("{name=%s, base_url=%s, wire_api=%s", tomlString(customProvider),
			tomlString(strings.TrimRight(p.BaseURL, "/")), tomlString("responses"))
		if p.APIKeyEnv != "" {
			def += ", env_key=" + tomlString(p.APIKeyEnv)
			cli.KeyEnv = p.APIKeyEnv
		}
		c.provArgs = []string{"-c", "model_provider=" + tomlString(customProvider),
			"-c", "model_providers." + customProvider + "=" + def + "}"}
	}
	b, err := cliproc.NewBase(p, cli, nil, c.command)
	if err != nil {
		return nil, err
	}
	c.Base = b
	return c, nil
}

// command is codex's command line for one call; see the package doc.
func (c *Client) command(call cliproc.Call) cliproc.Command {
	args := []string{"exec", "--json", "--skip-git-repo-check", "-C", call.Dir, "-s", sandboxMode(call.Req.Mode)}
	if call.Req.Mode == provider.ModeWorkspace {
		// workspace-write also opens /tmp and $TMPDIR by default: the
		// workdir only.
		args = append(args, "-c", "sandbox_workspace_write.exclude_slash_tmp=true",
			"-c", "sandbox_workspace_write.exclude_tmpdir_env_var=true")
	}
	if call.Model != "" {
		args = append(args, "-m", call.Model)
	}
	args = append(args, c.provArgs...)
	args = append(args, call.Args...)
	if call.Session != "" {
		args = append(args, "resume", call.Session)
	}
	stdin, prompt := "", call.Prompt
	if len(prompt) > cliproc.MaxArgPrompt {
		stdin, prompt = prompt, "-" // "-": read the prompt from stdin
	} else {
		prompt = cliproc.PromptArg(prompt)
	}
	args = append(args, prompt)
	return cliproc.Command{Args: args, Stdin: stdin, Parser: &parser{mode: call.Req.Mode}}
}

func sandboxMode(m provider.Mode) string {
	if m == provider.ModeWorkspace {
		return "workspace-write"
	}
	return "read-only"
}

func tomlString(s string) string {
	b, _ := json.Marshal(s) // JSON string escapes are valid in a TOML basic string
	return string(b)
}

// --- events ---------------------------------------------------------------

type event struct {
	Type     string          `json:"type"`
	ThreadID string          `json:"thread_id"`
	Item     json.RawMessage `json:"item"`
	Usage    *struct {
		InputTokens  int `json:"input_tokens"`
		OutputTokens int `json:"output_tokens"`
	} `json:"usage"`
	Error   json.RawMessage `json:"error"` // turn.failed: {message}
	Message string          `json:"message"`
}

// item holds the fields of the item types handled; others are kept raw.
type item struct {
	ID               string          `json:"id"`
	Type             string          `json:"type"`
	Status           string          `json:"status"`
	Text             string          `json:"text"`    // agent_message, reasoning
	Message          string          `json:"message"` // error
	Command          string          `json:"command"` // command_execution
	AggregatedOutput string          `json:"aggregated_output"`
	ExitCode         *int            `json:"exit_code"`
	Changes          json.RawMessage `json:"changes"` // file_change
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
	case "thread.started":
		r.SetSession(e.ThreadID)
	case "item.started", "item.updated", "item.completed":
		if len(e.Item) == 0 {
			return nil
		}
		var it item
		if err := json.Unmarshal(e.Item, &it); err != nil {
			return err
		}
		p.item(r, e.Type == "item.completed", it, e.Item)
	case "turn.completed":
		if e.Usage != nil {
			r.AddUsage(provider.Usage{InputTokens: e.Usage.InputTokens, OutputTokens: e.Usage.OutputTokens})
		}
		r.Succeed("")
	case "turn.failed":
		msg := messageOf(e.Error)
		r.Fail(cliproc.HTTPStatus(msg), msg)
	case "error":
		if st := cliproc.HTTPStatus(e.Message); st == 401 || st == 403 {
			// "Reconnecting... 1/5 (unexpected status 401 ...)": retrying
			// will not make the key valid.
			r.Abort(st, e.Message)
			return nil
		}
		r.Warn(e.Message)
	}
	return nil
}

func (p *parser) item(r *cliproc.Result, done bool, it item, raw json.RawMessage) {
	switch it.Type {
	case "agent_message":
		if done {
			r.Break()
			r.Text(it.Text)
			r.Break()
		}
	case "reasoning", "todo_list":
		// Not part of the answer, not a tool.
	case "error":
		if done {
			r.Warn(it.Message)
		}
	case "command_execution":
		r.ToolUse(it.ID, "command_execution", cliproc.Obj("command", it.Command))
		if !done {
			return
		}
		switch {
		case it.Status == "completed" && (it.ExitCode == nil || *it.ExitCode == 0):
			r.ToolResult(it.ID, provider.ToolSuccess, it.AggregatedOutput, "")
		default:
			why := it.Status
			if it.ExitCode != nil {
				why = fmt.Sprintf("exit code %d", *it.ExitCode)
			}
			r.ToolResult(it.ID, provider.ToolError, it.AggregatedOutput, why)
			if p.mode != provider.ModeWorkspace && sandboxRefusal(it.AggregatedOutput) {
				r.Warn(fmt.Sprintf("codex's command %q hit its read-only sandbox: script mode grants no write access; use workspace mode to let it edit files in the workdir", it.Command))
			}
		}
	case "file_change":
		r.ToolUse(it.ID, "file_change", cliproc.Obj("changes", it.Changes))
		if !done {
			return
		}
		if it.Status == "completed" {
			r.ToolResult(it.ID, provider.ToolSuccess, "", "")
			return
		}
		r.ToolResult(it.ID, provider.ToolError, "", "status "+it.Status)
		if p.mode != provider.ModeWorkspace {
			r.Warn("codex could not change files: script mode grants no write access; use workspace mode to let it edit files in the workdir")
		}
	default:
		// mcp_tool_call, web_search, collab_tool_call, ...: recorded as is.
		r.ToolUse(it.ID, it.Type, raw)
		if done {
			if it.Status == "failed" {
				r.ToolResult(it.ID, provider.ToolError, "", "status failed")
			} else {
				r.ToolResult(it.ID, provider.ToolSuccess, "", "")
			}
		}
	}
}

func messageOf(raw json.RawMessage) string {
	var m struct {
		Message string `json:"message"`
	}
	if len(raw) > 0 && raw[0] == '{' && json.Unmarshal(raw, &m) == nil {
		return m.Message
	}
	return cliproc.Text(raw)
}

func sandboxRefusal(out string) bool {
	o := strings.ToLower(out)
	return strings.Contains(o, "read-only file system") || strings.Contains(o, "permission denied") ||
		strings.Contains(o, "operation not permitted")
}
