package export

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

var verb = regexp.MustCompile(`%[-+# 0-9.]*[a-zA-Z]`)

// TestTextsHaveEveryLanguage: every key of the table has its words in
// every language, with the same verbs in the same order (the same
// arguments fill both).
func TestTextsHaveEveryLanguage(t *testing.T) {
	for key, m := range texts {
		if strings.TrimSpace(m.en) == "" || strings.TrimSpace(m.pt) == "" {
			t.Errorf("%s: a language is missing: %+v", key, m)
		}
		if a, b := verb.FindAllString(m.en, -1), verb.FindAllString(m.pt, -1); strings.Join(a, " ") != strings.Join(b, " ") {
			t.Errorf("%s: verbs differ: en %v, pt %v", key, a, b)
		}
	}
}

// TestEveryKeyUsedIsInTheTable: a key the code or the template asks for
// that the table lacks would print as itself.
func TestEveryKeyUsedIsInTheTable(t *testing.T) {
	uses := regexp.MustCompile(`(?:\.t\(|\bT )"([A-Za-z0-9_.]+)"`)
	files, _ := filepath.Glob("*.go")
	files = append(files, "handout.html.tmpl")
	n := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range uses.FindAllStringSubmatch(string(src), -1) {
			if strings.HasSuffix(m[1], ".") { // a prefix: "st." + a status
				continue
			}
			n++
			if _, ok := texts[m[1]]; !ok {
				t.Errorf("%s uses %q, which the table lacks", f, m[1])
			}
		}
	}
	if n < 50 {
		t.Fatalf("found only %d uses of the table: the pattern no longer matches the code", n)
	}
}

