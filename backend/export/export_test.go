package export

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/loopforge/loopforge/backend/event"
	"github.com/loopforge/loopforge/backend/store"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
		for i := range max(len(gl), len(wl)) {
			g, w := "<EOF>", "<EOF>"
			if i < len(gl) {
				g = gl[i]
			}
			if i < len(wl) {
				w = wl[i]
			}
			if g != w {
				t.Fatalf("%s differs at line %d (run with -update if intended):\n got: %q\nwant: %q", path, i+1, g, w)
			}
		}
	}
}

func render(t *testing.T, b *Bundle, f Format, runID string) (string, []byte) {
	t.Helper()
	name, data, err := Render(b, f, runID)
	if err != nil {
		t.Fatalf("Render(%s, %q): %v", f, runID, err)
	}
	if name != SafeName(name) {
		t.Errorf("Render(%s) name %q is not a SafeName", f, name)
	}
	return name, data
}

func TestParseFormat(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Format
	}{
		{"py", FormatPy}, {".PY", FormatPy}, {" python ", FormatPy}, {"zip", FormatZip}, {"md", FormatMarkdown},
		{"markdown", FormatMarkdown}, {"HTML", FormatHTML}, {"ipynb", FormatNotebook}, {"notebook", FormatNotebook},
		{"json", FormatJSON},
	} {
		got, err := ParseFormat(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("ParseFormat(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	for _, in := range []string{"", "docx", "p y", "pdf"} {
		_, err := ParseFormat(in)
		if err == nil || !strings.Contains(err.Error(), "py, zip, md, html, ipynb, json") {
			t.Errorf("ParseFormat(%q) error = %v; want one listing the formats", in, err)
		}
	}
}

func TestNames(t *testing.T) {
	b := fixture()
	for _, tc := range []struct {
		f     Format
		runID string
		want  string
	}{
		{FormatPy, "", "estruturas-de-dados-em-python-gemini-api.py"},
		{FormatPy, "run-claude", "estruturas-de-dados-em-python-claude.py"},
		{FormatNotebook, "run-ollama", "estruturas-de-dados-em-python-ollama.ipynb"},
		{FormatZip, "", "estruturas-de-dados-em-python.zip"},
		{FormatMarkdown, "", "estruturas-de-dados-em-python.md"},
		{FormatHTML, "", "estruturas-de-dados-em-python.html"},
		{FormatHTML, "run-claude", "estruturas-de-dados-em-python-claude.html"},
		{FormatJSON, "", "estruturas-de-dados-em-python.loopforge.json"},
	} {
		if name, _ := render(t, b, tc.f, tc.runID); name != tc.want {
			t.Errorf("Render(%s, %q) name = %q; want %q", tc.f, tc.runID, name, tc.want)
		}
	}
	// Without a title the prompt names the files; without either, a default.
	b.Session.Title = ""
	if name, _ := render(t, b, FormatMarkdown, ""); name != "desenvolva-um-script-didático-em-python-que.md" {
		t.Errorf("name from the prompt = %q", name)
	}
	b.Session.Prompt = " ../../ "
	if name, _ := render(t, b, FormatMarkdown, ""); name != "loopforge-session.md" {
		t.Errorf("name without title or prompt = %q", name)
	}
	if _, _, err := Render(b, FormatPy, "nope"); err == nil || !strings.Contains(err.Error(), `"nope"`) {
		t.Errorf("unknown run id: err = %v", err)
	}
	if _, _, err := Render(b, Format("pdf"), ""); err == nil {
		t.Error("unknown format: no error")
	}
	if _, _, err := Render(nil, FormatJSON, ""); err == nil {
		t.Error("nil bundle: no error")
	}
}

func TestBestRun(t *testing.T) {
	run := func(id string, status event.RunStatus, code string) store.Run {
		return store.Run{ID: id, Status: status, FinalCode: code}
	}
	for _, tc := range []struct {
		name string
		runs []store.Run
		want string
	}{
		{"first success", []store.Run{run("a", "limit_reached", "x"), run("b", "success", "y"), run("c", "success", "z")}, "b"},
		{"latest with code", []store.Run{run("a", "limit_reached", "x"), run("b", "limit_reached", "y"), run("c", "error", "")}, "b"},
		{"latest", []store.Run{run("a", "error", ""), run("b", "cancelled", "")}, "b"},
	} {
		if got := bestRun(tc.runs); got == nil || got.ID != tc.want {
			t.Errorf("%s: bestRun = %v; want %s", tc.name, got, tc.want)
		}
	}
	if bestRun(nil) != nil {
		t.Error("bestRun(nil) != nil")
	}
	b := fixture()
	b.Runs = nil
	if _, _, err := Render(b, FormatPy, ""); err == nil || !strings.Contains(err.Error(), "no runs") {
		t.Errorf("py of a session without runs: err = %v", err)
	}
	// Session.Runs stands in for an empty Runs (a store.GetSession result).
	b = fixture()
	b.Session.Runs, b.Runs = b.Runs, nil
	if _, data := render(t, b, FormatPy, "run-claude"); !bytes.HasSuffix(data, []byte(codeClaude2)) {
		t.Error("Session.Runs was not used")
	}
}

func TestScript(t *testing.T) {
	b := fixture()
	for _, tc := range []struct{ runID, golden, code string }{
		{"", "gemini-api.py", codeGemini}, // best run; keeps its shebang on top
		{"run-claude", "claude.py", codeClaude2},
		{"run-ollama", "ollama.py", codeOllama3},
	} {
		_, data := render(t, b, FormatPy, tc.runID)
		golden(t, tc.golden, data)
		s := string(data)
		top, _ := splitPreamble(tc.code)
		if !strings.HasPrefix(s, top+"# Generated by loopforge") {
			t.Errorf("%s: does not start with the preamble and the header:\n%s", tc.golden, s[:min(len(s), 200)])
		}
		// Header, then the code exactly: every header line is a comment
		// and a blank line separates them.
		hdr, code, ok := strings.Cut(strings.TrimPrefix(s, top), "\n\n")
		if !ok || top+code != tc.code {
			t.Errorf("%s: the code after the header is not the final code exactly", tc.golden)
		}
		for line := range strings.Lines(hdr) {
			if !strings.HasPrefix(line, "#") {
				t.Errorf("%s: header line %q is not a comment", tc.golden, line)
			}
		}
		for _, want := range []string{"Provider:", "Iterations:", "Status:", "Date:       2025-03-01", "Prompt:", "Desenvolva um script"} {
			if !strings.Contains(hdr, want) {
				t.Errorf("%s: header lacks %q", tc.golden, want)
			}
		}
	}
}

func TestScriptHeaderSafety(t *testing.T) {
	b := fixture()
	b.Session.Title = "coding: latin-1"
	b.Session.Prompt = "# -*- coding: latin-1 -*-\rimport os\u2028os.system('rm -rf /')\x1b[31m\n" + strings.Repeat("word ", 400)
	r := b.Runs[1]
	r.FinalCode = "# -*- coding: utf-8 -*-\nprint('olá')\n"
	b.Runs[1] = r
	_, data := render(t, b, FormatPy, "run-claude")
	lines := strings.Split(string(data), "\n")
	if lines[0] != "# -*- coding: utf-8 -*-" {
		t.Errorf("the coding declaration is not kept first: %q", lines[0])
	}
	if lines[1] != "# Generated by loopforge (an AI code-generation loop)." || lines[2] != "#" {
		t.Errorf("user text reached the first lines: %q", lines[:3])
	}
	for i, l := range lines {
		if l == "print('olá')" {
			break
		}
		if l != "" && !strings.HasPrefix(l, "#") {
			t.Fatalf("line %d %q escaped the comment block", i+1, l)
		}
		if strings.ContainsAny(l, "\r\x1b\u2028") {
			t.Errorf("line %d keeps a control character: %q", i+1, l)
		}
		if len([]rune(l)) > 90 {
			t.Errorf("line %d is not wrapped (%d runes)", i+1, len([]rune(l)))
		}
	}
	if !strings.Contains(string(data), "more lines of the prompt not shown") {
		t.Error("a long prompt is not shortened")
	}
	if !strings.HasSuffix(string(data), "\n\nprint('olá')\n") {
		t.Error("the code does not follow the header")
	}
}

func TestNoFinalCode(t *testing.T) {
	b := fixture()
	b.Runs = append(b.Runs, store.Run{ID: "run-codex", SessionID: "ses-1", Provider: "codex", Status: "error",
		Error: "codex: not logged in (run `codex login`)", StartedAt: at(2000), FinishedAt: atp(2600), DurationMS: 600})
	b.Iterations["run-codex"] = []store.Iteration{{RunID: "run-codex", N: 1, Status: "running"}}
	for _, f := range []Format{FormatPy, FormatNotebook} {
		_, _, err := Render(b, f, "run-codex")
		if !errors.Is(err, ErrNoCode) || !strings.Contains(err.Error(), "not logged in") {
			t.Errorf("%s of a run without code: err = %v; want ErrNoCode with the reason", f, err)
		}
	}
	_, md := render(t, b, FormatMarkdown, "")
	if !strings.Contains(string(md), "This run produced no code (see the error above).") ||
		!strings.Contains(string(md), "**Error:** codex: not logged in") ||
		!strings.Contains(string(md), "## 4. codex — stopped by an error before any code was generated") {
		t.Errorf("the handout does not explain the missing code:\n%s", md)
	}
	if !strings.Contains(string(md), "### Iteration 1 — ✗ no answer\n\nNo answer was recorded; the run stopped here.") {
		t.Error("an iteration without an answer is not explained")
	}
	_, one := render(t, b, FormatMarkdown, "run-codex")
	if strings.Contains(string(one), "gemini-api") || !strings.Contains(string(one), "## 1. codex") {
		t.Error("a run id does not narrow the handout to that run")
	}
	_, page := render(t, b, FormatHTML, "")
	if !strings.Contains(string(page), "This run produced no code") {
		t.Error("the HTML handout does not explain the missing code")
	}
	_, z := render(t, b, FormatZip, "")
	entries := readZip(t, z)
	if _, ok := entries["codex.py"]; ok {
		t.Error("the zip has a script for a run without code")
	}
	if !strings.Contains(entries["comparison.md"], "codex produced no code") {
		t.Errorf("comparison.md does not mention the run without code:\n%s", entries["comparison.md"])
	}
}

func readZip(t *testing.T, data []byte) map[string]string {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	var names []string
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		out[f.Name] = string(b)
		names = append(names, f.Name)
	}
	out["\x00names"] = strings.Join(names, ",")
	return out
}

