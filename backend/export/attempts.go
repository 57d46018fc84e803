package export

import (
	"bytes"
	"encoding/csv"
	"strconv"
	"time"

	"github.com/loopforge/loopforge/backend/event"
)

// The class export's attempts.csv (loopforge class): every student's runs,
// one row per run and iteration, for a spreadsheet to sort and count.

// AttemptRow is one iteration of one run of a student (Iteration 0: a run
// that ended before its first iteration began).
type AttemptRow struct {
	Student, Assignment, RunID string
	Started                    time.Time // the run's start
	RunStatus                  event.RunStatus
	Iteration                  int
	Status                     string // success, error, running, or the run's status for the iteration it ended in
	ErrorKind, Error           string
	TokensIn, TokensOut        int
	DurationMS                 int64 // the iteration's; 0 while it goes on
	// WorkingAfterMS is the student's time on this assignment from their
	// first run to the first program that worked (0: none yet).
	WorkingAfterMS int64
}

var attemptColumns = []string{"att.student", "att.assignment", "att.run", "att.started", "att.runStatus", "att.iteration",
	"att.status", "att.errorKind", "att.error", "att.tokensIn", "att.tokensOut", "att.seconds", "att.working"}

// AttemptsCSV is the rows as CSV (RFC 4180, UTF-8, names as they were
// typed): headings and statuses in loc's language; times as RFC 3339 in
// loc's zone and numbers with a dot before decimals, so any spreadsheet
// reads the same values; error kinds as loopforge's codes.
func AttemptsCSV(loc Locale, rows []AttemptRow) []byte {
	w := loc.words()
	var b bytes.Buffer
	cw := csv.NewWriter(&b)
	head := make([]string, len(attemptColumns))
	for i, k := range attemptColumns {
		head[i] = w.t(k)
	}
	_ = cw.Write(head) // a bytes.Buffer does not fail
	for _, r := range rows {
		it, status := "", ""
		if r.Iteration > 0 {
			it, status = strconv.Itoa(r.Iteration), w.status(r.Status)
		}
		_ = cw.Write([]string{r.Student, r.Assignment, r.RunID, r.Started.In(w.zone).Format(time.RFC3339),
			w.status(string(r.RunStatus)), it, status, r.ErrorKind, r.Error,
			strconv.Itoa(r.TokensIn), strconv.Itoa(r.TokensOut), seconds(r.DurationMS), seconds(r.WorkingAfterMS)})
	}
	cw.Flush()
	return b.Bytes()
}

// seconds writes milliseconds as seconds with one decimal; "" for 0 (not
// known, or not yet).
func seconds(ms int64) string {
	if ms <= 0 {
		return ""
	}
	return strconv.FormatFloat(float64(ms)/1000, 'f', 1, 64)
}
