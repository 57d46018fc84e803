package export

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/loopforge/loopforge/backend/event"
)

// The class export's summary table (loopforge class): one line per student.

// ClassRow is one student's line of the summary.
type ClassRow struct {
	Student    string
	Runs       int
	Successes  int
	LastStatus event.RunStatus
	Iterations int // of the last run
	Provider   string
	Tokens     int
	CostUSD    float64
}

// ClassInfo is what the Markdown summary says of the class above its table.
type ClassInfo struct {
	Name    string
	Created time.Time
	Ended   *time.Time // nil while the class is open
}

// classColumns are the texts keys of the summary's columns, in order.
var classColumns = []string{"cls.student", "cls.runs", "cls.successes", "cls.lastStatus", "cls.iterations",
	"cls.provider", "cls.tokens", "cls.cost"}

func (w words) classHeader() []string {
	h := make([]string, len(classColumns))
	for i, k := range classColumns {
		h[i] = w.t(k)
	}
	return h
}

// classCells is a row in words; decimal is how the cost is written.
func (w words) classCells(r ClassRow, decimal func(string, float64) string) []string {
	status := ""
	if r.LastStatus != "" {
		status = w.status(string(r.LastStatus))
	}
	return []string{r.Student, strconv.Itoa(r.Runs), strconv.Itoa(r.Successes), status, strconv.Itoa(r.Iterations),
		r.Provider, strconv.Itoa(r.Tokens), decimal("%.4f", r.CostUSD)}
}

// ClassSummaryCSV is the summary as CSV: headings and statuses in loc's
// language, numbers as a program reads them (a dot before decimals), so a
// spreadsheet in any language imports the same values.
func ClassSummaryCSV(loc Locale, rows []ClassRow) []byte {
	w := loc.words()
	var b bytes.Buffer
	cw := csv.NewWriter(&b)
	_ = cw.Write(w.classHeader())
	plain := func(f string, v float64) string { return fmt.Sprintf(f, v) }
	for _, r := range rows {
		_ = cw.Write(w.classCells(r, plain))
	}
	cw.Flush()
	return b.Bytes()
}

// ClassSummaryMarkdown is the summary as a Markdown page: the class's name,
// when it ran (in loc's zone), how many students, and the table.
func ClassSummaryMarkdown(loc Locale, c ClassInfo, rows []ClassRow) []byte {
	w := loc.words()
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n%s", mdCell(c.Name), w.time(c.Created))
	if c.Ended != nil {
		fmt.Fprintf(&b, " – %s", w.time(*c.Ended))
	}
	key := "cls.students"
	if len(rows) == 1 {
		key = "cls.student1"
	}
	fmt.Fprintf(&b, " · %s\n\n", w.t(key, len(rows)))
	header := w.classHeader()
	b.WriteString("| " + strings.Join(header, " | ") + " |\n")
	b.WriteString(strings.Repeat("|---", len(header)) + "|\n")
	for _, r := range rows {
		cells := w.classCells(r, w.decimal)
		for i := range cells {
			cells[i] = mdCell(cells[i])
		}
		b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
	}
	return []byte(b.String())
}
