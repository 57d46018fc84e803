package export

import (
	"fmt"
	"strings"

	"github.com/loopforge/loopforge/backend/event"
	"github.com/loopforge/loopforge/backend/sandbox"
	"github.com/loopforge/loopforge/backend/store"
)

// Limits of the execution output quoted in a handout. Errors keep their end
// (a traceback's last lines say what went wrong), standard output its start.
const (
	iterStdoutLines, iterStdoutBytes   = 30, 3_000
	iterStderrLines, iterStderrBytes   = 30, 4_000
	finalStdoutLines, finalStdoutBytes = 80, 12_000
	finalStderrLines, finalStderrBytes = 60, 8_000
	answerLines, answerBytes           = 20, 2_000
)

// handout is what the Markdown and HTML handouts show, computed once.
type handout struct {
	b      *Bundle
	lang   words
	Lang   string // the html lang attribute
	Title  string
	Meta   string // "Session of …, 3 runs"
	Prompt string // cleaned
	Runs   []runView
	all    []store.Run // the runs shown, for the comparison table
}

type runView struct {
	Anchor     string
	Provider   string
	Model      string
	Status     event.RunStatus // raw status
	Label      string          // status for display: "limit reached"
	StatusText string          // "success after 2 iterations"
	Tone       string          // ok | fail | stop: colour of the status
	Sum        summary
	Iterations []iterView
	Fence      string // language of the code
	// FinalHead heads the run's code: "Final code" when it succeeded, else
	// "Last attempt" (failing or cancelled code is no final code).
	FinalHead string
	FinalCode string
	FinalNote string // why there is no final code, or that it did not run cleanly
	Final     outputView
	HasFinal  bool // Final holds the output of the final code
	Error     string
	Tests     string // "3/5 tests passed" (the last judged program); "" without tests
}

type iterView struct {
	N          int
	OK         bool
	Label      string // "ran cleanly", "exit 1: ValueError: boom"
	Code       string // "" when it is the final code (shown once, below) or there was none
	IsFinal    bool
	FinalNote  string // IsFinal: "This is the final code (the last attempt), shown below."
	NoCode     bool   // the answer had no usable code
	NoAnswer   bool   // no answer was recorded (the run stopped during the call)
	Answer     string // clipped answer when there was no code
	Out        outputView
	Tests      *testsView // nil: the run has no tests, or this program was not judged
	Reflection string
}

type outputView struct {
	lang      words
	Ran       bool
	Exit      string // "0", "1", "timeout"
	Stdout    string
	Stderr    string
	Truncated bool // the sandbox cut the output when it was recorded
	Images    []pictureView
}

func newHandout(b *Bundle, runs []store.Run, l words) *handout {
	h := &handout{b: b, lang: l, Lang: string(l.Lang), Title: title(b, l), Prompt: strings.TrimSpace(cleanText(b.Session.Prompt)), all: runs}
	var meta []string
	if t := l.time(b.Session.CreatedAt); t != "" {
		meta = append(meta, l.t("sessionOf", t))
	}
	meta = append(meta, plural(len(runs), l.t("run"), l.t("runs")))
	h.Meta = strings.Join(meta, " · ")
	for i := range runs {
		h.Runs = append(h.Runs, h.run(i+1, &runs[i]))
	}
	return h
}

// T is the text of key in the handout's language (for the template).
func (h *handout) T(key string, a ...any) string { return h.lang.t(key, a...) }

