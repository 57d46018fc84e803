package service

import (
	"archive/zip"
	"bytes"
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/loopforge/loopforge/backend/access"
	"github.com/loopforge/loopforge/backend/event"
	"github.com/loopforge/loopforge/backend/export"
	"github.com/loopforge/loopforge/backend/store"
)

// The class export: every student's final script of each session, a
// summary table (one line per student) and every attempt (one line per
// run and iteration: attempts.csv, see classpath.go).

// classRecord is what the export reads of a class.
type classRecord struct {
	class    *store.Class
	students []store.Student
	sessions []store.ClassSession
	runs     []store.Run // in start order
}

// ExportClass renders a class (classID "" = the open one) as format zip,
// csv or md (instructor only), its words in lang and its times in the zone
// tz (see exportLocale): the file name and its bytes. Format attempts is
// attempts.csv alone.
func (s *Service) ExportClass(ctx context.Context, classID, format, lang, tz string) (name string, data []byte, err error) {
	if access.From(ctx).IsStudent() {
		return "", nil, instructorOnly("ClassExport")
	}
	format = strings.ToLower(strings.TrimPrefix(strings.TrimSpace(format), "."))
	if format == "" {
		format = "zip"
	}
	switch format {
	case "zip", "csv", "md", "attempts", "grades", "grade-tests":
	default:
		return "", nil, fmt.Errorf("%w: unknown class export format %q (want zip, csv, md, attempts, grades or grade-tests)", ErrInvalidRequest, format)
	}
	loc, err := exportLocale(lang, tz)
	if err != nil {
		return "", nil, err
	}
	if classID == "" {
		cr := s.classOf()
		if cr == nil {
			return "", nil, ErrNoClass
		}
		classID = cr.row.ID
	}
	rec, err := s.classRecord(ctx, classID)
	if err != nil {
		return "", nil, err
	}
	rows := rec.summary()
	zone := loc.Zone
	if zone == nil {
		zone = time.Local
	}
	base := "class-" + rec.class.CreatedAt.In(zone).Format("2006-01-02")
	if slug := export.Slug(rec.class.Name); slug != "" {
		base = "class-" + slug + base[len("class"):]
	}
	info := export.ClassInfo{Name: rec.class.Name, Created: rec.class.CreatedAt, Ended: rec.class.EndedAt}
	switch format {
	case "csv":
		return base + ".csv", export.ClassSummaryCSV(loc, rows), nil
	case "md":
		return base + ".md", export.ClassSummaryMarkdown(loc, info, rows), nil
	}
	grades, tests, err := s.gradeRows(ctx, rec)
	if err != nil {
		return "", nil, err
	}
	switch format {
	case "grades":
		return base + "-grades.csv", export.GradesCSV(loc, grades), nil
	case "grade-tests":
		return base + "-grade-tests.csv", export.GradeTestsCSV(loc, tests), nil
	}
	attempts, err := s.attemptRows(ctx, rec)
	if err != nil {
		return "", nil, err
	}
	if format == "attempts" {
		return base + "-attempts.csv", export.AttemptsCSV(loc, attempts), nil
	}
	b, err := rec.zip(loc, info, rows, map[string][]byte{"attempts.csv": export.AttemptsCSV(loc, attempts),
		"grades.csv": export.GradesCSV(loc, grades), "grade-tests.csv": export.GradeTestsCSV(loc, tests)})
	return base + ".zip", b, err
}

func (s *Service) classRecord(ctx context.Context, id string) (*classRecord, error) {
	c, err := s.store.GetClass(ctx, id)
	if err != nil {
		return nil, err
	}
	rec := &classRecord{class: c}
	if rec.students, err = s.store.ListStudents(ctx, id); err != nil {
		return nil, err
	}
	if rec.sessions, err = s.store.ClassSessions(ctx, id); err != nil {
		return nil, err
	}
	if rec.runs, err = s.store.ClassRuns(ctx, id); err != nil {
		return nil, err
	}
	return rec, nil
}

// summary is one row per student, in join order.
func (rec *classRecord) summary() []export.ClassRow {
	owner := map[string]string{}
	for _, cs := range rec.sessions {
		owner[cs.ID] = cs.StudentID
	}
	rows := make([]export.ClassRow, len(rec.students))
	at := map[string]int{}
	for i, st := range rec.students {
		rows[i].Student = st.Name
		at[st.ID] = i
	}
	for _, r := range rec.runs {
		i, ok := at[owner[r.SessionID]]
		if !ok {
			continue
		}
		row := &rows[i]
		row.Runs++
		if r.Status == event.RunStatusSuccess {
			row.Successes++
		}
		row.LastStatus, row.Iterations, row.Provider = r.Status, r.Iterations, r.Provider
		row.Tokens += r.InputTokens + r.OutputTokens
		row.CostUSD += r.CostUSD
	}
	return rows
}

// zip holds STUDENT/NN-SESSION.ext, the last code each session produced,
// both summaries and the tables (attempts.csv, grades.csv,
// grade-tests.csv: name → bytes).
func (rec *classRecord) zip(loc export.Locale, info export.ClassInfo, rows []export.ClassRow, tables map[string][]byte) ([]byte, error) {
	var b bytes.Buffer
	z := zip.NewWriter(&b)
	add := func(name string, data []byte) error {
		w, err := z.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Deflate, Modified: time.Now()})
		if err != nil {
			return err
		}
		_, err = w.Write(data)
		return err
	}
	last := map[string]store.Run{} // session → its last run with code
	for _, r := range rec.runs {
		if strings.TrimSpace(r.FinalCode) != "" {
			last[r.SessionID] = r
		}
	}
	folder := map[string]string{}
	taken := map[string]bool{}
	for _, st := range rec.students {
		f := slugOr(st.Name, "student")
		for i := 2; taken[f]; i++ {
			f = slugOr(st.Name, "student") + "-" + strconv.Itoa(i)
		}
		taken[f], folder[st.ID] = true, f
	}
	n := map[string]int{}
	for _, cs := range rec.sessions {
		r, ok := last[cs.ID]
		f, student := folder[cs.StudentID]
		if !ok || !student {
			continue
		}
		n[f]++
		name := fmt.Sprintf("%s/%02d-%s%s", f, n[f], slugOr(cs.Title, "run"), scriptExt(r.Language))
		if err := add(name, []byte(r.FinalCode)); err != nil {
			return nil, err
		}
	}
	if err := add("summary.csv", export.ClassSummaryCSV(loc, rows)); err != nil {
		return nil, err
	}
	if err := add("summary.md", export.ClassSummaryMarkdown(loc, info, rows)); err != nil {
		return nil, err
	}
	for _, name := range slices.Sorted(maps.Keys(tables)) {
		if err := add(name, tables[name]); err != nil {
			return nil, err
		}
	}
	if err := z.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func scriptExt(lang string) string {
	switch strings.ToLower(lang) {
	case "sh", "bash", "shell":
		return ".sh"
	case "javascript", "js", "node":
		return ".js"
	case "diff":
		return ".patch"
	}
	return ".py"
}

// slugOr is export.Slug (the single-session export's names, accents kept),
// or fallback for a text with no letter or digit.
func slugOr(s, fallback string) string {
	if v := export.Slug(s); v != "" {
		return v
	}
	return fallback
}
