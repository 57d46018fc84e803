// Package export turns one stored session into files a person keeps: the
// final script, a zip of every provider's script with a comparison, a
// Markdown or self-contained HTML handout, a Jupyter notebook, and the whole
// session as JSON that ReadBundle (and so `loopforge import`) reads back.
//
// The package is pure: it reads a *Bundle the caller assembled from the store
// and returns bytes. Render never touches the disk; WriteFile is the one
// place that does, and it only writes inside the directory it is given.
//
// Everything a model produced (code, answers, outputs, reflections) is
// untrusted text: the HTML handout escapes it and carries a Content Security
// Policy that forbids scripts and any external load, Markdown fences are made
// longer than any backtick run inside them, and script headers keep user text
// off the first two lines (where Python reads a coding declaration).
package export

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/loopforge/loopforge/backend/event"
	"github.com/loopforge/loopforge/backend/store"
)

// FormatName and Version identify the JSON export; ReadBundle refuses
// anything else.
const (
	FormatName = "loopforge-session"
	Version    = 1
)

// Bundle is everything about one session. The JSON export writes it in the
// file format of jsonfile.go, which ReadBundle reads back.
//
// Runs is authoritative and keeps the caller's order (the store's: by start
// time). Session.Runs is not needed: the JSON export leaves it out, and
// Render uses it only when Runs is empty. The maps are keyed by run id.
type Bundle struct {
	Format     string // FormatName
	Version    int    // Version
	Exported   time.Time
	Session    store.Session
	Runs       []store.Run
	Iterations map[string][]store.Iteration
	Messages   map[string][]store.Message
	Events     map[string][]event.Event
	// Images are the pictures of the runs' executions, with their bytes
	// (store.ListImages), by run id; nil when there are none.
	Images map[string][]store.Image
}

// Format is an export format.
type Format string

const (
	FormatPy       Format = "py"    // the final script with a provenance header
	FormatZip      Format = "zip"   // every run's script, comparison.md (pt: comparacao.md), prompt.txt
	FormatMarkdown Format = "md"    // handout
	FormatHTML     Format = "html"  // the same handout, one self-contained file
	FormatNotebook Format = "ipynb" // Jupyter nbformat 4.5
	FormatJSON     Format = "json"  // the Bundle, for `loopforge import`
)

// Formats lists every format in the order help texts show them.
func Formats() []Format {
	return []Format{FormatPy, FormatZip, FormatMarkdown, FormatHTML, FormatNotebook, FormatJSON}
}

var formatAliases = map[string]Format{
	"python": FormatPy, "script": FormatPy, "patch": FormatPy, "markdown": FormatMarkdown, "htm": FormatHTML,
	"notebook": FormatNotebook, "jupyter": FormatNotebook,
}

// ParseFormat reads a format name, ignoring case, surrounding space and a
// leading dot (".py"). A few long names are accepted too (markdown,
// notebook, python).
func ParseFormat(s string) (Format, error) {
	n := strings.ToLower(strings.TrimPrefix(strings.TrimSpace(s), "."))
	for _, f := range Formats() {
		if n == string(f) {
			return f, nil
		}
	}
	if f, ok := formatAliases[n]; ok {
		return f, nil
	}
	names := make([]string, 0, len(Formats()))
	for _, f := range Formats() {
		names = append(names, string(f))
	}
	return "", fmt.Errorf("export: unknown format %q (want one of: %s)", s, strings.Join(names, ", "))
}

// ErrNoCode is wrapped by Render when the chosen run has no final code (it
// failed before any code was generated) and the format is a script or a
// notebook.
var ErrNoCode = errors.New("this run produced no code to export")

// ErrRunNotFound is wrapped by Render when the run asked for is not in the
// session.
var ErrRunNotFound = errors.New("no such run in this session")

