package export

import (
	"fmt"
	"strings"

	"github.com/loopforge/loopforge/backend/event"
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
	FinalCode  string
	FinalNote  string // why there is no final code, or that it did not run cleanly
	Final      outputView
	HasFinal   bool // Final holds the output of the final code
	Error      string
}

type iterView struct {
	N          int
	OK         bool
	Label      string // "ran cleanly", "exit 1: ValueError: boom"
	Code       string // "" when it is the final code (shown once, below) or there was none
	IsFinal    bool
	NoCode     bool   // the answer had no usable code
	NoAnswer   bool   // no answer was recorded (the run stopped during the call)
	Answer     string // clipped answer when there was no code
	Out        outputView
	Reflection string
}

type outputView struct {
	Ran       bool
	Exit      string // "0", "1", "timeout"
	Stdout    string
	Stderr    string
	Truncated bool // the sandbox cut the output when it was recorded
}

func newHandout(b *Bundle, runs []store.Run) *handout {
	h := &handout{b: b, Title: title(b), Prompt: strings.TrimSpace(cleanText(b.Session.Prompt)), all: runs}
	var meta []string
	if t := formatTime(b.Session.CreatedAt); t != "" {
		meta = append(meta, "Session of "+t)
	}
	meta = append(meta, plural(len(runs), "run", "runs"))
	h.Meta = strings.Join(meta, " · ")
	for i := range runs {
		h.Runs = append(h.Runs, h.run(i+1, &runs[i]))
	}
	return h
}

func (h *handout) run(idx int, r *store.Run) runView {
	v := runView{
		Anchor:     fmt.Sprintf("run-%d", idx),
		Provider:   orDash(oneLine(r.Provider)),
		Model:      oneLine(r.Model),
		Status:     r.Status,
		Label:      strings.ReplaceAll(orDash(string(r.Status)), "_", " "),
		StatusText: statusText(r),
		Tone:       tone(r.Status),
		Sum:        summarize(h.b, r),
		Fence:      langOf(r).fence,
		FinalCode:  r.FinalCode,
		Error:      strings.TrimSpace(cleanText(r.Error)),
	}
	its := h.b.iterations(r.ID)
	last, ran := lastExecuted(its)
	finalShown := false
	for _, it := range its {
		iv := iterView{N: it.N, OK: it.Status == "success" || it.ExecStatus == "ok", Reflection: strings.TrimSpace(cleanText(it.Reflection))}
		iv.Label = oneLine(it.Summary)
		switch {
		case it.Code == "" && it.ExecStatus == "" && strings.TrimSpace(it.Content) == "":
			iv.NoAnswer = true
			if iv.Label == "" {
				iv.Label = "no answer"
			}
		case it.Code == "" && it.ExecStatus == "":
			iv.NoCode = true
			iv.Answer = clip(it.Content, answerLines, answerBytes, false)
			if iv.Label == "" {
				iv.Label = "no code"
			}
		case ran && it.N == last.N && it.Code == r.FinalCode && r.FinalCode != "":
			iv.IsFinal, finalShown = true, true
		default:
			iv.Code = it.Code
			iv.Out = output(it, iterStdoutLines, iterStdoutBytes, iterStderrLines, iterStderrBytes)
		}
		if iv.Label == "" {
			switch {
			case it.ExecStatus == "ok":
				iv.Label = "ran cleanly"
			case it.ExecStatus != "":
				iv.Label = "exit " + exitText(it)
			default:
				iv.Label = orDash(it.Status)
			}
		}
		v.Iterations = append(v.Iterations, iv)
	}
	switch {
	case r.FinalCode == "" && v.Error != "":
		v.FinalNote = "This run produced no code (see the error above)."
	case r.FinalCode == "":
		v.FinalNote = "This run produced no code (" + noCodeReason(r) + ")."
	case r.Status != event.RunStatusSuccess:
		v.FinalNote = "The last code generated; it did not run cleanly."
	}
	if finalShown {
		v.Final, v.HasFinal = output(last, finalStdoutLines, finalStdoutBytes, finalStderrLines, finalStderrBytes), true
	}
	return v
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
		return "exit " + o.Exit
	}
	return o.Exit
}