func (h *handout) run(idx int, r *store.Run) runView {
	l := h.lang
	// What the program printed names its file as the sandbox did
	// ("/tmp/loopforge-run-…/loopforge-code.py"); the handout names it as
	// the student knows it, the exported script. The history keeps the
	// sandbox's path.
	prog := scriptName(h.b, r)
	v := runView{
		Anchor:     fmt.Sprintf("run-%d", idx),
		Provider:   orDash(oneLine(r.Provider)),
		Model:      oneLine(r.Model),
		Status:     r.Status,
		Label:      orDash(l.status(string(r.Status))),
		StatusText: statusText(r, l),
		Tone:       tone(r.Status),
		Sum:        summarize(h.b, r, l),
		Fence:      langOf(r).fence,
		FinalHead:  l.t("finalCode"),
		FinalCode:  r.FinalCode,
		Error:      strings.TrimSpace(cleanText(sandbox.NameProgram(r.Error, prog))),
		Tests:      runTests(r, l),
	}
	finalNote := l.t("isFinal")
	if r.Status != event.RunStatusSuccess {
		v.FinalHead, finalNote = l.t("lastAttempt"), l.t("isLast")
	}
	its := h.b.iterations(r.ID)
	for i := range its {
		it := &its[i]
		for _, f := range []*string{&it.Stdout, &it.Stderr, &it.Summary, &it.Reflection} {
			*f = sandbox.NameProgram(*f, prog)
		}
	}
	last, ran := lastExecuted(its)
	finalShown := false
	for _, it := range its {
		iv := iterView{N: it.N, OK: it.Status == event.IterationStatusSuccess || it.ExecStatus == string(event.ExecStatusOK), Reflection: strings.TrimSpace(cleanText(it.Reflection))}
		iv.Label = iterLabel(it, l)
		if tp := h.b.tests(r.ID, it.N); tp != nil {
			// The tests, not the exit status, decide.
			iv.Tests, iv.OK = newTestsView(tp, l), tp.AllPassed()
		}
		switch {
		case it.Code == "" && it.ExecStatus == "" && strings.TrimSpace(it.Content) == "":
			iv.NoAnswer = true
		case it.Code == "" && it.ExecStatus == "":
			iv.NoCode = true
			iv.Answer = clip(it.Content, answerLines, answerBytes, false, l)
		case ran && it.N == last.N && it.Code == r.FinalCode && r.FinalCode != "":
			iv.IsFinal, iv.FinalNote, finalShown = true, finalNote, true
		default:
			iv.Code = it.Code
			iv.Out = output(it, iterStdoutLines, iterStdoutBytes, iterStderrLines, iterStderrBytes, l)
			iv.Out.Images = pictureViews(h.b.pictures(r.ID, it.N))
		}
		v.Iterations = append(v.Iterations, iv)
	}
	switch {
	case r.FinalCode == "" && v.Error != "":
		v.FinalNote = l.t("noCodeErr")
	case r.FinalCode == "":
		v.FinalNote = l.t("noCodeWhy", noCodeReason(r, l))
	case r.Status != event.RunStatusSuccess:
		v.FinalNote = l.t("lastNote")
	}
	if finalShown {
		v.Final, v.HasFinal = output(last, finalStdoutLines, finalStdoutBytes, finalStderrLines, finalStderrBytes, l), true
		v.Final.Images = pictureViews(h.b.pictures(r.ID, last.N))
	}
	return v
}

// iterLabel says in a few words how an iteration ended. In English it is
// the summary the loop recorded ("exit 1: ValueError: boom"); in another
// language it is built from the iteration's fields, since the summary is
// English (what the program printed is kept as it is).
func iterLabel(it store.Iteration, l words) string {
	if s := oneLine(it.Summary); s != "" && l.Lang == English {
		return s
	}
	detail := func(s string) string {
		if last := lastLine(it.Stderr); last != "" {
			return s + ": " + last
		}
		return s
	}
	switch it.ExecStatus {
	case "":
		switch {
		case it.Code == "" && strings.TrimSpace(it.Content) == "":
			return l.t("noAnswerLabel")
		case it.Code == "":
			return l.t("noCodeLabel")
		}
		return orDash(l.status(string(it.Status)))
	case "ok":
		return l.t("ranCleanly")
	case "error":
		return detail(l.t("exit", fmt.Sprint(it.ExitCode)))
	case "timeout":
		return l.t("execTimeout")
	case "memory":
		return detail(l.t("execMemory"))
	case "output_limit":
		return l.t("execOutput")
	case "killed":
		return l.t("execKilled")
	case "sandbox_error":
		return l.t("execSandbox")
	}
	return l.exitWord(exitText(it))
}

