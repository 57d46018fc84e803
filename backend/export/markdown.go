package export

import (
	"bytes"
	"html"
	"html/template"
	"regexp"
	"sync"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer"
	gmhtml "github.com/yuin/goldmark/renderer/html"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// The handout renders a model's prose (its reflections) as the app does
// (frontend/src/components/common/Markdown.tsx): GitHub-flavoured Markdown, with
// what the model wrote treated as hostile:
//   - raw HTML, block or inline, is shown as the text it is (goldmark's own
//     safe mode would drop it silently, hiding what the model said);
//   - links are not followed: the page links nowhere outside itself, so a
//     link is its text, with a web or mail address written after it;
//   - images are never fetched: their alt text stands in;
//   - fenced code is highlighted as the handout's code is (highlight).

var markdown = sync.OnceValue(func() goldmark.Markdown {
	return goldmark.New(
		goldmark.WithExtensions(extension.Table, extension.Strikethrough, extension.TaskList),
		goldmark.WithParserOptions(parser.WithASTTransformers(util.Prioritized(inertLinks{}, 100))),
		goldmark.WithRendererOptions(
			gmhtml.WithXHTML(), // no effect on safety; <br /> and <hr /> as the rest of the page writes them
			renderer.WithNodeRenderers(util.Prioritized(safeRenderer{}, 100)),
		),
	)
})

// proseMarkdown renders a model's Markdown as HTML for the handout. When
// goldmark fails (it does not on a bytes.Buffer), the text is shown escaped.
func proseMarkdown(s string) template.HTML {
	var b bytes.Buffer
	if err := markdown().Convert([]byte(s), &b); err != nil {
		return template.HTML(`<p>` + html.EscapeString(s) + `</p>`)
	}
	return template.HTML(b.String()) // #nosec: raw HTML is escaped, links and images are text (see above)
}

// safeRenderer renders the nodes that could let the model's text out of its
// place: raw HTML as escaped text, and code blocks through the highlighter.
type safeRenderer struct{}

func (safeRenderer) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(ast.KindHTMLBlock, renderHTMLBlock)
	reg.Register(ast.KindRawHTML, renderRawHTML)
	reg.Register(ast.KindFencedCodeBlock, renderCodeBlock)
	reg.Register(ast.KindCodeBlock, renderCodeBlock)
}

func renderHTMLBlock(w util.BufWriter, src []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	hb := n.(*ast.HTMLBlock)
	var text bytes.Buffer
	lines := hb.Lines()
	for i := range lines.Len() {
		seg := lines.At(i)
		text.Write(seg.Value(src))
	}
	if hb.HasClosure() {
		text.Write(hb.ClosureLine.Value(src))
	}
	_, _ = w.WriteString(`<p class="raw">` + html.EscapeString(string(bytes.TrimRight(text.Bytes(), "\n"))) + "</p>\n")
	return ast.WalkContinue, nil
}

func renderRawHTML(w util.BufWriter, src []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkSkipChildren, nil
	}
	segs := n.(*ast.RawHTML).Segments
	for i := range segs.Len() {
		seg := segs.At(i)
		_, _ = w.WriteString(html.EscapeString(string(seg.Value(src))))
	}
	return ast.WalkSkipChildren, nil
}

func renderCodeBlock(w util.BufWriter, src []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	var code bytes.Buffer
	lines := n.Lines()
	for i := range lines.Len() {
		seg := lines.At(i)
		code.Write(seg.Value(src))
	}
	lang := ""
	if fb, ok := n.(*ast.FencedCodeBlock); ok {
		lang = string(fb.Language(src))
	}
	_, _ = w.WriteString(`<div class="code">` + string(highlight(code.String(), lang)) + "</div>\n")
	return ast.WalkContinue, nil
}

// webAddress is a link destination written out after the link's text.
var webAddress = regexp.MustCompile(`(?i)^(https?:|mailto:)`)

// inertLinks replaces every link, autolink and image with text: a link by
// its text (and its web or mail address in parentheses), an image by its alt
// text.
type inertLinks struct{}

func (inertLinks) Transform(doc *ast.Document, reader text.Reader, _ parser.Context) {
	src := reader.Source()
	var found []ast.Node
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if entering {
			switch n.Kind() {
			case ast.KindLink, ast.KindAutoLink, ast.KindImage:
				found = append(found, n)
			}
		}
		return ast.WalkContinue, nil
	})
	for _, n := range found {
		parent := n.Parent()
		if parent == nil {
			continue
		}
		var dest string
		switch v := n.(type) {
		case *ast.Link:
			dest = string(v.Destination)
		case *ast.AutoLink:
			parent.ReplaceChild(parent, n, rawText(v.Label(src)))
			continue
		}
		for c := n.FirstChild(); c != nil; {
			next := c.NextSibling()
			parent.InsertBefore(parent, n, c)
			c = next
		}
		if dest != "" && webAddress.MatchString(dest) {
			parent.InsertBefore(parent, n, rawText([]byte(" ("+dest+")")))
		}
		parent.RemoveChild(parent, n)
	}
}

// rawText is a text node written as it is (escaped, with no Markdown
// entities or backslashes resolved).
func rawText(b []byte) *ast.String {
	s := ast.NewString(b)
	s.SetRaw(true)
	return s
}