// ErrLabel names the standard error block: an error only when the run
// failed.
func (o outputView) ErrLabel() string {
	if o.Exit == "0" {
		return "Standard error"
	}
	return "Error output (" + o.End() + ")"
}

func output(it store.Iteration, outLines, outBytes, errLines, errBytes int) outputView {
	return outputView{
		Ran:       it.ExecStatus != "",
		Exit:      exitText(it),
		Stdout:    clip(it.Stdout, outLines, outBytes, false),
		Stderr:    clip(it.Stderr, errLines, errBytes, true),
		Truncated: it.Truncated,
	}
}

// ---- Markdown ----

func (h *handout) markdown() []byte {
	var sb strings.Builder
	p := func(format string, a ...any) { fmt.Fprintf(&sb, format, a...) }
	p("# %s\n\n", mdInline(h.Title))
	p("%s · exported by loopforge\n\n", mdInline(h.Meta))
	p("## Prompt\n\n%s\n", quote(h.Prompt))
	if len(h.Runs) == 0 {
		p("This session has no runs.\n")
		return []byte(sb.String())
	}
	p("## Comparison\n\n%s", comparisonTable(h.b, h.all, nil))
	for i, r := range h.Runs {
		p("\n## %d. %s — %s\n\n", i+1, mdInline(r.Provider), mdInline(r.StatusText))
		var facts []string
		if r.Model != "" {
			facts = append(facts, "model "+mdCode(r.Model))
		}
		facts = append(facts, "wall time "+r.Sum.Wall)
		if r.Sum.TokensIn != "—" || r.Sum.TokensOut != "—" {
			facts = append(facts, "tokens "+r.Sum.TokensIn+" in / "+r.Sum.TokensOut+" out")
		}
		if r.Sum.Cost != "—" {
			facts = append(facts, "cost "+r.Sum.Cost)
		}
		p("%s.\n", strings.Join(facts, " · "))
		if r.Error != "" {
			p("\n**Error:** %s\n", mdInline(oneLine(r.Error)))
		}
		for _, it := range r.Iterations {
			mark := "✗"
			if it.OK {
				mark = "✓"
			}
			p("\n### Iteration %d — %s %s\n\n", it.N, mark, mdInline(it.Label))
			switch {
			case it.NoAnswer:
				p("No answer was recorded; the run stopped here.\n")
			case it.NoCode:
				p("The answer had no usable code.\n")
				if it.Answer != "" {
					p("\n%s", fence(it.Answer, "text"))
				}
			case it.IsFinal:
				p("This is the final code, shown below.\n")
			default:
				p("%s", fence(it.Code, r.Fence))
				mdOutput(&sb, it.Out)
			}
			if it.Reflection != "" {
				p("\n**Reflection**\n\n%s", quote(it.Reflection))
			}
		}
		p("\n### Final code\n\n")
		if r.FinalNote != "" {
			p("%s\n\n", mdInline(r.FinalNote))
		}
		if r.FinalCode != "" {
			p("%s", fence(r.FinalCode, r.Fence))
			if r.HasFinal {
				mdOutput(&sb, r.Final)
			} else {
				p("\nNo recorded output.\n")
			}
		}
	}
	return []byte(sb.String())
}

func mdOutput(sb *strings.Builder, o outputView) {
	if !o.Ran {
		sb.WriteString("\nNot executed.\n")
		return
	}
	if o.Stdout == "" && o.Stderr == "" {
		fmt.Fprintf(sb, "\nNo output (%s).\n", o.End())
		return
	}
	if o.Stdout != "" {
		fmt.Fprintf(sb, "\nOutput:\n\n%s", fence(o.Stdout, "text"))
	}
	if o.Stderr != "" {
		fmt.Fprintf(sb, "\n%s:\n\n%s", o.ErrLabel(), fence(o.Stderr, "text"))
	} else if o.Exit != "0" {
		fmt.Fprintf(sb, "\nEnded with %s.\n", o.End())
	}
	if o.Truncated {
		sb.WriteString("\nThe output was cut when it was recorded.\n")
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
func quote(text string) string {
	if text == "" {
		return "> (empty)\n"
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