// lastLine is the last non-blank line of s, cleaned and shortened.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimRight(cleanText(s), "\n "), "\n")
	return truncateRunes(strings.TrimSpace(lines[len(lines)-1]), 200)
}

// tone classifies a status for colour: ok (success), fail (limit, error) or
// stop (cancelled, interrupted, running).
func tone(status event.RunStatus) string {
	switch status {
	case event.RunStatusSuccess:
		return "ok"
	case event.RunStatusLimitReached, event.RunStatusError:
		return "fail"
	}
	return "stop"
}

// End says how the execution ended: "exit 1", "timeout".
func (o outputView) End() string {
	if o.Exit == "" || strings.Trim(o.Exit, "-0123456789") == "" {
		return o.lang.t("exit", o.Exit)
	}
	return o.lang.exitWord(o.Exit)
}

// ErrLabel names the standard error block: an error only when the run
// failed.
func (o outputView) ErrLabel() string {
	if o.Exit == "0" {
		return o.lang.t("stderr")
	}
	return o.lang.t("errOutput", o.End())
}

// T is the text of key in the output's language (for the template).
func (o outputView) T(key string, a ...any) string { return o.lang.t(key, a...) }

func output(it store.Iteration, outLines, outBytes, errLines, errBytes int, l words) outputView {
	return outputView{
		lang:      l,
		Ran:       it.ExecStatus != "",
		Exit:      exitText(it),
		Stdout:    clip(it.Stdout, outLines, outBytes, false, l),
		Stderr:    clip(it.Stderr, errLines, errBytes, true, l),
		Truncated: it.Truncated,
	}
}

// ---- Markdown ----

func (h *handout) markdown() []byte {
	var sb strings.Builder
	l := h.lang
	p := func(format string, a ...any) { fmt.Fprintf(&sb, format, a...) }
	p("# %s\n\n", mdInline(h.Title))
	p("%s · %s\n\n", mdInline(h.Meta), l.t("exportedBy"))
	p("## %s\n\n%s\n", l.t("prompt"), quote(h.Prompt, l))
	if len(h.Runs) == 0 {
		p("%s\n", l.t("noRuns"))
		return []byte(sb.String())
	}
	p("## %s\n\n%s", l.t("comparison"), comparisonTable(h.b, h.all, nil, l))
	for i, r := range h.Runs {
		p("\n## %d. %s — %s\n\n", i+1, mdInline(r.Provider), mdInline(r.StatusText))
		var facts []string
		if r.Model != "" {
			facts = append(facts, l.t("model", mdCode(r.Model)))
		}
		facts = append(facts, l.t("wallTime", r.Sum.Wall))
		if r.Sum.TokensIn != "—" || r.Sum.TokensOut != "—" {
			facts = append(facts, l.t("tokensInOut", r.Sum.TokensIn, r.Sum.TokensOut))
		}
		if r.Sum.Cost != "—" {
			facts = append(facts, l.t("cost", r.Sum.Cost))
		}
		if r.Tests != "" {
			facts = append(facts, r.Tests)
		}
		p("%s.\n", strings.Join(facts, " · "))
		if r.Error != "" {
			p("\n**%s:** %s\n", l.t("error"), mdInline(oneLine(r.Error)))
		}
		for _, it := range r.Iterations {
			mark := "✗"
			if it.OK {
				mark = "✓"
			}
			p("\n### %s — %s %s\n\n", l.t("iteration", it.N), mark, mdInline(it.Label))
			switch {
			case it.NoAnswer:
				p("%s\n", l.t("noAnswer"))
			case it.NoCode:
				p("%s\n", l.t("noUsableCode"))
				if it.Answer != "" {
					p("\n%s", fence(it.Answer, "text"))
				}
			case it.IsFinal:
				p("%s\n", it.FinalNote)
			default:
				p("%s", fence(it.Code, r.Fence))
				mdOutput(&sb, it.Out)
			}
			mdTests(&sb, it.Tests, l)
			if it.Reflection != "" {
				p("\n**%s**\n\n%s", l.t("reflection"), quote(it.Reflection, l))
			}
		}
		p("\n### %s\n\n", r.FinalHead)
		if r.FinalNote != "" {
			p("%s\n\n", mdInline(r.FinalNote))
		}
		if r.FinalCode != "" {
			p("%s", fence(r.FinalCode, r.Fence))
			if r.HasFinal {
				mdOutput(&sb, r.Final)
			} else {
				p("\n%s\n", l.t("noOutputRec"))
			}
		}
	}
	return []byte(sb.String())
}

