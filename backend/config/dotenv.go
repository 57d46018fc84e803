package config

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"regexp"

	"github.com/joho/godotenv"
)

// readDotenv reads a .env file; a missing file is no error. The values are
// API keys, so a malformed file is reported by checkDotenv (file, line,
// variable name) and godotenv's own error text, which quotes the rest of the
// file, is never shown.
func readDotenv(path string) (map[string]string, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, &Error{File: path, Msg: "cannot read .env", Err: err}
	}
	if err := checkDotenv(path, data); err != nil {
		return nil, err
	}
	m, err := godotenv.UnmarshalBytes(data)
	if err != nil { // checkDotenv missed a case: say so without the text
		return nil, &Error{File: path, Msg: "a line does not read as NAME=value"}
	}
	return m, nil
}

var (
	// dotenvKey is a statement's start as godotenv reads it: an optional
	// "export ", a name, then = or : (spaces allowed around them).
	dotenvKey = regexp.MustCompile(`^(?:export[ \t]+)?([A-Za-z0-9_.]+)[ \t]*[=:][ \t]*`)
	// upperEnvName is a conventional (upper-case) variable name. On a line that is not
	// NAME=value only such a first word is shown: anything else there may
	// be a pasted key (sk-…, AIza…).
	upperEnvName = regexp.MustCompile(`^[A-Z_][A-Z0-9_]*$`)
	// firstWord is a line's first word, a candidate for upperEnvName.
	firstWord = regexp.MustCompile(`^(?:export[ \t]+)?([^\s=:]+)`)
)

// checkDotenv walks the statements of a .env file as godotenv's parser does
// (a value in quotes may span lines and ends at the first unescaped closing
// quote; any other value ends at the line's end) and returns an *Error for
// the first one it would refuse. It is hand-written because godotenv
// reports neither a line number nor an error free of the value.
func checkDotenv(path string, src []byte) error {
	src = bytes.ReplaceAll(src, []byte("\r\n"), []byte("\n"))
	line := func(pos int) int { return 1 + bytes.Count(src[:pos], []byte("\n")) }
	pos := 0
	for {
		pos = nextStatement(src, pos)
		if pos == len(src) {
			return nil
		}
		m := dotenvKey.FindSubmatchIndex(src[pos:])
		if m == nil {
			return &Error{File: path, Line: line(pos), Msg: notAssignment(src[pos:])}
		}
		name := string(src[pos+m[2] : pos+m[3]])
		start := pos
		pos += m[1]
		if pos == len(src) || (src[pos] != '"' && src[pos] != '\'') {
			pos = lineEnd(src, pos)
			continue
		}
		end := closingQuote(src, pos)
		if end < 0 {
			return &Error{File: path, Line: line(start), Msg: fmt.Sprintf("the value of %s has no closing quote", name)}
		}
		pos = end + 1
	}
}

// nextStatement skips blanks and comment lines from pos.
func nextStatement(src []byte, pos int) int {
	for pos < len(src) {
		switch src[pos] {
		case ' ', '\t', '\n', '\r', '\v', '\f':
			pos++
		case '#':
			pos = lineEnd(src, pos)
		default:
			return pos
		}
	}
	return pos
}

func lineEnd(src []byte, pos int) int {
	if i := bytes.IndexByte(src[pos:], '\n'); i >= 0 {
		return pos + i
	}
	return len(src)
}

// closingQuote returns the index of the quote closing the one at open
// (a quote after a backslash does not close), or -1.
func closingQuote(src []byte, open int) int {
	for i := open + 1; i < len(src); i++ {
		if src[i] == src[open] && src[i-1] != '\\' {
			return i
		}
	}
	return -1
}

// notAssignment words the error for a line that is not NAME=value, naming
// its first word only when that is a conventional variable name.
func notAssignment(rest []byte) string {
	const form = "expected NAME=value"
	if m := firstWord.FindSubmatch(rest[:lineEnd(rest, 0)]); m != nil && upperEnvName.Match(m[1]) {
		return fmt.Sprintf("%s has no = (%s; the value is not shown)", m[1], form)
	}
	return fmt.Sprintf("this line is not a variable assignment (%s; the line is not shown)", form)
}
