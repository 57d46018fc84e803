package loop

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/loopforge/loopforge/backend/workspace"
)

// What a workspace run says about an attempt: the prompts it sends, and
// the summaries and commit message it writes.

// maxInputBytes bounds an input file quoted in the implement prompt.
const maxInputBytes = 64 << 10

// attempt is what one iteration produced, step by step.
type attempt struct {
	answer   string       // the model's summary of what it did
	problem  string       // why the answer itself is unusable (too many tool rounds)
	failures []validation // the validation commands that failed
	rejected []string     // the auditor's reasons
}

func (a attempt) passed() bool {
	return a.problem == "" && len(a.failures) == 0 && len(a.rejected) == 0
}

// implementPrompt is the first prompt: the task with its inputs read through
// the workspace (so an input outside the workdir is refused up front).
func implementPrompt(ws *workspace.Workspace, task Task) (string, error) {
	var inputs []inputView
	for _, p := range task.Inputs {
		in, err := readInput(ws, p)
		if err != nil {
			return "", fmt.Errorf("input %s: %w", p, err)
		}
		inputs = append(inputs, in)
	}
	return wsImplementPrompt.render(implementData{
		Instructions: strings.TrimSpace(task.Instructions), Constraints: task.Constraints, Inputs: inputs, Validate: task.Validate,
	}), nil
}

// readInput shows a file's content (cut at maxInputBytes) or a folder's
// tree.
func readInput(ws *workspace.Workspace, p string) (inputView, error) {
	entries, truncated, err := ws.List(p, true)
	if err != nil {
		return inputView{}, err
	}
	if len(entries) == 1 && !entries[0].Dir && filepath.ToSlash(filepath.Clean(p)) == entries[0].Path {
		b, err := ws.ReadFile(p)
		if err != nil {
			return inputView{}, err
		}
		content := string(b)
		if len(content) > maxInputBytes {
			content = content[:maxInputBytes] + "\n… [cut]"
		}
		return inputView{Path: p, Fence: strings.TrimPrefix(filepath.Ext(p), "."), Content: strings.TrimRight(content, "\n")}, nil
	}
	tree := strings.TrimRight(workspace.Tree(relativeTo(entries, p)), "\n")
	if truncated {
		tree += "\n…"
	}
	return inputView{Path: p, Dir: true, Content: tree}, nil
}

func relativeTo(entries []workspace.Entry, dir string) []workspace.Entry {
	prefix := filepath.ToSlash(filepath.Clean(dir)) + "/"
	out := make([]workspace.Entry, len(entries))
	for i, e := range entries {
		e.Path = strings.TrimPrefix(e.Path, prefix)
		out[i] = e
	}
	return out
}

// fixPrompt asks for another attempt after attempt it failed as a says.
func fixPrompt(it int, a attempt) string {
	return wsFixPrompt.render(fixData{Attempt: it, Failures: a.failures, Audit: a.rejected, Problem: a.problem})
}

// failureSummary is a failed attempt in one line.
func failureSummary(a attempt) string {
	var parts []string
	if a.problem != "" {
		parts = append(parts, a.problem)
	}
	for _, f := range a.failures {
		if f.TimedOut {
			parts = append(parts, fmt.Sprintf("`%s` timed out", f.Command))
		} else {
			parts = append(parts, fmt.Sprintf("`%s` exit %d", f.Command, f.ExitCode))
		}
	}
	if len(a.rejected) > 0 {
		parts = append(parts, "auditor rejected: "+strings.Join(a.rejected, "; "))
	}
	return strings.Join(parts, "; ")
}

// commitMessage: a subject from the task's first line, then what the model
// said it did and what validated it.
func commitMessage(task Task, summary string, iterations int) string {
	subject := strings.TrimSpace(task.Instructions)
	if i := strings.IndexByte(subject, '\n'); i >= 0 {
		subject = subject[:i]
	}
	if r := []rune(subject); len(r) > 64 {
		subject = string(r[:63]) + "…"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "loopforge: %s\n", subject)
	if s := strings.TrimSpace(summary); s != "" {
		if len(s) > 2000 {
			s = s[:2000] + "…"
		}
		fmt.Fprintf(&b, "\n%s\n", s)
	}
	b.WriteString("\n")
	if len(task.Validate) > 0 {
		b.WriteString("Validated by:\n")
		for _, c := range task.Validate {
			fmt.Fprintf(&b, "  %s\n", c)
		}
	}
	fmt.Fprintf(&b, "Iterations: %d\n", iterations)
	return b.String()
}
