package export

import (
	"archive/zip"
	"bytes"
	"fmt"
	"strings"
	"time"

	"github.com/loopforge/loopforge/backend/store"
)

// Names of the fixed entries of the zip export.
const (
	zipComparison = "comparison.md"
	zipPrompt     = "prompt.txt"
)

// zipAll is every run's final script (as the py export writes it, named after
// its provider), comparison.md and prompt.txt. Runs without code get a row in
// the comparison and no script.
func zipAll(b *Bundle, runs []store.Run) ([]byte, error) {
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
		data, err := script(b, r)
		if err != nil {
			return nil, err
		}
		files[i] = SafeName(labels[i] + langOf(r).ext)
		if err := add(files[i], data); err != nil {
			return nil, fmt.Errorf("export: zip: %w", err)
		}
	}
	if err := add(zipComparison, comparisonMarkdown(b, runs, files)); err != nil {
		return nil, fmt.Errorf("export: zip: %w", err)
	}
	prompt := b.Session.Prompt
	if prompt != "" && !strings.HasSuffix(prompt, "\n") {
		prompt += "\n"
	}
	if err := add(zipPrompt, []byte(prompt)); err != nil {
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

func summarize(b *Bundle, r *store.Run) summary {
	s := summary{
		Provider:   orDash(oneLine(r.Provider)),
		Model:      orDash(oneLine(r.Model)),
		Status:     orDash(string(r.Status)),
		Iterations: fmt.Sprint(r.Iterations),
		Wall:       formatDuration(wallMS(r)),
		TokensIn:   formatCount(r.InputTokens),
		TokensOut:  formatCount(r.OutputTokens),
		Cost:       formatCost(r.CostUSD),
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
		s.Exit = exitText(it)
	}
	return s
}

// comparisonMarkdown is the zip's summary: the session, then one table row
// per run.
func comparisonMarkdown(b *Bundle, runs []store.Run, files []string) []byte {
	var sb strings.Builder
	fmt.Fprintf(&sb, "# %s — comparison\n\n", mdInline(title(b)))
	if t := formatTime(b.Session.CreatedAt); t != "" {
		fmt.Fprintf(&sb, "Session of %s, %s. ", t, plural(len(runs), "run", "runs"))
	}
	sb.WriteString("Exported by loopforge. The prompt is in `prompt.txt`.\n\n")
	if len(runs) == 0 {
		sb.WriteString("This session has no runs.\n")
		return []byte(sb.String())
	}
	sb.WriteString(comparisonTable(b, runs, files))
	sb.WriteString("\nWall time is the whole run (generation, execution and reflection). " +
		"Lines of code count non-blank lines of the final script. " +
		"Exit code is that of the final script's last execution. — means unknown or none.\n")
	for i := range runs {
		if runs[i].FinalCode == "" {
			fmt.Fprintf(&sb, "\n%s produced no code (%s).\n", mdInline(orDash(runs[i].Provider)), mdInline(noCodeReason(&runs[i])))
		}
	}
	return []byte(sb.String())
}

// comparisonTable is a Markdown table with a row per run; files, when not
// nil, adds a column naming each run's script.
func comparisonTable(b *Bundle, runs []store.Run, files []string) string {
	var sb strings.Builder
	head := []string{"Provider", "Model", "Status", "Iterations", "Wall time", "Tokens in", "Tokens out", "Cost", "Lines of code", "Exit code"}
	align := []string{"---", "---", "---", "---:", "---:", "---:", "---:", "---:", "---:", "---:"}
	if files != nil {
		head, align = append(head, "File"), append(align, "---")
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
		s := summarize(b, &runs[i])
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