// Render produces one export of b: a suggested file name (already passed
// through SafeName) and the file's content.
//
// runID picks the run for py and ipynb; "" picks the best run: the first that
// succeeded, else the latest that has code, else the latest. For md and html,
// "" includes every run and a run id narrows the handout to that run. zip and
// json always include every run. An unknown run id is an error for every
// format. A py or ipynb export of a run without code fails with ErrNoCode.
//
// Names start from a slug of the session title (else of the prompt's first
// line, else "loopforge-session"), e.g. "estruturas-de-dados-em-python":
//
//	py     <slug>-<provider>.py   (.sh for a shell run)
//	ipynb  <slug>-<provider>.ipynb
//	zip    <slug>.zip             holding <provider>.py…, comparison.md (pt: comparacao.md), prompt.txt
//	md     <slug>.md              (<slug>-<provider>.md for one run)
//	html   <slug>.html            (<slug>-<provider>.html for one run)
//	json   <slug>.loopforge.json
//
// <provider> is the run's provider made safe, with -2, -3… when several runs
// share it (a re-run).
//
// Render writes its own words in English; RenderLang in any Lang.
func Render(b *Bundle, f Format, runID string) (name string, data []byte, err error) {
	return RenderLang(b, f, runID, English)
}

// RenderLang is Render with the export's own words (headings, labels,
// numbers, dates) in lang, dates in UTC. File names do not change with the
// language.
func RenderLang(b *Bundle, f Format, runID string, lang Lang) (name string, data []byte, err error) {
	return RenderLocale(b, f, runID, Locale{Lang: lang})
}

// RenderLocale is Render with the export's own words in loc's language and
// its dates in loc's zone.
func RenderLocale(b *Bundle, f Format, runID string, loc Locale) (name string, data []byte, err error) {
	lang := loc.words()
	if b == nil {
		return "", nil, errors.New("export: nil bundle")
	}
	runs := b.runs()
	var chosen *store.Run
	if runID != "" {
		i := slices.IndexFunc(runs, func(r store.Run) bool { return r.ID == runID })
		if i < 0 {
			return "", nil, fmt.Errorf("export: %w: %q (session %q)", ErrRunNotFound, runID, b.Session.ID)
		}
		chosen = &runs[i]
	}
	pick := func() (*store.Run, error) {
		if chosen != nil {
			return chosen, nil
		}
		if r := bestRun(runs); r != nil {
			return r, nil
		}
		return nil, fmt.Errorf("export: session %q has no runs", b.Session.ID)
	}
	base := baseName(b)
	switch f {
	case FormatPy:
		r, err := pick()
		if err != nil {
			return "", nil, err
		}
		data, err := script(b, r, lang)
		if err != nil {
			return "", nil, err
		}
		return scriptName(b, r), data, nil
	case FormatNotebook:
		r, err := pick()
		if err != nil {
			return "", nil, err
		}
		data, err := notebook(b, r, lang)
		if err != nil {
			return "", nil, err
		}
		return SafeName(base + "-" + runLabel(runs, r) + ".ipynb"), data, nil
	case FormatZip:
		data, err := zipAll(b, runs, lang)
		return named(base+".zip", data, err)
	case FormatMarkdown, FormatHTML:
		sel := runs
		if chosen != nil {
			sel = []store.Run{*chosen}
			base += "-" + runLabel(runs, chosen)
		}
		h := newHandout(b, sel, lang)
		if f == FormatMarkdown {
			return named(base+".md", h.markdown(), nil)
		}
		data, err := h.html()
		return named(base+".html", data, err)
	case FormatJSON:
		data, err := encodeBundle(b)
		return named(base+".loopforge.json", data, err)
	}
	return "", nil, fmt.Errorf("export: unknown format %q", string(f))
}

// scriptName is the name of a run's code exported as a script (py):
// "<slug>-<provider>.py".
func scriptName(b *Bundle, r *store.Run) string {
	return SafeName(baseName(b) + "-" + runLabel(b.runs(), r) + langOf(r).ext)
}

func named(name string, data []byte, err error) (string, []byte, error) {
	if err != nil {
		return "", nil, err
	}
	return SafeName(name), data, nil
}

// runs is the bundle's runs, falling back to Session.Runs.
func (b *Bundle) runs() []store.Run {
	if len(b.Runs) == 0 && len(b.Session.Runs) > 0 {
		return b.Session.Runs
	}
	return b.Runs
}

// iterations returns a run's iterations ordered by N (a copy).
func (b *Bundle) iterations(runID string) []store.Iteration {
	its := slices.Clone(b.Iterations[runID])
	slices.SortStableFunc(its, func(a, b store.Iteration) int { return cmp.Compare(a.N, b.N) })
	return its
}

