package judge

import (
	"math"
	"strconv"
	"strings"

	"github.com/pmezard/go-difflib/difflib"
)

// matches reports whether a program's output answers the expected text
// under mode.
func matches(mode string, tolerance float64, expected, actual string) bool {
	switch mode {
	case MatchExact:
		return normalise(expected) == normalise(actual)
	case MatchNumber:
		return sameNumbers(strings.Fields(expected), strings.Fields(actual), tolerance)
	}
	return slicesEqual(strings.Fields(expected), strings.Fields(actual))
}

// normalise is text as an exact comparison sees it: a Windows line ending
// is a newline, and the newlines that end the text do not count (print()
// adds one; a YAML block may add another or none).
func normalise(s string) string {
	return strings.TrimRight(strings.ReplaceAll(s, "\r\n", "\n"), "\n")
}

func slicesEqual(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// sameNumbers compares word by word: two numbers are equal when they
// differ by at most tol, absolutely or relative to the expected one; any
// other word must be the same.
func sameNumbers(want, got []string, tol float64) bool {
	if tol <= 0 {
		tol = DefaultTolerance
	}
	if len(want) != len(got) {
		return false
	}
	for i := range want {
		w, errW := strconv.ParseFloat(want[i], 64)
		g, errG := strconv.ParseFloat(got[i], 64)
		if errW != nil || errG != nil {
			if want[i] != got[i] {
				return false
			}
			continue
		}
		if d := math.Abs(w - g); !(d <= tol || d <= tol*math.Abs(w)) {
			return false
		}
	}
	return true
}

// diff is a unified diff from the expected output to the actual one, for
// a wrong answer. go-difflib is the line diff testify uses: a diff
// algorithm is not worth writing again.
func diff(expected, actual string) string {
	d, err := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{
		A: difflib.SplitLines(normalise(expected) + "\n"), B: difflib.SplitLines(normalise(actual) + "\n"),
		FromFile: "expected", ToFile: "actual", Context: 2,
	})
	if err != nil {
		return ""
	}
	return d
}