func TestZip(t *testing.T) {
	b := fixture()
	_, data := render(t, b, FormatZip, "")
	entries := readZip(t, data)
	if got, want := entries["\x00names"], "gemini-api.py,claude.py,ollama.py,comparison.md,prompt.txt"; got != want {
		t.Errorf("zip entries = %s; want %s", got, want)
	}
	for _, r := range b.Runs {
		_, script := render(t, b, FormatPy, r.ID)
		if entries[r.Provider+".py"] != string(script) {
			t.Errorf("%s.py differs from the py export of the run", r.Provider)
		}
	}
	if entries["prompt.txt"] != fixturePrompt {
		t.Errorf("prompt.txt = %q", entries["prompt.txt"])
	}
	golden(t, "comparison.md", []byte(entries["comparison.md"]))
	for _, want := range []string{
		"| gemini-api | gemini-2.5-flash | success | 1 | 7.4 s | 812 | 356 | $0.0004 | 13 | 0 | `gemini-api.py` |",
		"| claude | claude-sonnet-4-5 | success | 2 | 15.2 s | 2,140 | 988 | $0.0213 | 8 | 0 | `claude.py` |",
		"| ollama | qwen2.5-coder:7b | limit reached | 3 | 2 min 05 s | — | — | — | 6 | timed out | `ollama.py` |",
	} {
		if !strings.Contains(entries["comparison.md"], want) {
			t.Errorf("comparison.md lacks the row\n%s\nin\n%s", want, entries["comparison.md"])
		}
	}
}

