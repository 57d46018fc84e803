package sandbox

import (
	"regexp"
	"strings"
	"sync"
)

// programStem names the file a program runs from when it is a file (stdin
// is the caller's, the run is in a project dir, a warm run, Windows):
// programStem + the language's extension, in a run, program or hook dir of
// the temp root. It is not an importable module name.
const programStem = "loopforge-code"

// programPaths match the program file's full path in what a program
// printed: quoted (as a Python traceback writes it, spaces allowed: a
// Windows temp dir under "C:\Users\Ana Lima\…") or bare (as sh and node
// write it).
var programPaths = sync.OnceValue(func() [2]*regexp.Regexp {
	kinds := strings.Join([]string{regexp.QuoteMeta(kindRun), regexp.QuoteMeta(kindHook), regexp.QuoteMeta(kindProg)}, "|")
	file := `[/\\](?:` + kinds + `)[A-Za-z0-9-]*[/\\]` + regexp.QuoteMeta(programStem) + `(?:\.[A-Za-z0-9]+)?`
	return [2]*regexp.Regexp{
		regexp.MustCompile(`"[^"\n]*` + file + `"`),
		regexp.MustCompile(`(?:[A-Za-z]:)?[^\s"'()<>\[\]{},;]*` + file + `\b`),
	}
})

// NameProgram rewrites, in text a program printed (a traceback, an error),
// the sandbox's own path of the program file ("/tmp/loopforge-run-…/
// loopforge-code.py") to name, the file as its user knows it. The history
// keeps what was printed; what is shown to people (a handout) calls this.
func NameProgram(text, name string) string {
	if !strings.Contains(text, programStem) {
		return text
	}
	re := programPaths()
	text = re[0].ReplaceAllLiteralString(text, `"`+name+`"`)
	return re[1].ReplaceAllLiteralString(text, name)
}
