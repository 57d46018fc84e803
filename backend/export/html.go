package export

import (
	"bytes"
	"embed"
	"fmt"
	"html"
	"html/template"
	"regexp"
	"strings"
	"sync"

	"github.com/alecthomas/chroma/v2"
	chromahtml "github.com/alecthomas/chroma/v2/formatters/html"
)

//go:embed handout.html.tmpl
var handoutTemplate string

//go:embed handout.css
var handoutCSS string

// The highlighter writes CSS classes (prefixed, so they cannot clash with the
// page's own) and the page embeds the matching rules once, which keeps a
// handout with many code blocks small.
//
// Everything here is built on first use, never at program start: chroma's
// own lexers and styles packages parse all of their ~300 lexers and ~70
// styles in their init (~45 ms and 4.7 MB for every command, `--version`
// included), so they are not imported. The few definitions the handouts use
// are chroma's XML files, copied into highlight/ (go generate; see
// highlight_test.go, which checks they still match the library's).
//
//go:generate sh highlight/copy.sh
//go:embed highlight/*.xml
var highlightXML embed.FS

var (
	highlighter = sync.OnceValue(func() *chromahtml.Formatter {
		return chromahtml.New(chromahtml.WithClasses(true), chromahtml.ClassPrefix("hl-"),
			chromahtml.WithCSSComments(false), chromahtml.TabWidth(4))
	})

	// lexerRegistry knows the languages of langOf's fences: python, sh,
	// javascript and diff (by their names and aliases, as chroma's does).
	lexerRegistry = sync.OnceValue(func() *chroma.LexerRegistry {
		reg := chroma.NewLexerRegistry()
		for _, f := range []string{"python.xml", "bash.xml", "javascript.xml", "diff.xml"} {
			reg.Register(chroma.MustNewXMLLexer(highlightXML, "highlight/"+f)) // fixed input; cannot fail
		}
		return reg
	})

	// fallbackLexer is chroma's lexers.Fallback: plain text.
	fallbackLexer = sync.OnceValue(func() chroma.Lexer {
		return chroma.MustNewLexer(&chroma.Config{Name: "fallback", Filenames: []string{"*"}, Priority: -1},
			func() chroma.Rules {
				return chroma.Rules{"root": {{Pattern: `.+`, Type: chroma.Text}, {Pattern: `\n`, Type: chroma.Text}}}
			})
	})

	// highlightStyle is chroma's "github" style.
	highlightStyle = sync.OnceValue(func() *chroma.Style {
		f, err := highlightXML.Open("highlight/github.xml")
		if err == nil {
			defer f.Close()
			var st *chroma.Style
			if st, err = chroma.NewXMLStyle(f); err == nil {
				return st
			}
		}
		panic(fmt.Sprintf("export: highlight style: %v", err)) // fixed input; cannot fail
	})

	pageCSS = sync.OnceValue(func() template.CSS {
		var b strings.Builder
		if err := highlighter().WriteCSS(&b, highlightStyle()); err != nil {
			panic(fmt.Sprintf("export: highlighter CSS: %v", err)) // fixed input; cannot fail
		}
		b.WriteString(handoutCSS) // after chroma's rules, so the page's win
		return template.CSS(b.String())
	})

	pageTemplate = sync.OnceValue(func() *template.Template {
		return template.Must(template.New("handout").Funcs(template.FuncMap{
			"highlight": highlight,
			"prose":     prose,
			"markdown":  proseMarkdown,
			"inc":       func(i int) int { return i + 1 },
		}).Parse(handoutTemplate))
	})
)

// html renders the handout as one HTML file: inline CSS, no scripts, no
// external resource, and a Content Security Policy that enforces both.
func (h *handout) html() ([]byte, error) {
	var buf bytes.Buffer
	data := struct {
		*handout
		CSS     template.CSS
		Summary []summary
	}{handout: h, CSS: pageCSS()}
	for i := range h.all {
		data.Summary = append(data.Summary, summarize(h.b, &h.all[i], h.lang))
	}
	if err := pageTemplate().Execute(&buf, data); err != nil {
		return nil, fmt.Errorf("export: html: %w", err)
	}
	return buf.Bytes(), nil
}

// highlight renders code as a highlighted <pre>. chroma escapes every token;
// if it fails the code is shown escaped and plain.
func highlight(code, lang string) template.HTML {
	lexer := lexerFor(lang)
	it, err := chroma.Coalesce(lexer).Tokenise(nil, code)
	if err == nil {
		var b strings.Builder
		if err = highlighter().Format(&b, highlightStyle(), it); err == nil {
			return template.HTML(b.String()) // #nosec: chroma escapes token text
		}
	}
	return template.HTML(`<pre class="hl-chroma"><code>` + html.EscapeString(code) + `</code></pre>`)
}

// lexerFor is the lexer for a fence's language, plain text when unknown.
func lexerFor(lang string) chroma.Lexer {
	if l := lexerRegistry().Get(lang); l != nil {
		return l
	}
	return fallbackLexer()
}

var (
	proseCode   = regexp.MustCompile("`([^`\n]+)`")
	proseStrong = regexp.MustCompile(`\*\*([^*\n]+)\*\*`)
)

// prose renders plain text (the user's prompt) for a white-space:
// pre-wrap block: everything escaped, then `code` and **bold** spans marked
// up. The markup is added to already escaped text, so it cannot open a hole.
func prose(s string) template.HTML {
	e := html.EscapeString(s)
	e = proseCode.ReplaceAllString(e, "<code>$1</code>")
	e = proseStrong.ReplaceAllString(e, "<strong>$1</strong>")
	return template.HTML(e)
}