// bestRun is the first success, else the latest run with code, else the
// latest run; nil when there are none.
func bestRun(runs []store.Run) *store.Run {
	for i := range runs {
		if runs[i].Status == event.RunStatusSuccess {
			return &runs[i]
		}
	}
	for i := len(runs) - 1; i >= 0; i-- {
		if runs[i].FinalCode != "" {
			return &runs[i]
		}
	}
	if len(runs) == 0 {
		return nil
	}
	return &runs[len(runs)-1]
}

// LanguageDiff is the language recorded for workspace-mode runs, whose
// final "code" is the patch they made to the project.
const LanguageDiff = "diff"

// ErrNotRunnable is wrapped by Render for a notebook of a run whose result
// is a patch (workspace mode), not a program.
var ErrNotRunnable = errors.New("the run's result is a patch, not a program")

// language is what the exports need to know of a run's language.
type language struct {
	fence string // Markdown info string and chroma lexer
	ext   string // script file extension
}

func langOf(r *store.Run) language {
	switch strings.ToLower(strings.TrimSpace(r.Language)) {
	case "sh", "bash", "shell", "zsh":
		return language{fence: "sh", ext: ".sh"}
	case "javascript", "js", "node":
		return language{fence: "javascript", ext: ".js"}
	case LanguageDiff: // a workspace-mode run: its result is a patch of the project
		return language{fence: "diff", ext: ".patch"}
	}
	return language{fence: "python", ext: ".py"}
}

// runLabel names a run in file names: its provider, or "run-N" when the
// provider is blank, with "-2", "-3"… when several runs of the session share
// it (a re-run of the same provider).
func runLabel(runs []store.Run, r *store.Run) string {
	labels := runLabels(runs)
	for i := range runs {
		if runs[i].ID == r.ID {
			return labels[i]
		}
	}
	return fileStem(r.Provider, "run")
}

// runLabels gives every run a distinct file-name stem, comparing without case
// (Windows and macOS file systems ignore it).
func runLabels(runs []store.Run) []string {
	used := map[string]bool{}
	out := make([]string, len(runs))
	for i, r := range runs {
		stem := fileStem(r.Provider, fmt.Sprintf("run-%d", i+1))
		label := stem
		for n := 2; used[strings.ToLower(label)]; n++ {
			label = fmt.Sprintf("%s-%d", stem, n)
		}
		used[strings.ToLower(label)] = true
		out[i] = label
	}
	return out
}

// fileStem is s made safe and short for use inside a file name.
func fileStem(s, fallback string) string {
	s = SafeName(truncateRunes(strings.TrimSpace(s), 40))
	if s == untitled {
		return fallback
	}
	return s
}

// title is the session's title, else the prompt's first line, shortened.
func title(b *Bundle, l words) string {
	if t := oneLine(b.Session.Title); t != "" {
		return truncateRunes(t, 100)
	}
	for line := range strings.Lines(b.Session.Prompt) {
		if t := oneLine(line); t != "" {
			return truncateWords(t, 60)
		}
	}
	return l.t("untitled")
}

// baseName is the stem of every exported file of the session: a slug of its
// title ("estruturas-de-dados-em-python").
func baseName(b *Bundle) string {
	if s := Slug(title(b, Locale{Lang: English}.words())); s != "" {
		return s
	}
	return "loopforge-session"
}

// Slug is how an exported file is named after a text: lower case, its
// letters and digits joined by '-', accented letters kept as they are
// ("Exercício de Ana" → "exercício-de-ana"), at most 48 bytes cut at a word
// when it can be; "" when s has no letter or digit. Every export (one
// session's and a class's) names its files with it.
func Slug(s string) string {
	var sb strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if dash && sb.Len() > 0 {
				sb.WriteByte('-')
			}
			dash = false
			sb.WriteRune(r)
		} else {
			dash = true
		}
	}
	s = sb.String()
	if len(s) > 48 {
		s = truncateBytes(s, 48)
		if i := strings.LastIndexByte(s, '-'); i > 16 {
			s = s[:i]
		}
		s = strings.TrimRight(s, "-")
	}
	return s
}

// ---- small text helpers shared by the renderers ----

