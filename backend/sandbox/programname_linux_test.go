package sandbox

import (
	"context"
	"strings"
	"testing"
)

// The tracebacks of real runs from a file (stdin given) name the program
// as its user knows it after NameProgram, in Python and in sh.
func TestNameProgramInRealTracebacks(t *testing.T) {
	r, err := NewRunner(Options{Isolation: IsolationBasic, TempRoot: t.TempDir(), Owner: "t-1"})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		lang, code, name string
		want             []string
	}{
		{"python", "def media(v):\n    return sum(v) / len(v)\n\nprint(media([]))\n", "media.py",
			[]string{`File "media.py", line 4, in <module>`, `File "media.py", line 2, in media`, "ZeroDivisionError"}},
		{"sh", "echo ok\nnao_existe\n", "script.sh", []string{"script.sh: ", "nao_existe"}},
	} {
		res, _ := runOn(t, r, context.Background(), Request{Language: c.lang, Code: c.code, Stdin: []byte("\n")})
		if !strings.Contains(res.Stderr, programStem) || !strings.Contains(res.Stderr, kindRun+"t-1-") {
			t.Fatalf("%s: the program's internal path is not in the traceback (nothing to rename):\n%s", c.lang, res.Stderr)
		}
		got := NameProgram(res.Stderr, c.name)
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: %q missing from\n%s", c.lang, w, got)
			}
		}
		if strings.Contains(got, "loopforge-") {
			t.Errorf("%s: an internal path is left:\n%s", c.lang, got)
		}
	}
}