// mdTests writes an iteration's tests: the count and row, then each
// failing test with its evidence.
func mdTests(sb *strings.Builder, t *testsView, l words) {
	if t == nil {
		return
	}
	fmt.Fprintf(sb, "\n**%s:** %s %s\n", l.t("colTests"), mdInline(t.Summary), t.Row)
	for _, f := range t.Failures {
		fmt.Fprintf(sb, "\n- %s\n", mdInline(f.Label))
		if f.Evidence != "" {
			fmt.Fprintf(sb, "\n%s", fence(f.Evidence, "diff"))
		}
	}
}

func mdOutput(sb *strings.Builder, o outputView) {
	l := o.lang
	if !o.Ran {
		fmt.Fprintf(sb, "\n%s\n", l.t("notExecuted"))
		return
	}
	if len(o.Images) > 0 {
		names := make([]string, len(o.Images))
		for i, im := range o.Images {
			names[i] = mdCode(im.Name)
		}
		fmt.Fprintf(sb, "\n%s\n", l.t("pictures", strings.Join(names, ", ")))
	}
	if o.Stdout == "" && o.Stderr == "" {
		if len(o.Images) == 0 {
			fmt.Fprintf(sb, "\n%s\n", l.t("noOutputEnd", o.End()))
		}
		return
	}
	if o.Stdout != "" {
		fmt.Fprintf(sb, "\n%s:\n\n%s", l.t("output"), fence(o.Stdout, "text"))
	}
	if o.Stderr != "" {
		fmt.Fprintf(sb, "\n%s:\n\n%s", o.ErrLabel(), fence(o.Stderr, "text"))
	} else if o.Exit != "0" {
		fmt.Fprintf(sb, "\n%s\n", l.t("endedWith", o.End()))
	}
	if o.Truncated {
		fmt.Fprintf(sb, "\n%s\n", l.t("outputCut"))
	}
}

// fence wraps text in a fenced code block whose fence is longer than any
// run of backticks inside, so the text cannot close it.
func fence(text, info string) string {
	n := max(longestRun(text, '`')+1, 3)
	f := strings.Repeat("`", n)
	if !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	return f + info + "\n" + text + f + "\n"
}

func longestRun(s string, c byte) int {
	best, cur := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			cur++
			best = max(best, cur)
		} else {
			cur = 0
		}
	}
	return best
}

// quote renders text as a Markdown block quote.
func quote(text string, l words) string {
	if text == "" {
		return "> " + l.t("empty") + "\n"
	}
	var sb strings.Builder
	for l := range strings.SplitSeq(text, "\n") {
		if strings.TrimSpace(l) == "" {
			sb.WriteString(">\n")
			continue
		}
		sb.WriteString("> " + l + "\n")
	}
	return sb.String()
}

// mdInline escapes the characters that would start Markdown or HTML inline
// syntax in one line of text.
func mdInline(s string) string {
	var sb strings.Builder
	for _, r := range oneLine(s) {
		if strings.ContainsRune("\\`*_[]<>|~&#!", r) {
			sb.WriteByte('\\')
		}
		sb.WriteRune(r)
	}
	return sb.String()
}

// mdCell is mdInline for a table cell.
func mdCell(s string) string { return mdInline(s) }

// mdCode renders s as an inline code span.
func mdCode(s string) string {
	s = oneLine(s)
	f := strings.Repeat("`", longestRun(s, '`')+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		return f + " " + s + " " + f
	}
	return f + s + f
}