func TestZipNamesDeduplicated(t *testing.T) {
	b := fixture()
	b.Runs = []store.Run{
		{ID: "1", Provider: "claude", FinalCode: "print(1)\n"},
		{ID: "2", Provider: "Claude", FinalCode: "print(2)\n"},
		{ID: "3", Provider: "../../etc/passwd", FinalCode: "print(3)\n"},
		{ID: "4", Provider: "", FinalCode: "print(4)\n"},
		{ID: "5", Provider: "claude", Language: "sh", FinalCode: "echo 5\n"},
		{ID: "6", Provider: "con", FinalCode: "print(6)\n"},
	}
	_, data := render(t, b, FormatZip, "")
	entries := readZip(t, data)
	want := "claude.py,Claude-2.py,_.._etc_passwd.py,run-4.py,claude-3.sh,_con.py,comparison.md,prompt.txt"
	if got := entries["\x00names"]; got != want {
		t.Errorf("zip entries = %s; want %s", got, want)
	}
	for name := range entries {
		if strings.ContainsAny(name, `/\`) && name != "\x00names" {
			t.Errorf("zip entry %q has a path separator", name)
		}
	}
}

func TestMarkdown(t *testing.T) {
	_, data := render(t, fixture(), FormatMarkdown, "")
	golden(t, "handout.md", data)
	md := string(data)
	for _, want := range []string{
		"# Estruturas de dados em Python\n",
		"## Prompt\n\n> Desenvolva um script didático",
		"## 2. claude — success after 2 iterations",
		"### Iteration 1 — ✗ exit 1: ZeroDivisionError: division by zero",
		"**Reflection**\n\n> The list passed to `media` is empty",
		"### Iteration 2 — ✓ ran cleanly\n\nThis is the final code, shown below.",
		"ZeroDivisionError: division by zero\n```",
		"### Iteration 2 — ✗ unusable answer: no fenced python block\n\nThe answer had no usable code.",
		"The last code generated; it did not run cleanly.",
		"… 170 more lines not shown",
		"The output was cut when it was recorded.",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("handout.md lacks %q", want)
		}
	}
	// The ollama code holds ``` and ````: its fence must be longer.
	if !strings.Contains(md, "`````python\ndoc = ") {
		t.Error("a code block with backticks inside is not fenced longer")
	}
	if strings.Contains(md, "\x1b") {
		t.Error("ANSI escapes reached the handout")
	}
}

