package export

import (
	"bytes"
	_ "embed"
	"fmt"
	"html"
	"html/template"
	"regexp"
	"strings"
	"sync"

	"github.com/alecthomas/chroma/v2"
	chromahtml "github.com/alecthomas/chroma/v2/formatters/html"
	"github.com/alecthomas/chroma/v2/lexers"
	"github.com/alecthomas/chroma/v2/styles"
)

//go:embed handout.html.tmpl
var handoutTemplate string

//go:embed handout.css
var handoutCSS string

// The highlighter writes CSS classes (prefixed, so they cannot clash with the
// page's own) and the page embeds the matching rules once, which keeps a
// handout with many code blocks small.
const highlightStyle = "github"

var (
	highlighter = chromahtml.New(chromahtml.WithClasses(true), chromahtml.ClassPrefix("hl-"),
		chromahtml.WithCSSComments(false), chromahtml.TabWidth(4))

	pageCSS = sync.OnceValue(func() template.CSS {
		var b strings.Builder
		if err := highlighter.WriteCSS(&b, styles.Get(highlightStyle)); err != nil {
			panic(fmt.Sprintf("export: highlighter CSS: %v", err)) // fixed input; cannot fail
		}
		b.WriteString(handoutCSS) // after chroma's rules, so the page's win
		return template.CSS(b.String())
	})

	pageTemplate = sync.OnceValue(func() *template.Template {
		return template.Must(template.New("handout").Funcs(template.FuncMap{
			"highlight": highlight,
			"prose":     prose,
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
		data.Summary = append(data.Summary, summarize(h.b, &h.all[i]))
	}
	if err := pageTemplate().Execute(&buf, data); err != nil {
		return nil, fmt.Errorf("export: html: %w", err)
	}
	return buf.Bytes(), nil
}

// highlight renders code as a highlighted <pre>. chroma escapes every token;
// if it fails the code is shown escaped and plain.
func highlight(code, lang string) template.HTML {
	lexer := lexers.Get(lang)
	if lexer == nil {
		lexer = lexers.Fallback
	}
	it, err := chroma.Coalesce(lexer).Tokenise(nil, code)
	if err == nil {
		var b strings.Builder
		if err = highlighter.Format(&b, styles.Get(highlightStyle), it); err == nil {
			return template.HTML(b.String()) // #nosec: chroma escapes token text
		}
	}
	return template.HTML(`<pre class="hl-chroma"><code>` + html.EscapeString(code) + `</code></pre>`)
}

var (
	proseCode   = regexp.MustCompile("`([^`\n]+)`")
	proseStrong = regexp.MustCompile(`\*\*([^*\n]+)\*\*`)
)

// prose renders plain text (a prompt, a reflection) for a white-space:
// pre-wrap block: everything escaped, then `code` and **bold** spans marked
// up. The markup is added to already escaped text, so it cannot open a hole.
func prose(s string) template.HTML {
	e := html.EscapeString(s)
	e = proseCode.ReplaceAllString(e, "<code>$1</code>")
	e = proseStrong.ReplaceAllString(e, "<strong>$1</strong>")
	return template.HTML(e)
}
