package export

import (
	"bytes"
	"encoding/csv"
	"strconv"

	"github.com/loopforge/loopforge/backend/event"
)

// The class export's grade sheet (loopforge class, prompt problems): one
// row per student and assignment with the best run's tests passed, for a
// gradebook to import (Moodle, Canvas, Google Classroom and spreadsheets
// all read a CSV with a header row and one column per value), and the
// best run's verdict per test.

// GradeRow is how one student did on one assignment: the best run (the
// most tests passed, then a success, then the earlier run).
type GradeRow struct {
	Student, Assignment     string
	TestsPassed, TestsTotal int
	// Attempts is the student's runs on the assignment (0: none; the row
	// is there so a gradebook sees every student).
	Attempts int
	// BestAfterMS runs from the student's first run on the assignment to
	// the end of the best one (0: none, or it has not ended).
	BestAfterMS int64
	BestStatus  event.RunStatus
	BestRunID   string
}

// GradeTestRow is one test's verdict in a student's best run on an
// assignment.
type GradeTestRow struct {
	Student, Assignment, RunID string
	Test                       int // 1-based, in the suite's order
	Name                       string
	Hidden                     bool
	Verdict                    event.Verdict
}

var gradeColumns = []string{"grd.student", "grd.assignment", "grd.passed", "grd.total", "grd.score", "grd.attempts",
	"grd.seconds", "grd.status", "grd.run"}

var gradeTestColumns = []string{"grd.student", "grd.assignment", "grd.run", "grd.test", "grd.name", "grd.hidden", "grd.verdict"}

// GradesCSV is the grade sheet (RFC 4180, UTF-8, names as they were typed):
// headings and statuses in loc's language, numbers with a dot before
// decimals so every gradebook reads the same values. The score is the
// share of tests passed in percent, with one decimal ("" when the
// assignment had no tests).
func GradesCSV(loc Locale, rows []GradeRow) []byte {
	w := loc.words()
	var b bytes.Buffer
	cw := csv.NewWriter(&b)
	_ = cw.Write(w.header(gradeColumns)) // a bytes.Buffer does not fail
	for _, r := range rows {
		score, status := "", ""
		if r.TestsTotal > 0 {
			score = strconv.FormatFloat(100*float64(r.TestsPassed)/float64(r.TestsTotal), 'f', 1, 64)
		}
		if r.BestStatus != "" {
			status = w.status(string(r.BestStatus))
		}
		_ = cw.Write([]string{r.Student, r.Assignment, strconv.Itoa(r.TestsPassed), strconv.Itoa(r.TestsTotal), score,
			strconv.Itoa(r.Attempts), seconds(r.BestAfterMS), status, r.BestRunID})
	}
	cw.Flush()
	return b.Bytes()
}

// GradeTestsCSV is the per-test results: one row per student, assignment
// and test of the best run; verdicts as loopforge's codes (passed,
// wrong_answer, runtime_error, time_limit, memory_limit), hidden as
// true/false, for a spreadsheet to count.
func GradeTestsCSV(loc Locale, rows []GradeTestRow) []byte {
	w := loc.words()
	var b bytes.Buffer
	cw := csv.NewWriter(&b)
	_ = cw.Write(w.header(gradeTestColumns))
	for _, r := range rows {
		_ = cw.Write([]string{r.Student, r.Assignment, r.RunID, strconv.Itoa(r.Test), r.Name, strconv.FormatBool(r.Hidden), string(r.Verdict)})
	}
	cw.Flush()
	return b.Bytes()
}

func (w words) header(keys []string) []string {
	h := make([]string, len(keys))
	for i, k := range keys {
		h[i] = w.t(k)
	}
	return h
}
