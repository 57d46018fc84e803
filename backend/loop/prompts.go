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
// never build a prompt.
var templates = sync.OnceValue(func() *template.Template {
	return template.Must(template.ParseFS(promptFS, "prompts/*.tmpl"))
})

// presets are the built-in teaching prompts (seeds/000), by id.
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
