package export

import (
	"strings"
	"testing"

	"github.com/alecthomas/chroma/v2"
	"github.com/alecthomas/chroma/v2/lexers"
	"github.com/alecthomas/chroma/v2/styles"
	"github.com/loopforge/loopforge/backend/store"
)

// The copies in highlight/ must highlight exactly as chroma's own registry
// does (after a chroma upgrade: go generate ./backend/export).
func TestHighlightMatchesChroma(t *testing.T) {
	samples := map[string]string{
		"python":     "import sys\n\ndef f(x: int):\n    yield x\n    \ndef g(x: int) -> str:\n    \"\"\"doc\"\"\"\n    return f'{x!r}' + r'\\d' # note\n\n@dec\nclass A(B): pass\n",
		"sh":         "#!/bin/sh\nset -e\nfor f in *.txt; do echo \"$f ${x:-y}\" | wc -l; done > /dev/null 2>&1\n",
		"javascript": "const a = [1, 2].map((x) => x * 2); // c\nclass B extends C { async f() { return `t${a}` } }\n/re+/g.test('s')\n",
		"diff":       "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n-old\n+new\n context\n",
		"unknown":    "just text\n\twith a tab\n",
	}
	for lang, code := range samples {
		want := lexers.Get(lang)
		if want == nil {
			want = lexers.Fallback
		}
		got := lexerFor(lang)
		if got.Config().Name != want.Config().Name {
			t.Errorf("%s: lexer %q, chroma's %q", lang, got.Config().Name, want.Config().Name)
		}
		if g, w := tokens(t, got, code), tokens(t, want, code); g != w {
			t.Errorf("%s: tokens differ from chroma's:\n got %s\nwant %s", lang, g, w)
		}
	}
	for _, lang := range []string{"", "python", "sh", "node", LanguageDiff} {
		if fence := langOf(&store.Run{Language: lang}).fence; lexerRegistry().Get(fence) == nil {
			t.Errorf("no lexer for %q's fence %q", lang, fence)
		}
	}

	var got, want strings.Builder
	if err := highlighter().WriteCSS(&got, highlightStyle()); err != nil {
		t.Fatal(err)
	}
	if err := highlighter().WriteCSS(&want, styles.Get("github")); err != nil {
		t.Fatal(err)
	}
	if got.String() != want.String() {
		t.Errorf("the style's CSS differs from chroma's github style:\n got %s\nwant %s", got.String(), want.String())
	}
}

func tokens(t *testing.T, l chroma.Lexer, code string) string {
	t.Helper()
	it, err := chroma.Coalesce(l).Tokenise(nil, code)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, tok := range it.Tokens() {
		b.WriteString(tok.GoString())
		b.WriteByte(' ')
	}
	return b.String()
}