// oneLine collapses all whitespace and drops control characters.
func oneLine(s string) string {
	return strings.Join(strings.FieldsFunc(cleanText(s), unicode.IsSpace), " ")
}

// cleanText drops control and format characters except newline and tab,
// turns CR LF and lone CR into newlines, and strips ANSI escape sequences, so
// recorded terminal output reads as text.
func cleanText(s string) string {
	s = stripANSI(s)
	s = strings.ReplaceAll(s, "\r\n", "\n")
	var sb strings.Builder
	sb.Grow(len(s))
	for _, r := range s {
		switch {
		case r == '\r':
			sb.WriteByte('\n')
		case r == '\n' || r == '\t':
			sb.WriteRune(r)
		case r == '\u2028' || r == '\u2029' || r == '\u0085':
			sb.WriteByte('\n')
		case unicode.IsControl(r), unicode.Is(unicode.Cf, r) && r != '\u200d':
			// C0/C1 controls, bidi overrides and the like; invalid UTF-8
			// has become U+FFFD already
		default:
			sb.WriteRune(r)
		}
	}
	return sb.String()
}

// stripANSI removes CSI (ESC [ … final) and OSC (ESC ] … BEL or ST) escape
// sequences and other two-byte ESC sequences.
func stripANSI(s string) string {
	if !strings.ContainsRune(s, 0x1b) {
		return s
	}
	var sb strings.Builder
	for i := 0; i < len(s); {
		c := s[i]
		if c != 0x1b {
			sb.WriteByte(c)
			i++
			continue
		}
		i++
		if i >= len(s) {
			break
		}
		switch s[i] {
		case '[': // CSI: parameters and intermediates, then a final byte @–~
			i++
			for i < len(s) && (s[i] < 0x40 || s[i] > 0x7e) {
				i++
			}
			i++
		case ']': // OSC: until BEL or ESC \
			i++
			for i < len(s) {
				if s[i] == 0x07 {
					i++
					break
				}
				if s[i] == 0x1b && i+1 < len(s) && s[i+1] == '\\' {
					i += 2
					break
				}
				i++
			}
		default:
			i++
		}
	}
	return sb.String()
}

func truncateRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return strings.TrimSpace(string(r[:n-1])) + "…"
}

// truncateWords shortens s to at most n runes, at a word boundary when one
// is near.
func truncateWords(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)[:n-1]
	cut := string(r)
	if i := strings.LastIndexByte(cut, ' '); i > len(cut)/2 {
		cut = cut[:i]
	}
	return strings.TrimRight(cut, " ,;:.-") + "…"
}

// truncateBytes cuts s to at most n bytes without splitting a rune.
func truncateBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// LinesOfCode counts the non-blank lines of code, the "lines of code" of the
// comparison table.
func LinesOfCode(code string) int {
	n := 0
	for line := range strings.Lines(code) {
		if strings.TrimSpace(line) != "" {
			n++
		}
	}
	return n
}

// duration renders milliseconds for people: 850 ms, 7.2 s (7,2 s), 2 min 05 s.
func (l Lang) duration(ms int64) string {
	switch {
	case ms <= 0:
		return "—"
	case ms < 1000:
		return fmt.Sprintf("%d ms", ms)
	case ms < 60_000:
		return l.decimal("%.1f s", float64(ms)/1000)
	case ms < 3_600_000:
		s := (ms + 500) / 1000
		return fmt.Sprintf("%d min %02d s", s/60, s%60)
	}
	m := (ms + 30_000) / 60_000
	return fmt.Sprintf("%d h %02d min", m/60, m%60)
}

// count renders a count with thousands separators; 0 is unknown.
func (l Lang) count(n int) string {
	if n <= 0 {
		return "—"
	}
	s := fmt.Sprint(n)
	var sb strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			sb.WriteByte(l.thousands())
		}
		sb.WriteRune(c)
	}
	return sb.String()
}

// cost renders a cost in dollars; 0 means unknown (the store cannot
// tell a free local model from a provider that reports no price).
func (l Lang) cost(usd float64) string {
	switch {
	case usd <= 0:
		return "—"
	case usd < 1:
		return "$" + l.decimal("%.4f", usd)
	}
	return "$" + l.decimal("%.2f", usd)
}

