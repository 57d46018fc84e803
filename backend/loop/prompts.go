package loop

import (
	"embed"
	"fmt"
	"strings"
	"sync"
	"text/template"
)

//go:embed prompts/*.tmpl prompts/*.txt
var promptFS embed.FS

// templates are parsed on first use, not at program start: most commands
// never build a prompt. A field missing from a template's data is an error
// (for typed data it always is; missingkey=error makes a map say so too).
var templates = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("prompts").Option("missingkey=error").ParseFS(promptFS, "prompts/*.tmpl"))
})

// A prompt is one template of prompts/ bound to the type of its data: the
// compiler keeps each template to its type, and TestPromptTemplates checks
// every field a template names against it, so a template mistake fails a
// test instead of a run.
type prompt[T any] string

func (p prompt[T]) render(data T) string { return render(string(p), data) }

// Every template, with its data.
const (
	generateSystemPrompt prompt[languageData]    = "generate_system.tmpl"
	formatErrorPrompt    prompt[formatErrorData] = "format_error.tmpl"
	execFailedPrompt     prompt[execFeedback]    = "exec_failed.tmpl"
	testsFailedPrompt    prompt[testsFeedback]   = "tests_failed.tmpl"
	reflectSystemPrompt  prompt[languageData]    = "reflect_system.tmpl"
	reflectUserPrompt    prompt[reflectData]     = "reflect_user.tmpl"
	withReflectionPrompt prompt[reflectionData]  = "with_reflection.tmpl"
	wsSystemPrompt       prompt[wsSystemData]    = "ws_system.tmpl"
	wsImplementPrompt    prompt[implementData]   = "ws_implement.tmpl"
	wsFixPrompt          prompt[fixData]         = "ws_fix.tmpl"
	auditSystemPrompt    prompt[struct{}]        = "audit_system.tmpl"
	auditUserPrompt      prompt[auditData]       = "audit_user.tmpl"
)

// languageData fills the script loop's system prompts.
type languageData struct {
	Language   string // as shown to the model: "Python"
	Fence      string // the code block's info string
	Structured bool   // the answer is a JSON object, not a fenced block
}

// formatErrorData says why an answer held no usable program.
type formatErrorData struct {
	languageData
	Problem string
}

// execFeedback reports a failed execution (tails of its output).
type execFeedback struct {
	Description string
	ExitCode    int
	Stderr      string
	Stdout      string
}

// testsFeedback reports the tests a program failed: the evidence of the
// visible ones, the verdict alone of the hidden ones.
type testsFeedback struct {
	Passed, Total int
	Failures      []testFailure
}

// testFailure is one failed test as the model may see it.
type testFailure struct {
	Index          int
	Name           string
	Verdict        string // in English: "wrong answer"
	Hidden, Assert bool
	Input          string
	Expected       string
	Actual         string
	Detail         string
}

// reflectData asks why a program failed.
type reflectData struct {
	Prompt      string
	Fence       string
	Code        string
	Description string
	Stderr      string
	Tests       *testsFeedback // the run's tests, when it has some
}

// reflectionData adds a reflection to the next generation's last message.
type reflectionData struct {
	Feedback   string
	Reflection string
}

// wsSystemData fills the workspace system prompt.
type wsSystemData struct {
	Tools    bool // the model edits files through the workspace tools
	Validate []string
}

// inputView is one of a task's inputs as the implement prompt shows it.
type inputView struct {
	Path    string
	Dir     bool
	Fence   string
	Content string // a file's text, or a folder's tree
}

// implementData is the workspace task as first asked.
type implementData struct {
	Instructions string
	Constraints  []string
	Inputs       []inputView
	Validate     []string
}

// fixData asks for another attempt at a workspace task.
type fixData struct {
	Attempt  int
	Failures []validation
	Audit    []string // the auditor's reasons for rejecting the change
	Problem  string   // the answer itself was unusable
}

// validation is a failed validation command, its output cut to the tails
// the fix prompt quotes.
type validation struct {
	Command  string
	ExitCode int
	TimedOut bool
	Stdout   string
	Stderr   string
}

// auditData is the change the auditor reviews.
type auditData struct {
	Instructions string
	Constraints  []string
	Diff         string
	Summary      string // the author's
}

// presets are the built-in teaching prompts, by id.
var presets = map[string]string{
	"data-structures-pt": mustRead("prompts/teaching_pt.txt"),
	"data-structures-en": mustRead("prompts/teaching_en.txt"),
}

// Preset returns the built-in teaching prompt with that id
// ("data-structures-pt", "data-structures-en"), "" if there is none.
func Preset(id string) string { return presets[id] }

// DefaultPrompt is used when the user gives none: the Portuguese original of
// the data-structures teaching prompt.
func DefaultPrompt() string { return presets["data-structures-pt"] }

func mustRead(name string) string {
	b, err := promptFS.ReadFile(name)
	if err != nil {
		panic(err)
	}
	return strings.TrimSpace(string(b))
}

// Language describes how code of one language is asked for and run.
type Language struct {
	Name    string // as shown to the model: "Python"
	Fence   string // info string of the fenced block: "python"
	Aliases []string
	Sandbox string // sandbox.Request.Language
}

// languages the loop can generate and run, by name; LookupLanguage finds
// one.
var languages = map[string]Language{
	"python": {Name: "Python", Fence: "python", Aliases: []string{"python", "py", "python3"}, Sandbox: "python"},
	"sh":     {Name: "POSIX shell", Fence: "sh", Aliases: []string{"sh", "bash", "shell", "zsh"}, Sandbox: "sh"},
	"node": {Name: "JavaScript (Node.js)", Fence: "javascript",
		Aliases: []string{"node", "nodejs", "javascript", "js"}, Sandbox: "node"},
}

// LookupLanguage accepts a language name or alias.
func LookupLanguage(name string) (Language, error) {
	n := strings.ToLower(strings.TrimSpace(name))
	if n == "" {
		n = "python"
	}
	for _, l := range languages {
		for _, a := range l.Aliases {
			if a == n {
				return l, nil
			}
		}
	}
	return Language{}, fmt.Errorf("unsupported language %q (supported: python, sh, node)", name)
}

func render(name string, data any) string {
	var b strings.Builder
	if err := templates().ExecuteTemplate(&b, name, data); err != nil {
		// Templates are embedded and fixed; failing here is a programming error.
		panic(fmt.Sprintf("loop: template %s: %v", name, err))
	}
	return strings.TrimSpace(b.String())
}

// tail keeps the last n bytes of s on a line boundary when possible, so a
// traceback's last lines (the useful part) reach the model.
func tail(s string, n int) string {
	s = strings.TrimRight(s, "\n")
	if len(s) <= n {
		return s
	}
	cut := s[len(s)-n:]
	if i := strings.IndexByte(cut, '\n'); i >= 0 && i < len(cut)-1 {
		cut = cut[i+1:]
	}
	return "…\n" + cut
}
