package export

import (
	"archive/zip"
	"bytes"
	"fmt"
	"strings"
	"time"

	"github.com/loopforge/loopforge/backend/store"
)

// zipAll is every run's final script (as the py export writes it, named after
// its provider), the comparison (comparison.md, in Portuguese comparacao.md:
// the names of the fixed entries are words of the export's language, without
// accents so that every unzip tool keeps them) and prompt.txt. Runs without
// code get a row in the comparison and no script.
func zipAll(b *Bundle, runs []store.Run, l words) ([]byte, error) {
	labels := runLabels(runs)
	files := make([]string, len(runs))
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	mod := b.Exported
	if mod.IsZero() {
		mod = b.Session.UpdatedAt
	}
	if mod.Year() < 1980 { // the zip format cannot store earlier dates
		mod = time.Date(1980, 1, 1, 0, 0, 0, 0, time.UTC)
	}
	add := func(name string, data []byte) error {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Deflate, Modified: mod.UTC()})
		if err != nil {
			return err
		}
		_, err = w.Write(data)
		return err
	}
	for i := range runs {
		r := &runs[i]
		if r.FinalCode == "" {
			continue
		}
		data, err := script(b, r, l)
		if err != nil {
			return nil, err
		}
		files[i] = SafeName(labels[i] + langOf(r).ext)
		if err := add(files[i], data); err != nil {
			return nil, fmt.Errorf("export: zip: %w", err)
		}
		// The pictures of the final code's last execution, next to it.
		if it, ok := lastExecuted(b.iterations(r.ID)); ok && it.Code == r.FinalCode {
			for _, im := range b.pictures(r.ID, it.N) {
				if err := add(pictureFile(labels[i], im), im.Data); err != nil {
					return nil, fmt.Errorf("export: zip: %w", err)
				}
			}
		}
	}
	if err := add(l.t("zipComparison"), comparisonMarkdown(b, runs, files, l)); err != nil {
		return nil, fmt.Errorf("export: zip: %w", err)
	}
	prompt := b.Session.Prompt
	if prompt != "" && !strings.HasSuffix(prompt, "\n") {
		prompt += "\n"
	}
	if err := add(l.t("zipPrompt"), []byte(prompt)); err != nil {
		return nil, fmt.Errorf("export: zip: %w", err)
	}
	if err := zw.Close(); err != nil {
		return nil, fmt.Errorf("export: zip: %w", err)
	}
	return buf.Bytes(), nil
}

// summary is one run's row of the comparison table, as display text.
type summary struct {
	Provider, Model, Status string
	Iterations              string
	Wall                    string
	TokensIn, TokensOut     string
	Tokens                  string // "in / out", or — when neither is known
	Cost                    string
	Lines                   string
	Exit                    string
}

func summarize(b *Bundle, r *store.Run, l words) summary {
	s := summary{
		Provider:   orDash(oneLine(r.Provider)),
		Model:      orDash(oneLine(r.Model)),
		Status:     orDash(l.status(string(r.Status))),
		Iterations: fmt.Sprint(r.Iterations),
		Wall:       l.duration(wallMS(r)),
		TokensIn:   l.count(r.InputTokens),
		TokensOut:  l.count(r.OutputTokens),
		Cost:       l.cost(r.CostUSD),
		Lines:      "—",
		Exit:       "—",
	}
	s.Tokens = s.TokensIn + " / " + s.TokensOut
	if r.InputTokens <= 0 && r.OutputTokens <= 0 {
		s.Tokens = "—"
	}
	if r.FinalCode != "" {
		s.Lines = fmt.Sprint(LinesOfCode(r.FinalCode))
	}
	if it, ok := lastExecuted(b.iterations(r.ID)); ok {
		s.Exit = l.exitWord(exitText(it))
	}
	return s
}

// comparisonMarkdown is the zip's summary: the session, then one table row
// per run.
func comparisonMarkdown(b *Bundle, runs []store.Run, files []string, l words) []byte {
	var sb strings.Builder
	fmt.Fprintf(&sb, "# %s\n\n", l.t("cmpTitle", mdInline(title(b, l))))
	if t := l.time(b.Session.CreatedAt); t != "" {
		sb.WriteString(l.t("cmpSession", t, plural(len(runs), l.t("run"), l.t("runs"))))
	}
	sb.WriteString(l.t("cmpExported", l.t("zipPrompt")) + "\n\n")
	if len(runs) == 0 {
		sb.WriteString(l.t("noRuns") + "\n")
		return []byte(sb.String())
	}
	sb.WriteString(comparisonTable(b, runs, files, l))
	sb.WriteString("\n" + l.t("cmpLegend") + "\n")
	for i := range runs {
		if runs[i].FinalCode == "" {
			fmt.Fprintf(&sb, "\n%s\n", l.t("cmpNoCode", mdInline(orDash(runs[i].Provider)), mdInline(noCodeReason(&runs[i], l))))
		}
	}
	return []byte(sb.String())
}

// comparisonTable is a Markdown table with a row per run; files, when not
// nil, adds a column naming each run's script.
func comparisonTable(b *Bundle, runs []store.Run, files []string, l words) string {
	var sb strings.Builder
	var head []string
	for _, k := range []string{"colProvider", "colModel", "colStatus", "colIterations", "colWall", "colTokensIn", "colTokensOut", "colCost", "colLinesOfCode", "colExitCode"} {
		head = append(head, l.t(k))
	}
	align := []string{"---", "---", "---", "---:", "---:", "---:", "---:", "---:", "---:", "---:"}
	if files != nil {
		head, align = append(head, l.t("colFile")), append(align, "---")
	}
	row := func(cells []string) {
		sb.WriteString("|")
		for _, c := range cells {
			sb.WriteString(" " + c + " |")
		}
		sb.WriteString("\n")
	}
	row(head)
	row(align)
	for i := range runs {
		s := summarize(b, &runs[i], l)
		cells := []string{mdCell(s.Provider), mdCell(s.Model), mdCell(s.Status), s.Iterations, s.Wall,
			s.TokensIn, s.TokensOut, s.Cost, s.Lines, mdCell(s.Exit)}
		if files != nil {
			f := "—"
			if files[i] != "" {
				f = mdCode(files[i])
			}
			cells = append(cells, f)
		}
		row(cells)
	}
	return sb.String()
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
