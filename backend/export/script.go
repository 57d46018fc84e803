package export

import (
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/loopforge/loopforge/backend/event"
	"github.com/loopforge/loopforge/backend/store"
)

// Limits of the prompt quoted in a script header.
const (
	headerWidth       = 72 // columns of a wrapped prompt line, after "#   "
	headerPromptLines = 10
)

// codingLine matches a PEP 263 source encoding declaration, which Python
// honours only on the first two lines of a file.
var codingLine = regexp.MustCompile(`^[ \t\f]*#.*?coding[:=][ \t]*[-\w.]+`)

// script is a run's final code with a provenance header of comments. The
// code follows the header byte for byte, except that a leading "#!" line and
// a coding declaration stay on top, where they must be to work.
func script(b *Bundle, r *store.Run, l words) ([]byte, error) {
	if r.FinalCode == "" {
		return nil, fmt.Errorf("export: %s run %q: %w (%s); the md, html and json exports still show what happened", r.Provider, r.ID, ErrNoCode, noCodeReason(r, Locale{Lang: English}.words()))
	}
	top, rest := splitPreamble(r.FinalCode)
	var sb strings.Builder
	sb.WriteString(top)
	if top != "" && !strings.HasSuffix(top, "\n") {
		sb.WriteByte('\n')
	}
	sb.WriteString(header(b, r, l))
	sb.WriteString(rest)
	return []byte(sb.String()), nil
}

// noCodeReason says why a run has no code, for errors and handouts.
func noCodeReason(r *store.Run, l words) string {
	if e := oneLine(r.Error); e != "" {
		return l.t("statusReason", l.status(string(r.Status)), truncateRunes(e, 200))
	}
	if r.Status == "" {
		return l.t("noStatus")
	}
	return l.t("statusOnly", l.status(string(r.Status)))
}

// splitPreamble separates the lines that must stay first in a script: a
// shebang on line 1 and a coding declaration on line 1 or 2.
func splitPreamble(code string) (top, rest string) {
	end := 0
	for i := 0; i < 2; i++ {
		line, _, _ := strings.Cut(code[end:], "\n")
		switch {
		case i == 0 && strings.HasPrefix(line, "#!"), codingLine.MatchString(line):
			end += len(line)
			if end < len(code) {
				end++ // the newline
			}
		default:
			return code[:end], code[end:]
		}
	}
	return code[:end], code[end:]
}

// header is the provenance comment block, ending with a blank line. Its first
// two lines hold no user text, so nothing from a prompt or title can become a
// coding declaration.
func header(b *Bundle, r *store.Run, l words) string {
	var h strings.Builder
	line := func(s string) {
		s = strings.TrimRight(s, " ")
		if s == "" {
			h.WriteString("#\n")
			return
		}
		h.WriteString("# " + s + "\n")
	}
	line(l.t("generatedBy"))
	line("")
	if t := oneLine(b.Session.Title); t != "" {
		line(l.t("hdrTitle", truncateRunes(t, 100)))
	}
	line(l.t("hdrPrompt"))
	lines := wrapText(b.Session.Prompt, headerWidth)
	shown := lines
	if len(lines) > headerPromptLines {
		shown = lines[:headerPromptLines]
	}
	for _, l := range shown {
		line("  " + l)
	}
	if more := len(lines) - len(shown); more > 0 {
		line(l.t("hdrMore", more))
	}
	line("")
	line(l.t("hdrProvider", orDash(oneLine(r.Provider))))
	if m := oneLine(r.Model); m != "" {
		line(l.t("hdrModel", m))
	}
	line(l.t("hdrIterations", r.Iterations))
	line(l.t("hdrStatus", statusText(r, l)))
	if t := l.time(runTime(r)); t != "" {
		line(l.t("hdrDate", t))
	}
	if r.Status != event.RunStatusSuccess {
		line("")
		line(l.t("hdrLast"))
	}
	h.WriteString("\n")
	return h.String()
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

// wrapText cleans s and wraps each of its paragraphs at width runes, keeping
// blank lines (runs of them collapsed to one) and dropping leading and
// trailing ones.
func wrapText(s string, width int) []string {
	var out []string
	blank := false
	for l := range strings.SplitSeq(cleanText(s), "\n") {
		l = strings.TrimRight(strings.ReplaceAll(l, "\t", "    "), " ")
		if strings.TrimSpace(l) == "" {
			blank = len(out) > 0
			continue
		}
		if blank {
			out = append(out, "")
			blank = false
		}
		out = append(out, wrapLine(l, width)...)
	}
	return out
}

// wrapLine breaks one line at spaces so no piece is wider than width runes
// (a longer word gets a piece of its own), keeping its indentation.
func wrapLine(l string, width int) []string {
	indent := l[:len(l)-len(strings.TrimLeft(l, " "))]
	if len(indent) > width/2 {
		indent = indent[:width/2]
	}
	var out []string
	cur := ""
	for _, w := range strings.Fields(l) {
		switch {
		case cur == "":
			cur = indent + w
		case utf8.RuneCountInString(cur)+1+utf8.RuneCountInString(w) <= width:
			cur += " " + w
		default:
			out = append(out, cur)
			cur = indent + w
		}
	}
	return append(out, cur)
}
