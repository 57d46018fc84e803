package export

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/loopforge/loopforge/backend/event"
	"github.com/loopforge/loopforge/backend/store"
)

// Jupyter nbformat 4.5 (cell ids). Field order follows what Jupyter writes
// (sorted keys), so an exported notebook diffs cleanly against a saved one.
type nbNotebook struct {
	Cells         []any      `json:"cells"`
	Metadata      nbMetadata `json:"metadata"`
	NBFormat      int        `json:"nbformat"`
	NBFormatMinor int        `json:"nbformat_minor"`
}

type nbMetadata struct {
	Kernelspec   nbKernelspec   `json:"kernelspec"`
	LanguageInfo nbLanguageInfo `json:"language_info"`
	Loopforge    nbProvenance   `json:"loopforge"`
}

type nbKernelspec struct {
	DisplayName string `json:"display_name"`
	Language    string `json:"language"`
	Name        string `json:"name"`
}

type nbLanguageInfo struct {
	FileExtension string `json:"file_extension"`
	Mimetype      string `json:"mimetype"`
	Name          string `json:"name"`
}

// nbProvenance is loopforge's own metadata namespace in the notebook.
type nbProvenance struct {
	SessionID  string          `json:"session_id"`
	RunID      string          `json:"run_id"`
	Provider   string          `json:"provider"`
	Model      string          `json:"model,omitempty"`
	Status     event.RunStatus `json:"status"`
	Iterations int             `json:"iterations"`
}

type nbMarkdownCell struct {
	CellType string         `json:"cell_type"` // "markdown"
	ID       string         `json:"id"`
	Metadata map[string]any `json:"metadata"`
	Source   []string       `json:"source"`
}

type nbCodeCell struct {
	CellType       string         `json:"cell_type"` // "code"
	ExecutionCount int            `json:"execution_count"`
	ID             string         `json:"id"`
	Metadata       map[string]any `json:"metadata"`
	Outputs        []any          `json:"outputs"` // nbStream, nbDisplay
	Source         []string       `json:"source"`
}

type nbStream struct {
	Name       string   `json:"name"` // stdout | stderr
	OutputType string   `json:"output_type"`
	Text       []string `json:"text"`
}

// notebook is a Jupyter notebook of one run: a markdown cell with the title,
// the prompt and where the code came from, then a code cell with the final
// code and, as its outputs, what its last execution printed. A shell run's
// cell starts with the %%sh magic so it runs in the Python kernel.
func notebook(b *Bundle, r *store.Run, l words) ([]byte, error) {
	if r.FinalCode == "" {
		return nil, fmt.Errorf("export: %s run %q: %w (%s); the md, html and json exports still show what happened", r.Provider, r.ID, ErrNoCode, noCodeReason(r, Locale{Lang: English}.words()))
	}
	if langOf(r).fence == "diff" {
		return nil, fmt.Errorf("export: %s run %q: %w: export it as py (a .patch file), md, html, zip or json", r.Provider, r.ID, ErrNotRunnable)
	}
	var md strings.Builder
	fmt.Fprintf(&md, "# %s\n\n", mdInline(title(b, l)))
	fmt.Fprintf(&md, "**%s**\n\n%s\n", l.t("prompt"), quote(strings.TrimSpace(cleanText(b.Session.Prompt)), l))
	prov := l.t("nbGenerated", mdInline(orDash(r.Provider)))
	if m := oneLine(r.Model); m != "" {
		prov += " (" + mdCode(m) + ")"
	}
	prov += ": " + mdInline(statusText(r, l))
	if t := l.time(runTime(r)); t != "" {
		prov += ", " + t
	}
	md.WriteString("*" + prov + ".*")
	if t := runTests(r, l); t != "" {
		md.WriteString("\n\n**" + l.t("colTests") + ":** " + mdInline(t))
	}
	if r.Status != event.RunStatusSuccess {
		// Failing or cancelled code is no final code: say so above it.
		md.WriteString("\n\n**" + l.t("lastAttempt") + ":** " + l.t("nbLast"))
	}

	code := r.FinalCode
	switch langOf(r).fence {
	case "sh":
		code = "%%sh\n" + code
	case "javascript":
		code = "%%script node\n" + code
	}
	cell := nbCodeCell{CellType: "code", ExecutionCount: 1, ID: "final-code", Metadata: map[string]any{},
		Outputs: []any{}, Source: lines(code)}
	if it, ok := lastExecuted(b.iterations(r.ID)); ok && it.Code == r.FinalCode {
		if it.Stdout != "" {
			cell.Outputs = append(cell.Outputs, nbStream{Name: "stdout", OutputType: "stream", Text: lines(it.Stdout)})
		}
		if it.Stderr != "" {
			cell.Outputs = append(cell.Outputs, nbStream{Name: "stderr", OutputType: "stream", Text: lines(it.Stderr)})
		}
		for _, im := range b.pictures(r.ID, it.N) {
			cell.Outputs = append(cell.Outputs, nbPicture(im))
		}
	}
	nb := nbNotebook{
		Cells: []any{
			nbMarkdownCell{CellType: "markdown", ID: "prompt", Metadata: map[string]any{}, Source: lines(md.String())},
			cell,
		},
		Metadata: nbMetadata{
			Kernelspec:   nbKernelspec{DisplayName: "Python 3 (ipykernel)", Language: "python", Name: "python3"},
			LanguageInfo: nbLanguageInfo{FileExtension: ".py", Mimetype: "text/x-python", Name: "python"},
			Loopforge: nbProvenance{SessionID: b.Session.ID, RunID: r.ID, Provider: r.Provider, Model: r.Model,
				Status: r.Status, Iterations: r.Iterations},
		},
		NBFormat:      4,
		NBFormatMinor: 5,
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", " ")
	if err := enc.Encode(nb); err != nil {
		return nil, fmt.Errorf("export: notebook: %w", err)
	}
	return buf.Bytes(), nil
}

// lines splits s the way notebooks store multi-line strings: each line keeps
// its "\n"; joined back they give s exactly.
func lines(s string) []string {
	out := []string{}
	for l := range strings.Lines(s) {
		out = append(out, l)
	}
	return out
}