func TestNotebook(t *testing.T) {
	b := fixture()
	_, data := render(t, b, FormatNotebook, "run-claude")
	golden(t, "claude.ipynb", data)

	var nb struct {
		NBFormat      *int `json:"nbformat"`
		NBFormatMinor *int `json:"nbformat_minor"`
		Metadata      struct {
			Kernelspec   map[string]string `json:"kernelspec"`
			LanguageInfo map[string]any    `json:"language_info"`
		} `json:"metadata"`
		Cells []struct {
			CellType       string          `json:"cell_type"`
			ID             string          `json:"id"`
			Metadata       map[string]any  `json:"metadata"`
			Source         []string        `json:"source"`
			ExecutionCount json.RawMessage `json:"execution_count"`
			Outputs        []struct {
				OutputType string   `json:"output_type"`
				Name       string   `json:"name"`
				Text       []string `json:"text"`
			} `json:"outputs"`
		} `json:"cells"`
	}
	if err := json.Unmarshal(data, &nb); err != nil {
		t.Fatal(err)
	}
	if nb.NBFormat == nil || *nb.NBFormat != 4 || nb.NBFormatMinor == nil || *nb.NBFormatMinor != 5 {
		t.Errorf("nbformat = %v.%v; want 4.5", nb.NBFormat, nb.NBFormatMinor)
	}
	if ks := nb.Metadata.Kernelspec; ks["name"] != "python3" || ks["language"] != "python" || ks["display_name"] == "" {
		t.Errorf("kernelspec = %v", ks)
	}
	if nb.Metadata.LanguageInfo["name"] != "python" {
		t.Errorf("language_info = %v", nb.Metadata.LanguageInfo)
	}
	if len(nb.Cells) != 2 {
		t.Fatalf("%d cells; want 2", len(nb.Cells))
	}
	md, code := nb.Cells[0], nb.Cells[1]
	ids := map[string]bool{}
	for _, c := range nb.Cells {
		if c.ID == "" || ids[c.ID] || c.Metadata == nil {
			t.Errorf("cell %+v: missing or repeated id, or no metadata", c.ID)
		}
		ids[c.ID] = true
		for i, l := range c.Source[:max(len(c.Source)-1, 0)] {
			if !strings.HasSuffix(l, "\n") {
				t.Errorf("cell %s source line %d %q does not end in a newline", c.ID, i, l)
			}
		}
	}
	if md.CellType != "markdown" || md.ExecutionCount != nil || md.Outputs != nil {
		t.Errorf("first cell: %+v", md)
	}
	mdText := strings.Join(md.Source, "")
	if !strings.HasPrefix(mdText, "# Estruturas de dados em Python\n") || !strings.Contains(mdText, "> Desenvolva um script didático") ||
		!strings.Contains(mdText, "**claude**") {
		t.Errorf("markdown cell:\n%s", mdText)
	}
	if code.CellType != "code" || string(code.ExecutionCount) != "1" {
		t.Errorf("code cell type %q, execution_count %s", code.CellType, code.ExecutionCount)
	}
	if got := strings.Join(code.Source, ""); got != codeClaude2 {
		t.Errorf("code cell source = %q; want the final code", got)
	}
	if len(code.Outputs) != 2 {
		t.Fatalf("%d outputs; want stdout and stderr", len(code.Outputs))
	}
	for i, want := range []struct{ name, text string }{{"stdout", "média: None\nmédia: 2.0\n"}, {"stderr", "aviso: lista vazia\n"}} {
		o := code.Outputs[i]
		if o.OutputType != "stream" || o.Name != want.name || strings.Join(o.Text, "") != want.text {
			t.Errorf("output %d = %+v; want a %s stream of %q", i, o, want.name, want.text)
		}
	}

	// A shell run runs through the %%sh magic; a run with no recorded
	// execution of its final code has no outputs.
	b.Runs[0].Language = "sh"
	b.Runs[0].FinalCode = "echo hi\n"
	_, data = render(t, b, FormatNotebook, "run-gemini")
	if !bytes.Contains(data, []byte(`"%%sh\n",`)) || !bytes.Contains(data, []byte(`"outputs": []`)) {
		t.Errorf("shell notebook:\n%s", data)
	}
}