func TestParseLang(t *testing.T) {
	for in, want := range map[string]Lang{"": English, "en": English, "en-US": English, "PT": Portuguese, "pt-BR": Portuguese, "pt_PT": Portuguese} {
		if got, err := ParseLang(in); err != nil || got != want {
			t.Errorf("ParseLang(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := ParseLang("fr"); err == nil {
		t.Error("fr is not a language of the exports")
	}
}

// englishLeftovers lists the English words of the table found in text:
// every literal piece (between verbs) of six characters or more of a key
// whose two languages differ, unless Portuguese uses it too ("tokens").
func englishLeftovers(text string) []string {
	var pt strings.Builder
	for _, m := range texts {
		pt.WriteString(m.pt + "\n")
	}
	var found []string
	for key, m := range texts {
		if m.en == m.pt {
			continue
		}
		for _, piece := range verb.Split(m.en, -1) {
			piece = strings.TrimSpace(strings.Trim(piece, " ():.·…"))
			if len(piece) >= 6 && strings.Contains(text, piece) && !strings.Contains(pt.String(), piece) {
				found = append(found, key+": "+piece)
			}
		}
	}
	return found
}

// TestPortugueseExports: each format in Portuguese has Portuguese headings,
// numbers and dates, calls a failed run's code its last attempt, and holds
// none of the table's English words.
func TestPortugueseExports(t *testing.T) {
	b := fixture()
	render := func(f Format, run string) string {
		t.Helper()
		_, data, err := RenderLang(b, f, run, Portuguese)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		return string(data)
	}
	unzip := func(data string) map[string]string {
		zr, err := zip.NewReader(bytes.NewReader([]byte(data)), int64(len(data)))
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for _, f := range zr.File {
			r, _ := f.Open()
			c, _ := io.ReadAll(r)
			r.Close()
			out[f.Name] = string(c)
		}
		return out
	}
	zipped := unzip(render(FormatZip, ""))
	cases := []struct {
		name string
		text string
		want []string
	}{
		{"md", render(FormatMarkdown, ""), []string{"## Comparação", "Sessão de 01/03/2025 14:00 UTC · 3 execuções · exportado pelo loopforge",
			"### Iteração 1", "**Reflexão**", "### Código final", "### Última tentativa", "| Provedor | Modelo | Situação |",
			"limite atingido", "15,2 s", "2.140", "$0,0213", "tempo esgotado", "Saída de erro (saída 1)", "sucesso após 2 iterações"}},
		{"html", render(FormatHTML, ""), []string{`<html lang="pt">`, "loopforge · apostila", "<h2>Comparação</h2>", "Iteração 2",
			"<h3>Última tentativa</h3>", "<h3>Código final</h3>", "Reflexão", "tempo total 15,2 s", "Exportado pelo loopforge."}},
		{"py", render(FormatPy, "run-ollama"), []string{"# Gerado pelo loopforge", "# Provedor:   ollama", "# Situação:   limite de iterações atingido (3 iterações)",
			"# Data:       01/03/2025 14:02 UTC", "# Última tentativa: este código não rodou sem erros"}},
		{"ipynb", firstCell(t, render(FormatNotebook, "run-ollama")), []string{"**Prompt**", "Gerado pelo loopforge com **ollama**", "**Última tentativa:**", "01/03/2025"}},
		{"ipynb success", firstCell(t, render(FormatNotebook, "run-claude")), []string{"sucesso após 2 iterações"}},
		{"zip comparacao.md", zipped["comparacao.md"], []string{"— comparação", "Sessão de 01/03/2025 14:00 UTC, 3 execuções.", "| Linhas de código |", "O tempo total"}},
		{"zip script", zipped["ollama.py"], []string{"# Última tentativa:"}},
	}
	for _, c := range cases {
		for _, w := range c.want {
			if !strings.Contains(c.text, w) {
				t.Errorf("%s in Portuguese lacks %q", c.name, w)
			}
		}
		if left := englishLeftovers(c.text); len(left) > 0 {
			t.Errorf("%s in Portuguese has English words of the table: %v", c.name, left)
		}
	}
	if strings.Contains(cases[1].text, "Última tentativa") == strings.Contains(render(FormatHTML, "run-claude"), "Última tentativa") {
		t.Error("only the failed run's code is its last attempt")
	}
}

// TestEnglishExportsStayEnglish: the same exports in English hold the
// English words (the check above would pass on an empty file otherwise).
func TestEnglishExportsStayEnglish(t *testing.T) {
	_, md, err := RenderLang(fixture(), FormatMarkdown, "", English)
	if err != nil {
		t.Fatal(err)
	}
	if len(englishLeftovers(string(md))) < 20 {
		t.Fatalf("the English handout shows few of the table's words: %v", englishLeftovers(string(md)))
	}
	for _, w := range []string{"### Last attempt", "### Final code", "## Comparison", "15.2 s", "2,140"} {
		if !strings.Contains(string(md), w) {
			t.Errorf("English handout lacks %q", w)
		}
	}
}

// firstCell is the text of a notebook's first cell (its metadata holds the
// run's fields by their English names, which are not words for people).
func firstCell(t *testing.T, nb string) string {
	t.Helper()
	var doc struct {
		Cells []struct {
			Source []string `json:"source"`
		} `json:"cells"`
	}
	if err := json.Unmarshal([]byte(nb), &doc); err != nil || len(doc.Cells) == 0 {
		t.Fatalf("not a notebook: %v", err)
	}
	return strings.Join(doc.Cells[0].Source, "")
}

// TestExportsInTheReadersZone: with a zone, every format dates the session
// and its runs in that zone and says which (here São Paulo, UTC−3, and
// Lisbon, which has an abbreviation), in each language's order.
func TestExportsInTheReadersZone(t *testing.T) {
	saoPaulo, err := ParseZone("America/Sao_Paulo")
	if err != nil {
		t.Fatal(err)
	}
	lisbon, err := ParseZone("Europe/Lisbon")
	if err != nil {
		t.Fatal(err)
	}
	b := fixture()
	render := func(f Format, run string, loc Locale) string {
		t.Helper()
		_, data, err := RenderLocale(b, f, run, loc)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		return string(data)
	}
	pt := Locale{Lang: Portuguese, Zone: saoPaulo}
	en := Locale{Lang: English, Zone: saoPaulo}
	zipped := func(loc Locale) string {
		data := render(FormatZip, "", loc)
		zr, err := zip.NewReader(bytes.NewReader([]byte(data)), int64(len(data)))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range zr.File {
			if f.Name == map[Lang]string{English: "comparison.md", Portuguese: "comparacao.md"}[loc.Lang] {
				r, _ := f.Open()
				c, _ := io.ReadAll(r)
				r.Close()
				return string(c)
			}
		}
		t.Fatal("no comparison.md")
		return ""
	}
	cases := []struct {
		name, text, want string
	}{
		{"md pt", render(FormatMarkdown, "", pt), "Sessão de 01/03/2025 11:00 UTC-03"},
		{"html pt", render(FormatHTML, "", pt), "01/03/2025 11:00 UTC-03"},
		{"py pt", render(FormatPy, "run-ollama", pt), "# Data:       01/03/2025 11:02 UTC-03"},
		{"ipynb pt", firstCell(t, render(FormatNotebook, "run-ollama", pt)), "01/03/2025 11:02 UTC-03"},
		{"zip pt", zipped(pt), "Sessão de 01/03/2025 11:00 UTC-03"},
		{"md en", render(FormatMarkdown, "", en), "Session of 2025-03-01 11:00 UTC-03"},
		{"py en", render(FormatPy, "run-ollama", en), "2025-03-01 11:02 UTC-03"},
		{"md en Lisbon", render(FormatMarkdown, "", Locale{Lang: English, Zone: lisbon}), "Session of 2025-03-01 14:00 WET"},
	}
	for _, c := range cases {
		if !strings.Contains(c.text, c.want) {
			t.Errorf("%s lacks %q", c.name, c.want)
		}
		if strings.Contains(c.text, "14:00 UTC") || strings.Contains(c.text, "14:02 UTC") {
			t.Errorf("%s still dates in UTC", c.name)
		}
	}
}

// TestParseZone: an IANA name, or "" for this machine's zone; anything else
// is refused (not silently UTC).
func TestParseZone(t *testing.T) {
	if z, err := ParseZone(""); err != nil || z != time.Local {
		t.Errorf(`ParseZone("") = %v, %v; want time.Local`, z, err)
	}
	if z, err := ParseZone("UTC"); err != nil || z.String() != "UTC" {
		t.Errorf(`ParseZone("UTC") = %v, %v`, z, err)
	}
	for _, bad := range []string{"Mars/Olympus", "Local", "../../etc/passwd", "America/Sao Paulo"} {
		if _, err := ParseZone(bad); err == nil {
			t.Errorf("ParseZone(%q) accepted", bad)
		}
	}
}
