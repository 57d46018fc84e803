package workspace

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// Match is one line found by Search.
type Match struct {
	Path string // slash-separated, relative to the workspace
	Line int    // 1-based
	Text string
}

// MaxMatches caps Search.
const MaxMatches = 200

// Search finds lines matching the regular expression pattern in the files
// under p whose base name matches glob ("" = every file). Binary files and
// files over MaxReadBytes are skipped. truncated reports that MaxMatches was
// reached.
func (w *Workspace) Search(pattern, p, glob string) (matches []Match, truncated bool, err error) {
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil, false, &Error{Op: "search", Path: p, Reason: "invalid regular expression", Err: err}
	}
	if glob != "" {
		if _, err := filepath.Match(glob, "x"); err != nil {
			return nil, false, &Error{Op: "search", Path: p, Reason: fmt.Sprintf("invalid glob %q", glob), Err: err}
		}
	}
	entries, _, err := w.List(p, true)
	if err != nil {
		return nil, false, err
	}
	for _, e := range entries {
		if e.Dir || e.Link || e.Size > MaxReadBytes {
			continue
		}
		if glob != "" {
			if ok, _ := filepath.Match(glob, filepath.Base(e.Path)); !ok {
				continue
			}
		}
		b, err := os.ReadFile(filepath.Join(w.root, filepath.FromSlash(e.Path)))
		if err != nil || bytes.IndexByte(b[:min(len(b), 8000)], 0) >= 0 {
			continue
		}
		sc := bufio.NewScanner(bytes.NewReader(b))
		sc.Buffer(make([]byte, 64<<10), MaxReadBytes)
		for n := 1; sc.Scan(); n++ {
			if !re.Match(sc.Bytes()) {
				continue
			}
			if len(matches) >= MaxMatches {
				return matches, true, nil
			}
			text := sc.Text()
			if len(text) > 300 {
				text = text[:300] + "…"
			}
			matches = append(matches, Match{Path: e.Path, Line: n, Text: strings.TrimRight(text, "\r")})
		}
	}
	return matches, false, nil
}