func normalizeTimes(b *Bundle) {
	utc := func(t *time.Time) { *t = t.UTC().Round(0) }
	utc(&b.Exported)
	utc(&b.Session.CreatedAt)
	utc(&b.Session.UpdatedAt)
	for i := range b.Runs {
		utc(&b.Runs[i].StartedAt)
		if b.Runs[i].FinishedAt != nil {
			utc(b.Runs[i].FinishedAt)
		}
	}
	for _, ms := range b.Messages {
		for i := range ms {
			utc(&ms[i].CreatedAt)
		}
	}
	for _, es := range b.Events {
		for i := range es {
			utc(&es[i].TS)
		}
	}
}

func TestJSONRoundTrip(t *testing.T) {
	orig := fixture()
	// A local clock and a monotonic reading must not matter.
	orig.Runs[0].StartedAt = time.Now()
	orig.Session.CreatedAt = orig.Session.CreatedAt.In(time.FixedZone("BRT", -3*3600))
	_, data := render(t, orig, FormatJSON, "")
	if !json.Valid(data) || !bytes.Contains(data, []byte("\n  \"format\": \"loopforge-session\",\n  \"version\": 1,")) {
		t.Fatalf("json export:\n%.300s", data)
	}
	if !bytes.Contains(data, []byte(xss)) {
		t.Error("the json export escapes < in code and outputs (unreadable)")
	}
	got, err := ReadBundle(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	normalizeTimes(orig)
	normalizeTimes(got)
	if !reflect.DeepEqual(got, orig) {
		g, _ := json.Marshal(got)
		o, _ := json.Marshal(orig)
		t.Errorf("round trip differs:\n got %.600s\nwant %.600s", g, o)
	}
	var p event.ReflectionPayload
	if err := got.Events["run-claude"][0].Decode(&p); err != nil || p.Text != reflectionClaude {
		t.Errorf("event payload after the round trip: %+v, %v", p, err)
	}
	// Rendering the imported bundle gives the same files.
	for _, f := range Formats() {
		_, a := render(t, orig, f, "")
		_, b := render(t, got, f, "")
		if !bytes.Equal(a, b) {
			t.Errorf("%s of the imported bundle differs from the original's", f)
		}
	}
}

func TestJSONLeavesOutSessionRuns(t *testing.T) {
	b := fixture()
	b.Session.Runs = b.Runs
	b.Iterations, b.Messages, b.Events = nil, nil, nil
	_, data := render(t, b, FormatJSON, "")
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		t.Fatal(err)
	}
	var sess map[string]json.RawMessage
	_ = json.Unmarshal(raw["session"], &sess)
	if _, ok := sess["runs"]; ok {
		t.Error("session.runs is exported twice")
	}
	for _, k := range []string{"iterations", "messages", "events"} {
		if string(raw[k]) != "{}" {
			t.Errorf("%s = %s; want {}", k, raw[k])
		}
	}
}

