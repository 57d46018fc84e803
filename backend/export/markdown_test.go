package export

import (
	"strings"
	"testing"

	nethtml "golang.org/x/net/html"
)

// A reflection is rendered as the app renders it: Markdown, with fenced code
// highlighted, and nothing the model wrote becoming markup of its own.
func TestProseMarkdown(t *testing.T) {
	const src = "The loop never ends: **`i`** is not increased.\n\n" +
		"```python\nwhile i < 3:\n    i += 1\n```\n\n" +
		"<script>alert(1)</script>\n\n" +
		"Inline <img src=x onerror=alert(2)> and <b>bold</b>.\n\n" +
		"- see [the docs](https://docs.python.org/3/) or [this](javascript:alert(3))\n" +
		"- ![a chart](https://example.com/chart.png)\n"
	out := string(proseMarkdown(src))

	if strings.Contains(out, "```") {
		t.Errorf("the fence is shown as text:\n%s", out)
	}
	doc, err := nethtml.Parse(strings.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	tags := map[string]int{}
	var walk func(*nethtml.Node)
	walk = func(n *nethtml.Node) {
		if n.Type == nethtml.ElementNode {
			tags[n.Data]++
			for _, a := range n.Attr {
				if a.Key != "class" {
					t.Errorf("<%s %s=%q>: the model's text made an attribute", n.Data, a.Key, a.Val)
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	for _, tag := range []string{"script", "img", "b", "a"} {
		if tags[tag] != 0 {
			t.Errorf("%d <%s> elements; want none:\n%s", tags[tag], tag, out)
		}
	}
	for _, tag := range []string{"strong", "code", "pre", "ul", "li"} {
		if tags[tag] == 0 {
			t.Errorf("no <%s>:\n%s", tag, out)
		}
	}
	if !strings.Contains(out, `<pre class="hl-chroma">`) || !strings.Contains(out, `<span class="hl-k">while</span>`) {
		t.Errorf("the fenced code is not highlighted as Python:\n%s", out)
	}
	text := textOf(doc)
	for _, want := range []string{
		"<script>alert(1)</script>",             // raw HTML block, as text
		"<img src=x onerror=alert(2)>",          // inline raw HTML, as text
		"<b>bold</b>",                           //
		"the docs (https://docs.python.org/3/)", // a web link: its text and address
		"or this\n",                             // a javascript: link: its text only
		"a chart",                               // an image: its alt text
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the text lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "javascript:") || strings.Contains(text, "chart.png") {
		t.Errorf("a script or image address is shown:\n%s", text)
	}
}

// The HTML handout shows a reflection's fenced code as code, highlighted,
// and not as ``` marks in the body font; its raw HTML stays text.
func TestHandoutRendersReflections(t *testing.T) {
	b := fixture()
	its := b.Iterations["run-ollama"]
	its[0].Reflection = "Define `tamanho` first:\n\n```python\ntamanho = len(doc)\nprint(tamanho)\n```\n\n<script>alert(1)</script>"
	_, page := render(t, b, FormatHTML, "")
	checkBalanced(t, page)
	doc, err := nethtml.Parse(strings.NewReader(string(page)))
	if err != nil {
		t.Fatal(err)
	}
	var refl *nethtml.Node
	var find func(*nethtml.Node)
	find = func(n *nethtml.Node) {
		if refl == nil && n.Type == nethtml.ElementNode && hasClass(n, "reflection") && strings.Contains(textOf(n), "tamanho = len(doc)") {
			refl = n
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			find(c)
		}
	}
	find(doc)
	if refl == nil {
		t.Fatal("no reflection with the fenced code")
	}
	var b2 strings.Builder
	if err := nethtml.Render(&b2, refl); err != nil {
		t.Fatal(err)
	}
	got := b2.String()
	if strings.Contains(got, "```") || !strings.Contains(got, `<pre class="hl-chroma">`) {
		t.Errorf("the reflection's code is not a highlighted block:\n%s", got)
	}
	if strings.Contains(got, "<script>") || !strings.Contains(textOf(refl), "<script>alert(1)</script>") {
		t.Errorf("the reflection's raw HTML is not shown as text:\n%s", got)
	}
}

// A traceback in a handout names the program as the exported script, not by
// the sandbox's internal path; the history (the JSON export) keeps the path.
func TestHandoutNamesTheProgram(t *testing.T) {
	// as python3 printed it for a program run from a file by the sandbox
	const tb = "Traceback (most recent call last):\n" +
		"  File \"/tmp/loopforge-pyhook-serve-2-3094215536/loopforge-code.py\", line 5, in <module>\n" +
		"    print(\"média:\", media([]))\n" +
		"  File \"/tmp/loopforge-pyhook-serve-2-3094215536/loopforge-code.py\", line 2, in media\n" +
		"    return sum(valores) / len(valores)\n" +
		"ZeroDivisionError: division by zero\n"
	b := fixture()
	b.Iterations["run-claude"][0].Stderr = tb
	b.Iterations["run-claude"][0].Reflection = "Line 2 of /tmp/loopforge-run-serve-2-77/loopforge-code.py divides by zero."
	const want = `File "estruturas-de-dados-em-python-claude.py", line 2, in media`
	for _, f := range []Format{FormatHTML, FormatMarkdown} {
		_, page := render(t, b, f, "")
		text := string(page)
		if f == FormatHTML {
			doc, err := nethtml.Parse(strings.NewReader(text))
			if err != nil {
				t.Fatal(err)
			}
			text = textOf(doc)
		}
		if !strings.Contains(text, want) || !strings.Contains(text, "Line 2 of estruturas-de-dados-em-python-claude.py") {
			t.Errorf("%s: the program is not named as the script:\n%s", f, text)
		}
		if strings.Contains(text, "loopforge-code") || strings.Contains(text, "/tmp/loopforge-") {
			t.Errorf("%s: the sandbox's path is shown", f)
		}
	}
	if _, data := render(t, b, FormatJSON, ""); !strings.Contains(string(data), "loopforge-pyhook-serve-2-3094215536/loopforge-code.py") {
		t.Error("the JSON export lost the recorded path")
	}
}
