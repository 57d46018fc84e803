package workspace

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// Tool is one function a model may call. Call gets the raw JSON arguments;
// what it returns (or its error's text) goes back to the model.
type Tool struct {
	Name        string
	Description string
	Parameters  map[string]any // JSON Schema of the arguments (an object)
	Call        func(ctx context.Context, args json.RawMessage) (string, error)
}

// Registry holds the tools offered to a model. Only registered tools are
// callable; Call never panics and never returns a Go error: a failure is
// text the model reads and can act on.
type Registry struct {
	ws    *Workspace
	run   CommandRunner
	tools map[string]Tool
	order []string
}

// toolName is the form of a tool name, at most 64 long (checked apart: a
// counted repeat {0,63} compiles to 63 nested copies, ~0.9 ms and 860
// allocations at every start-up).
var toolName = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_-]*$`)

// ErrUnknownTool is the cause of calling a name that is not registered.
var ErrUnknownTool = errors.New("unknown tool")

// NewRegistry returns a registry with the built-in file tools bound to ws;
// run_command is registered only when run is non-nil.
func NewRegistry(ws *Workspace, run CommandRunner) *Registry {
	r := &Registry{ws: ws, run: run, tools: map[string]Tool{}}
	for _, t := range r.builtins() {
		if err := r.Register(t); err != nil {
			panic(err) // fixed set; a clash is a programming error
		}
	}
	return r
}

// Register adds a tool; names are unique.
func (r *Registry) Register(t Tool) error {
	if len(t.Name) > 64 || !toolName.MatchString(t.Name) {
		return fmt.Errorf("tool name %q: use letters, digits, _ or -, starting with a letter (at most 64)", t.Name)
	}
	if _, dup := r.tools[t.Name]; dup {
		return fmt.Errorf("tool %q is already registered", t.Name)
	}
	if t.Call == nil {
		return fmt.Errorf("tool %q has no implementation", t.Name)
	}
	if t.Parameters == nil {
		t.Parameters = map[string]any{"type": "object", "properties": map[string]any{}}
	}
	r.tools[t.Name] = t
	r.order = append(r.order, t.Name)
	return nil
}

// Tools lists the registered tools in registration order.
func (r *Registry) Tools() []Tool {
	out := make([]Tool, 0, len(r.order))
	for _, n := range r.order {
		out = append(out, r.tools[n])
	}
	return out
}

// Call runs a tool. ok is false when the call failed; output then explains
// why, in words meant for the model.
func (r *Registry) Call(ctx context.Context, name string, args json.RawMessage) (output string, ok bool) {
	t, found := r.tools[name]
	if !found {
		names := append([]string(nil), r.order...)
		sort.Strings(names)
		return fmt.Sprintf("error: %v %q; available tools: %s", ErrUnknownTool, name, strings.Join(names, ", ")), false
	}
	if len(strings.TrimSpace(string(args))) == 0 {
		args = json.RawMessage("{}")
	}
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(args, &probe); err != nil {
		return fmt.Sprintf("error: the arguments of %s must be a JSON object: %v", name, err), false
	}
	if missing := missingRequired(t.Parameters, probe); len(missing) > 0 {
		return fmt.Sprintf("error: %s needs the argument(s) %s", name, strings.Join(missing, ", ")), false
	}
	defer func() {
		if v := recover(); v != nil {
			output, ok = fmt.Sprintf("error: tool %s crashed: %v", name, v), false
		}
	}()
	out, err := t.Call(ctx, args)
	if err != nil {
		if out != "" {
			return out + "\nerror: " + err.Error(), false
		}
		return "error: " + err.Error(), false
	}
	return out, true
}

func missingRequired(schema map[string]any, got map[string]json.RawMessage) []string {
	var missing []string
	switch req := schema["required"].(type) {
	case []string:
		for _, k := range req {
			if _, ok := got[k]; !ok {
				missing = append(missing, k)
			}
		}
	case []any:
		for _, v := range req {
			if k, _ := v.(string); k != "" {
				if _, ok := got[k]; !ok {
					missing = append(missing, k)
				}
			}
		}
	}
	return missing
}

func object(required []string, props map[string]any) map[string]any {
	return map[string]any{"type": "object", "properties": props, "required": required, "additionalProperties": false}
}

func str(desc string) map[string]any { return map[string]any{"type": "string", "description": desc} }

func decode[T any](args json.RawMessage) (T, error) {
	var v T
	if err := json.Unmarshal(args, &v); err != nil {
		return v, fmt.Errorf("invalid arguments: %w", err)
	}
	return v, nil
}

// MaxToolOutput caps what one tool call returns to the model.
const MaxToolOutput = 64 << 10

func clip(s string) string {
	if len(s) <= MaxToolOutput {
		return s
	}
	return s[:MaxToolOutput] + fmt.Sprintf("\n… [%d more bytes cut]", len(s)-MaxToolOutput)
}

// builtins are the file tools on the workspace and, with a runner,
// run_command.
func (r *Registry) builtins() []Tool {
	tools := []Tool{readFileTool(r.ws), writeFileTool(r.ws), listFilesTool(r.ws), searchFilesTool(r.ws), applyPatchTool(r.ws)}
	if r.run != nil {
		tools = append(tools, runCommandTool(r.ws, r.run))
	}
	return tools
}

// newTool is a Tool whose arguments decode into A before call sees them.
func newTool[A any](name, description string, params map[string]any, call func(context.Context, A) (string, error)) Tool {
	return Tool{Name: name, Description: description, Parameters: params,
		Call: func(ctx context.Context, raw json.RawMessage) (string, error) {
			a, err := decode[A](raw)
			if err != nil {
				return "", err
			}
			return call(ctx, a)
		}}
}

func readFileTool(ws *Workspace) Tool {
	type args struct {
		Path      string `json:"path"`
		StartLine int    `json:"start_line"`
		EndLine   int    `json:"end_line"`
	}
	return newTool("read_file",
		"Read a text file of the workspace. Paths are relative to the workspace root. Optionally a 1-based inclusive line range.",
		object([]string{"path"}, map[string]any{
			"path":       str("file path relative to the workspace root"),
			"start_line": map[string]any{"type": "integer", "description": "first line (1-based), optional"},
			"end_line":   map[string]any{"type": "integer", "description": "last line (inclusive), optional"},
		}),
		func(_ context.Context, a args) (string, error) {
			b, err := ws.ReadFile(a.Path)
			if err != nil {
				return "", err
			}
			s := string(b)
			if a.StartLine > 0 || a.EndLine > 0 {
				lines := strings.SplitAfter(s, "\n")
				from, to := max(a.StartLine, 1), a.EndLine
				if to <= 0 || to > len(lines) {
					to = len(lines)
				}
				if from > to {
					return "", fmt.Errorf("line range %d-%d is outside the file (%d lines)", a.StartLine, a.EndLine, len(lines))
				}
				s = strings.Join(lines[from-1:to], "")
			}
			return clip(s), nil
		})
}

func writeFileTool(ws *Workspace) Tool {
	type args struct {
		Path    string `json:"path"`
		Content string `json:"content"`
	}
	return newTool("write_file",
		"Create or overwrite a file of the workspace with the complete content given. Parent folders are created.",
		object([]string{"path", "content"}, map[string]any{
			"path":    str("file path relative to the workspace root"),
			"content": str("the complete new content of the file"),
		}),
		func(_ context.Context, a args) (string, error) {
			if err := ws.WriteFile(a.Path, []byte(a.Content)); err != nil {
				return "", err
			}
			return fmt.Sprintf("wrote %s (%d bytes)", a.Path, len(a.Content)), nil
		})
}

func listFilesTool(ws *Workspace) Tool {
	type args struct {
		Path      string `json:"path"`
		Recursive *bool  `json:"recursive"`
	}
	return newTool("list_files",
		"List files and folders under a folder of the workspace (default: the root). VCS and dependency folders are skipped.",
		object(nil, map[string]any{
			"path":      str("folder relative to the workspace root (default \".\")"),
			"recursive": map[string]any{"type": "boolean", "description": "descend into sub-folders (default true)"},
		}),
		func(_ context.Context, a args) (string, error) {
			entries, truncated, err := ws.List(a.Path, a.Recursive == nil || *a.Recursive)
			if err != nil {
				return "", err
			}
			var b strings.Builder
			for _, e := range entries {
				if e.Dir {
					fmt.Fprintf(&b, "%s/\n", e.Path)
				} else {
					fmt.Fprintf(&b, "%s (%d bytes)\n", e.Path, e.Size)
				}
			}
			if truncated {
				fmt.Fprintf(&b, "… listing cut at %d entries\n", MaxListEntries)
			}
			if b.Len() == 0 {
				return "(empty)", nil
			}
			return clip(b.String()), nil
		})
}

func searchFilesTool(ws *Workspace) Tool {
	type args struct {
		Pattern string `json:"pattern"`
		Path    string `json:"path"`
		Glob    string `json:"glob"`
	}
	return newTool("search_files",
		"Search the workspace's text files for lines matching a regular expression (RE2 syntax). Answers path:line: text.",
		object([]string{"pattern"}, map[string]any{
			"pattern": str("regular expression"),
			"path":    str("folder to search (default \".\")"),
			"glob":    str("only files whose name matches this glob, e.g. *.py"),
		}),
		func(_ context.Context, a args) (string, error) {
			ms, truncated, err := ws.Search(a.Pattern, a.Path, a.Glob)
			if err != nil {
				return "", err
			}
			var b strings.Builder
			for _, m := range ms {
				fmt.Fprintf(&b, "%s:%d: %s\n", m.Path, m.Line, m.Text)
			}
			if truncated {
				fmt.Fprintf(&b, "… cut at %d matches\n", MaxMatches)
			}
			if b.Len() == 0 {
				return "no matches", nil
			}
			return clip(b.String()), nil
		})
}

func applyPatchTool(ws *Workspace) Tool {
	type args struct {
		Patch string `json:"patch"`
	}
	return newTool("apply_patch",
		"Apply a unified diff (---/+++ headers, @@ hunks with context) to files of the workspace. All files apply or none.",
		object([]string{"patch"}, map[string]any{"patch": str("the unified diff")}),
		func(_ context.Context, a args) (string, error) {
			changed, err := ws.ApplyPatch(a.Patch)
			if err != nil {
				return "", err
			}
			return "patched " + strings.Join(changed, ", "), nil
		})
}

func runCommandTool(ws *Workspace, run CommandRunner) Tool {
	type args struct {
		Command string `json:"command"`
	}
	return newTool("run_command",
		"Run a shell command in the workspace root (e.g. the tests) and get its exit code and output.",
		object([]string{"command"}, map[string]any{"command": str("the shell command")}),
		func(ctx context.Context, a args) (string, error) {
			if strings.TrimSpace(a.Command) == "" {
				return "", errors.New("the command is empty")
			}
			res, err := run.RunCommand(ctx, ws.Root(), a.Command, nil)
			if err != nil {
				return "", err
			}
			return clip(formatResult(res)), nil
		})
}

func formatResult(res CommandResult) string {
	var b strings.Builder
	if res.TimedOut {
		b.WriteString("timed out\n")
	} else {
		fmt.Fprintf(&b, "exit code: %d\n", res.ExitCode)
	}
	if res.Stdout != "" {
		fmt.Fprintf(&b, "--- stdout ---\n%s\n", strings.TrimRight(res.Stdout, "\n"))
	}
	if res.Stderr != "" {
		fmt.Fprintf(&b, "--- stderr ---\n%s\n", strings.TrimRight(res.Stderr, "\n"))
	}
	return b.String()
}

// CommandTool is a user tool from config: the command runs with /bin/sh -c
// in the workspace root, receives the call's JSON arguments on stdin and in
// $LOOPFORGE_TOOL_ARGS, and its output is the result (a nonzero exit is an
// error the model sees).
type CommandTool struct {
	Name        string         `yaml:"name" json:"name"`
	Description string         `yaml:"description" json:"description"`
	Parameters  map[string]any `yaml:"parameters" json:"parameters"` // JSON Schema
	Command     string         `yaml:"command" json:"command"`
}

// RegisterCommand adds a command-backed tool; it needs a CommandRunner.
func (r *Registry) RegisterCommand(c CommandTool) error {
	if strings.TrimSpace(c.Command) == "" {
		return fmt.Errorf("tool %q has no command", c.Name)
	}
	if r.run == nil {
		return fmt.Errorf("tool %q: commands are not enabled in this workspace", c.Name)
	}
	if c.Parameters != nil {
		if typ, _ := c.Parameters["type"].(string); typ != "object" {
			return fmt.Errorf("tool %q: parameters must be a JSON Schema with \"type\": \"object\"", c.Name)
		}
	}
	run, ws := r.run, r.ws
	return r.Register(Tool{
		Name: c.Name, Description: c.Description, Parameters: c.Parameters,
		Call: func(ctx context.Context, args json.RawMessage) (string, error) {
			runner := run
			if x, ok := run.(EnvRunner); ok {
				// The arguments also travel in the environment, for
				// commands that do not read stdin.
				runner = x.WithEnv("LOOPFORGE_TOOL_ARGS=" + string(args))
			}
			res, err := runner.RunCommand(ctx, ws.Root(), c.Command, args)
			if err != nil {
				return "", err
			}
			out := clip(formatResult(res))
			if !res.OK() {
				return out, fmt.Errorf("%s", res.Describe())
			}
			return out, nil
		},
	})
}

// EnvRunner is a CommandRunner that can pass extra environment variables.
type EnvRunner interface {
	WithEnv(kv ...string) CommandRunner
}