func TestReadBundleErrors(t *testing.T) {
	good := func(edit func(*Bundle)) string {
		b := fixture()
		edit(b)
		data, err := encodeBundle(b)
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	_, nb, _ := Render(fixture(), FormatNotebook, "")
	_, page, _ := Render(fixture(), FormatHTML, "")
	_, z, _ := Render(fixture(), FormatZip, "")
	for _, tc := range []struct{ name, in, want string }{
		{"empty", " \n", "empty"},
		{"array", `[1, 2]`, "expected a JSON object"},
		{"text", `hello`, "not JSON"},
		{"zip", string(z), "zip archive"},
		{"html", string(page), "HTML"},
		{"notebook", string(nb), "Jupyter notebook"},
		{"other json", `{"name": "x"}`, `no "format"`},
		{"other format", `{"format": "opcode-agent", "version": 1}`, `"opcode-agent" is not a loopforge session export`},
		{"format not a string", `{"format": 3}`, "3 is not a loopforge session export"},
		{"no version", `{"format": "loopforge-session"}`, "no valid version"},
		{"newer", `{"format": "loopforge-session", "version": 2}`, "version 2, written by a newer loopforge"},
		{"broken", `{"format": "loopforge-session", "version": 1, "runs": [}`, "not valid JSON: line 1"},
		{"wrong type", "{\"format\": \"loopforge-session\",\n\"version\": 1,\n\"runs\": \"x\"}", "line 3: field runs"},
		{"trailing", good(func(*Bundle) {}) + "{}", "after top-level value"},
		{"no session id", good(func(b *Bundle) { b.Session.ID = "" }), "session has no id"},
		{"run twice", good(func(b *Bundle) { b.Runs = append(b.Runs, b.Runs[0]) }), `run "run-gemini" appears twice`},
		{"foreign run", good(func(b *Bundle) { b.Runs[1].SessionID = "ses-2" }), `belongs to session "ses-2"`},
		{"orphan iterations", good(func(b *Bundle) { b.Iterations["run-x"] = nil }), `iterations for run "run-x"`},
		{"misfiled iteration", good(func(b *Bundle) { b.Iterations["run-claude"][0].RunID = "run-gemini" }), "listed under run"},
		{"repeated event", good(func(b *Bundle) {
			b.Events["run-gemini"] = append(b.Events["run-gemini"], b.Events["run-gemini"][0])
		}), "event 1 appears twice"},
	} {
		_, err := ReadBundle(strings.NewReader(tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "import: ") {
			t.Errorf("%s: err = %v; want one containing %q", tc.name, err, tc.want)
		}
	}
	if _, err := ReadBundle(strings.NewReader("\xef\xbb\xbf" + good(func(*Bundle) {}))); err != nil {
		t.Errorf("a BOM is refused: %v", err)
	}
}

func TestSafeName(t *testing.T) {
	long := strings.Repeat("ação", 60) + ".py"
	for _, tc := range []struct{ in, want string }{
		{"claude.py", "claude.py"},
		{"../etc/passwd", "_etc_passwd"},
		{"..", "untitled"},
		{".", "untitled"},
		{"", "untitled"},
		{"   ", "untitled"},
		{"a/b", "a_b"},
		{`a\b`, "a_b"},
		{"a//\\b", "a_b"},
		{"/abs/path.py", "_abs_path.py"},
		{"con", "_con"},
		{"CON.txt", "_CON.txt"},
		{"nul .py", "_nul .py"},
		{"com1", "_com1"},
		{"console.py", "console.py"},
		{".hidden", "hidden"},
		{"-rf", "rf"},
		{"trailing. . ", "trailing"},
		{"a:b*c?d\"e<f>g|h", "a_b_c_d_e_f_g_h"},
		{"tab\there\nnew", "tab_here_new"},
		{"null\x00byte", "null_byte"},
		{"bidi\u202egnp.py", "bidi_gnp.py"},
		{"bad\xffutf8", "bad_utf8"},
		{"estruturas de dados — aula 1.py", "estruturas de dados — aula 1.py"},
		{"数据结构.py", "数据结构.py"},
		{"emoji 🐍.py", "emoji 🐍.py"},
		{"many   spaces", "many spaces"},
		{"__init__.py", "__init__.py"},
	} {
		got := SafeName(tc.in)
		if got != tc.want {
			t.Errorf("SafeName(%q) = %q; want %q", tc.in, got, tc.want)
		}
		if again := SafeName(got); again != got {
			t.Errorf("SafeName is not idempotent on %q: %q", got, again)
		}
	}
	got := SafeName(long)
	if len(got) > maxNameBytes || !strings.HasSuffix(got, ".py") || !strings.HasPrefix(got, "açãoação") {
		t.Errorf("SafeName(long) = %q (%d bytes)", got, len(got))
	}
	if SafeName(got) != got {
		t.Error("SafeName(long) is not idempotent")
	}
	if got := SafeName(strings.Repeat("x", 300)); len(got) != maxNameBytes {
		t.Errorf("SafeName(300 x) has %d bytes", len(got))
	}
}

func FuzzSafeName(f *testing.F) {
	for _, s := range []string{"../etc/passwd", "con.txt", "a/b", "", "ação", "\u202e", strings.Repeat("é", 200) + ".tar.gz"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := SafeName(s)
		if got == "" || got == "." || got == ".." || strings.ContainsAny(got, "/\\\x00") || len(got) > maxNameBytes {
			t.Fatalf("SafeName(%q) = %q", s, got)
		}
		if filepath.Base(got) != got || SafeName(got) != got {
			t.Fatalf("SafeName(%q) = %q is not a stable base name", s, got)
		}
	})
}

func TestFormatsListed(t *testing.T) {
	seen := map[Format]bool{}
	for _, f := range Formats() {
		if seen[f] {
			t.Errorf("%s listed twice", f)
		}
		seen[f] = true
		if _, _, err := Render(fixture(), f, ""); err != nil {
			t.Errorf("Render(%s): %v", f, err)
		}
	}
	if !slices.Equal(Formats(), []Format{"py", "zip", "md", "html", "ipynb", "json"}) {
		t.Errorf("Formats() = %v", Formats())
	}
}

func TestWorkspaceRunExportsAsAPatch(t *testing.T) {
	patch := "diff --git a/calc.py b/calc.py\nindex 1111111..2222222 100644\n--- a/calc.py\n+++ b/calc.py\n@@ -1,2 +1,2 @@\n def add(a, b):\n-    return a - b\n+    return a + b\n"
	b := fixture()
	b.Session.Mode = "workspace"
	b.Runs = b.Runs[:1]
	b.Runs[0].Language, b.Runs[0].FinalCode = LanguageDiff, patch
	b.Iterations = nil

	name, data, err := Render(b, FormatPy, "")
	if err != nil || !strings.HasSuffix(name, ".patch") {
		t.Fatalf("name %q, err %v", name, err)
	}
	// The provenance header is comments before the first "diff", which git
	// apply skips: the file applies as it is.
	if _, md, err := Render(b, FormatMarkdown, ""); err != nil || !strings.Contains(string(md), "```diff\n") {
		t.Fatalf("handout should fence the patch as diff: %v", err)
	}
	if _, _, err := Render(b, FormatNotebook, ""); !errors.Is(err, ErrNotRunnable) {
		t.Fatalf("a notebook of a patch: %v", err)
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed: whether git applies the patch is not checked")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "calc.py"), []byte("def add(a, b):\n    return a - b\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("git", "-C", dir, "apply", name).CombinedOutput(); err != nil {
		t.Fatalf("git apply: %v\n%s\n%s", err, out, data)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "calc.py")); !strings.Contains(string(got), "return a + b") {
		t.Fatalf("patched file: %q", got)
	}
}

// TestJSONFileFormat pins the JSON export byte for byte: it is a file
// format that older and newer loopforge versions read (ReadBundle).
func TestJSONFileFormat(t *testing.T) {
	_, data := render(t, fixture(), FormatJSON, "")
	golden(t, "session.loopforge.json", data)
}

// A file exported before sessions had a kind gets one by the rule of
// migration 0004: a workspace session, or a comparison of patches.
func TestJSONFileWithoutKind(t *testing.T) {
	for _, tc := range []struct {
		mode, language string
		want           event.Mode
	}{
		{"script", "python", event.ModeScript},
		{"workspace", LanguageDiff, event.ModeWorkspace},
		{"compare", LanguageDiff, event.ModeWorkspace},
		{"compare", "python", event.ModeScript},
	} {
		f := bundleFile{Session: sessionFile{ID: "s", Mode: event.SessionMode(tc.mode)}, Runs: []runFile{{ID: "r", Language: tc.language}}}
		if got := f.bundle().Session.Kind; got != tc.want {
			t.Errorf("mode %s, runs in %s: kind %q, want %q", tc.mode, tc.language, got, tc.want)
		}
	}
}

// Slug keeps accented letters and digits and joins the words by '-'.
func TestSlug(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"Exercício de Ana", "exercício-de-ana"},
		{"  João Araújo!! (2ª turma) ", "joão-araújo-2ª-turma"},
		{"!!!", ""},
		{"palavra " + strings.Repeat("ção ", 20), "palavra-ção-ção-ção-ção-ção-ção"}, // 43 bytes: one more word is 49,
	} {
		if got := Slug(c.in); got != c.want {
			t.Errorf("Slug(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
