package export

import (
	"bytes"
	"io"
	"os"
	"slices"
	"strings"
	"testing"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

var voidElements = map[string]bool{
	"area": true, "base": true, "br": true, "col": true, "embed": true, "hr": true, "img": true, "input": true,
	"link": true, "meta": true, "source": true, "track": true, "wbr": true,
}

// checkBalanced walks the tokens and requires every non-void element to be
// closed in order: the page is well-formed, not just parseable.
func checkBalanced(t *testing.T, page []byte) {
	t.Helper()
	z := html.NewTokenizer(bytes.NewReader(page))
	var stack []string
	for {
		switch z.Next() {
		case html.ErrorToken:
			if z.Err() != io.EOF {
				t.Fatal(z.Err())
			}
			if len(stack) > 0 {
				t.Errorf("unclosed elements at the end: %v", stack)
			}
			return
		case html.StartTagToken:
			name, _ := z.TagName()
			if !voidElements[string(name)] {
				stack = append(stack, string(name))
			}
		case html.EndTagToken:
			name, _ := z.TagName()
			if len(stack) == 0 || stack[len(stack)-1] != string(name) {
				t.Fatalf("</%s> closes %v", name, stack)
			}
			stack = stack[:len(stack)-1]
		}
	}
}

func textOf(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return b.String()
}

func hasClass(n *html.Node, class string) bool {
	for _, a := range n.Attr {
		if a.Key == "class" && slices.Contains(strings.Fields(a.Val), class) {
			return true
		}
	}
	return false
}

func TestHTML(t *testing.T) {
	b := fixture()
	_, page := render(t, b, FormatHTML, "")
	if dir := os.Getenv("LOOPFORGE_HANDOUT_DIR"); dir != "" { // for a look in a browser
		_ = os.WriteFile(dir+"/handout.html", page, 0o644)
	}
	checkBalanced(t, page)
	doc, err := html.Parse(bytes.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}

	var (
		scripts, sections int
		title, csp        string
		pres              []*html.Node
		walk              func(*html.Node)
	)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			switch n.DataAtom {
			case atom.Script, atom.Iframe, atom.Object, atom.Embed, atom.Link, atom.Img:
				scripts++
			case atom.Title:
				title = textOf(n)
			case atom.Section:
				if hasClass(n, "run") {
					sections++
				}
			case atom.Pre:
				pres = append(pres, n)
			case atom.Meta:
				var equiv, content string
				for _, a := range n.Attr {
					switch a.Key {
					case "http-equiv":
						equiv = a.Val
					case "content":
						content = a.Val
					}
				}
				if strings.EqualFold(equiv, "Content-Security-Policy") {
					csp = content
				}
			}
			for _, a := range n.Attr {
				v := strings.ToLower(strings.TrimSpace(a.Val))
				switch {
				case strings.HasPrefix(a.Key, "on"):
					t.Errorf("event handler attribute %s=%q", a.Key, a.Val)
				case (a.Key == "src" || a.Key == "href" || a.Key == "action") && !strings.HasPrefix(v, "#"):
					t.Errorf("<%s %s=%q> points outside the page", n.Data, a.Key, a.Val)
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)

	if scripts != 0 {
		t.Errorf("%d script, frame, link or image elements; want none", scripts)
	}
	if title != "Estruturas de dados em Python · loopforge" {
		t.Errorf("title = %q", title)
	}
	if !strings.Contains(csp, "default-src 'none'") {
		t.Errorf("CSP = %q", csp)
	}
	if sections != 3 {
		t.Errorf("%d run sections; want 3", sections)
	}
	if bytes.Contains(bytes.ToLower(page), []byte("http:")) || bytes.Contains(bytes.ToLower(page), []byte("https:")) ||
		bytes.Contains(page, []byte("url(")) || bytes.Contains(page, []byte("@import")) {
		t.Error("the page names an external URL")
	}
	if bytes.Contains(page, []byte(xss)) {
		t.Error("model output reached the page unescaped")
	}

	// The model's text is there, as text: in the code, the output and the
	// reflection.
	full := textOf(doc)
	if n := strings.Count(full, xss); n < 3 {
		t.Errorf("the escaped model text appears %d times as text; want at least 3 (code, output, reflection)", n)
	}
	// Every final code appears exactly, highlighted, in a <pre>.
	found := map[string]bool{}
	for _, p := range pres {
		txt := textOf(p)
		for _, code := range []string{codeGemini, codeClaude2, codeOllama3, codeClaude1} {
			if txt == code {
				found[code] = true
				if !hasClass(p, "hl-chroma") {
					t.Error("code block is not highlighted")
				}
			}
		}
	}
	if len(found) != 4 {
		t.Errorf("%d of 4 code blocks found verbatim", len(found))
	}
	for _, want := range []string{"ZeroDivisionError: division by zero", "The list passed to media is empty", "This is the final code, shown below.",
		"The last code generated; it did not run cleanly.", "The answer had no usable code.", "Killed after 30s"} {
		if !strings.Contains(full, want) {
			t.Errorf("the page text lacks %q", want)
		}
	}
	if strings.Contains(full, "\x1b") {
		t.Error("ANSI escapes reached the page")
	}
	if !bytes.Contains(page, []byte("<code>media</code>")) || !bytes.Contains(page, []byte("<strong>None</strong>")) {
		t.Error("inline code and bold of the reflection are not marked up")
	}
	if !bytes.Contains(page, []byte("@media print")) {
		t.Error("no print styles")
	}
}