// runTime is when the run's code was produced: its end, else its start.
func runTime(r *store.Run) time.Time {
	if r.FinishedAt != nil && !r.FinishedAt.IsZero() {
		return *r.FinishedAt
	}
	return r.StartedAt
}

// wallMS is the run's duration, from its end time when the duration was not
// recorded.
func wallMS(r *store.Run) int64 {
	if r.DurationMS > 0 || r.FinishedAt == nil {
		return r.DurationMS
	}
	return max(r.FinishedAt.Sub(r.StartedAt).Milliseconds(), 0)
}

// statusText explains a run status in a few words.
func statusText(r *store.Run, l words) string {
	n := r.Iterations
	its := l.t("iterationsN", n)
	if n == 1 {
		its = l.t("iterations1")
	}
	if n <= 0 {
		switch r.Status {
		case event.RunStatusError:
			return l.t("errorNoCode")
		case event.RunStatusCancelled, event.RunStatusInterrupted:
			return l.t("stopNoCode", l.status(string(r.Status)))
		case event.RunStatusRunning, "":
			return l.t("stillRunning")
		}
	}
	switch r.Status {
	case event.RunStatusSuccess:
		if n == 1 {
			return l.t("successFirst")
		}
		return l.t("successAfter", its)
	case event.RunStatusLimitReached:
		return l.t("limitReached", its)
	case event.RunStatusError:
		return l.t("errorAfter", its)
	case event.RunStatusCancelled:
		return l.t("cancelledAfter", its)
	case event.RunStatusInterrupted:
		return l.t("interruptedAfter", its)
	case event.RunStatusRunning, "":
		return l.t("runningSoFar", its)
	}
	return l.t("statusOther", l.status(string(r.Status)), its)
}

// lastExecuted is the last iteration whose code ran: the one that ran the
// final code. ok is false when nothing ran.
func lastExecuted(its []store.Iteration) (store.Iteration, bool) {
	for i := len(its) - 1; i >= 0; i-- {
		if its[i].ExecStatus != "" {
			return its[i], true
		}
	}
	return store.Iteration{}, false
}

// exitText is how an execution ended, short: "0", "1", "timeout".
func exitText(it store.Iteration) string {
	switch it.ExecStatus {
	case "ok", "error", "":
		return fmt.Sprint(it.ExitCode)
	}
	return strings.ReplaceAll(it.ExecStatus, "_", " ")
}

// execWords are the keys of the words for exitText's non-numeric ends.
var execWords = map[string]string{"timeout": "execTimeout", "memory": "execMemory", "output limit": "execOutput",
	"killed": "execKilled", "sandbox error": "execSandbox"}

// exitWord is exitText in l: "1", "tempo esgotado".
func (l Lang) exitWord(exit string) string {
	if k, ok := execWords[exit]; ok {
		return l.t(k)
	}
	return exit
}

// clip keeps at most maxLines lines and maxBytes bytes of s, from its start
// (head) or its end (tail), saying what was left out (in l). Lines longer
// than lineMax are cut too. The text is cleaned for display first.
func clip(s string, maxLines, maxBytes int, tail bool, l words) string {
	s = strings.TrimRight(cleanText(s), "\n ")
	s = strings.TrimLeft(s, "\n")
	if s == "" {
		return ""
	}
	const lineMax = 400
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if len(l) > lineMax {
			lines[i] = truncateBytes(l, lineMax) + " …"
		}
	}
	omitted := 0
	if len(lines) > maxLines {
		omitted = len(lines) - maxLines
		if tail {
			lines = lines[omitted:]
		} else {
			lines = lines[:maxLines]
		}
	}
	size := 0
	keep := 0
	for i := range lines {
		j := i
		if tail {
			j = len(lines) - 1 - i
		}
		size += len(lines[j]) + 1
		if size > maxBytes && keep > 0 {
			break
		}
		keep++
	}
	if keep < len(lines) {
		omitted += len(lines) - keep
		if tail {
			lines = lines[len(lines)-keep:]
		} else {
			lines = lines[:keep]
		}
	}
	body := strings.Join(lines, "\n")
	if omitted == 0 {
		return body
	}
	note := l.t("moreLines", omitted)
	if omitted == 1 {
		note = l.t("moreLine")
	}
	if tail {
		return note + "\n" + body
	}
	return body + "\n" + note
}
