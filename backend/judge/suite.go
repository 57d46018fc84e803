// Package judge runs a program against an instructor's tests and says, per
// test, what teachers call the verdict: passed, wrong answer, runtime
// error, time limit or memory limit (event.Verdict).
//
// A test is either an IO test (stdin in, stdout compared with the expected
// text, exactly, with whitespace normalised, or number by number within a
// tolerance) or an assertion test (Python code run against the program
// imported as the module `solution`). Every test is its own execution in
// the sandbox, with the run's limits and its own time limit.
//
// The format, in YAML (a task file's or a preset's `tests:`, the file
// given to `--tests`, the app's Tests panel):
//
//	tests:
//	  - name: two numbers
//	    stdin: "2 3\n"
//	    expected: "5"
//	  - name: pi
//	    expected: "3.14159"
//	    match: number
//	    tolerance: 0.001
//	    hidden: true
//	  - name: stack
//	    assert: |
//	      s = Stack()
//	      s.push(1)
//	      assert s.pop() == 1
package judge

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/loopforge/loopforge/backend/event"
	"go.yaml.in/yaml/v3"
)

// Match modes of an IO test.
const (
	MatchExact      = "exact"      // the same text, apart from line endings and trailing newlines
	MatchWhitespace = "whitespace" // the same words: runs of spaces, tabs and newlines count as one
	MatchNumber     = "number"     // the same words, numbers equal within Tolerance
)

// DefaultTolerance is a number test's tolerance when it names none.
const DefaultTolerance = 1e-6

// Limits of a suite, so a suite cannot make a run unbounded.
const (
	MaxTests     = 50
	MaxTextBytes = 64 << 10  // one test's stdin, expected output or assertion code
	MaxYAMLBytes = 512 << 10 // a whole suite as YAML
	MaxTimeout   = 5 * time.Minute
)

// Case is one test, as an instructor writes it.
type Case struct {
	Name string `yaml:"name,omitempty" json:"name,omitempty"`
	// IO test: Stdin is given to the program, its stdout compared with
	// Expected by Match ("" = whitespace) within Tolerance (number).
	Stdin     string  `yaml:"stdin,omitempty" json:"stdin,omitempty"`
	Expected  *string `yaml:"expected,omitempty" json:"expected,omitempty"`
	Match     string  `yaml:"match,omitempty" json:"match,omitempty"`
	Tolerance float64 `yaml:"tolerance,omitempty" json:"tolerance,omitempty"`
	// Assert is Python code run with the program imported as `solution`
	// (and its names in scope): plain assert statements, and test_*
	// functions it defines, each called in turn.
	Assert string `yaml:"assert,omitempty" json:"assert,omitempty"`
	// Hidden: the student and the model see the verdict only, never the
	// input, expected output or traceback.
	Hidden bool `yaml:"hidden,omitempty" json:"hidden,omitempty"`
	// Timeout is this test's time limit, e.g. "2s" ("" = the run's; never
	// more than the run's).
	Timeout string `yaml:"timeout,omitempty" json:"timeout,omitempty"`
}

// Kind is what c checks.
func (c Case) Kind() event.TestKind {
	if c.Assert != "" {
		return event.TestKindAssert
	}
	return event.TestKindIO
}

// Suite is a run's tests, in order.
type Suite struct {
	Cases []Case `yaml:"tests" json:"tests"`
}

// Empty reports whether there is nothing to judge by.
func (s *Suite) Empty() bool { return s == nil || len(s.Cases) == 0 }

// Hidden is how many of the tests are hidden.
func (s *Suite) Hidden() int {
	n := 0
	if s != nil {
		for _, c := range s.Cases {
			if c.Hidden {
				n++
			}
		}
	}
	return n
}

// Error is a suite that cannot be used; Test is the 1-based test at fault
// (0: the suite as a whole).
type Error struct {
	Test int
	Msg  string
}

func (e *Error) Error() string {
	if e.Test == 0 {
		return "tests: " + e.Msg
	}
	return fmt.Sprintf("tests: test %d: %s", e.Test, e.Msg)
}

// ErrLanguage: the suite has assertion tests and the program is not Python.
var ErrLanguage = errors.New("assertion tests need a Python program")

// Parse reads a suite: a YAML document with a `tests:` list (a task file;
// its other keys are left to their owner), or a bare list of tests. An
// empty document is an empty suite.
func Parse(b []byte) (*Suite, error) {
	if len(b) > MaxYAMLBytes {
		return nil, &Error{Msg: fmt.Sprintf("the tests are %d KiB; at most %d KiB", len(b)>>10, MaxYAMLBytes>>10)}
	}
	if len(bytes.TrimSpace(b)) == 0 {
		return &Suite{}, nil
	}
	var node yaml.Node
	if err := yaml.Unmarshal(b, &node); err != nil {
		return nil, &Error{Msg: "not valid YAML: " + yamlMessage(err)}
	}
	doc := &node
	if doc.Kind == yaml.DocumentNode && len(doc.Content) == 1 {
		doc = doc.Content[0]
	}
	list := doc
	if doc.Kind == yaml.MappingNode {
		list = nil
		for i := 0; i+1 < len(doc.Content); i += 2 {
			if doc.Content[i].Value == "tests" {
				list = doc.Content[i+1]
			}
		}
		if list == nil {
			return nil, &Error{Msg: "no `tests:` list found"}
		}
	}
	var s Suite
	if err := decodeCases(list, &s.Cases); err != nil {
		return nil, err
	}
	if err := s.Check(); err != nil {
		return nil, err
	}
	return &s, nil
}

// decodeCases decodes a YAML list of tests, refusing unknown keys (a
// misspelt `expect:` would otherwise make a test that checks nothing).
func decodeCases(list *yaml.Node, cases *[]Case) error {
	if list.Kind == yaml.ScalarNode && list.Tag == "!!null" {
		return nil
	}
	if list.Kind != yaml.SequenceNode {
		return &Error{Msg: "`tests:` must be a list of tests"}
	}
	for i, item := range list.Content {
		b, err := yaml.Marshal(item)
		if err != nil {
			return &Error{Test: i + 1, Msg: err.Error()}
		}
		var c Case
		dec := yaml.NewDecoder(bytes.NewReader(b))
		dec.KnownFields(true)
		if err := dec.Decode(&c); err != nil {
			return &Error{Test: i + 1, Msg: yamlMessage(err) + " (keys: name, stdin, expected, match, tolerance, assert, hidden, timeout)"}
		}
		*cases = append(*cases, c)
	}
	return nil
}

func yamlMessage(err error) string {
	return strings.TrimPrefix(strings.TrimPrefix(err.Error(), "yaml: "), "unmarshal errors:\n  ")
}

// Check reports the first test that cannot be run as written.
func (s *Suite) Check() error {
	if len(s.Cases) > MaxTests {
		return &Error{Msg: fmt.Sprintf("%d tests; at most %d", len(s.Cases), MaxTests)}
	}
	for i, c := range s.Cases {
		if err := c.check(); err != nil {
			return &Error{Test: i + 1, Msg: err.Error()}
		}
	}
	return nil
}

func (c Case) check() error {
	switch {
	case c.Assert != "" && (c.Expected != nil || c.Stdin != "" || c.Match != ""):
		return errors.New("an assertion test (assert) takes no stdin, expected or match")
	case c.Assert == "" && c.Expected == nil:
		return errors.New("needs expected (the output to compare with) or assert (Python assertions)")
	case len(c.Stdin) > MaxTextBytes, c.Expected != nil && len(*c.Expected) > MaxTextBytes, len(c.Assert) > MaxTextBytes:
		return fmt.Errorf("a text longer than %d KiB", MaxTextBytes>>10)
	case c.Tolerance < 0:
		return errors.New("tolerance must not be negative")
	case c.Tolerance > 0 && c.Match != "" && c.Match != MatchNumber:
		return errors.New("tolerance needs match: number")
	}
	switch c.Match {
	case "", MatchExact, MatchWhitespace, MatchNumber:
	default:
		return fmt.Errorf("match %q: use exact, whitespace or number", c.Match)
	}
	if _, err := c.timeout(); err != nil {
		return err
	}
	return nil
}

// match is c's match mode with defaults: number when it names a
// tolerance, else whitespace.
func (c Case) match() string {
	switch {
	case c.Match != "":
		return c.Match
	case c.Tolerance > 0:
		return MatchNumber
	}
	return MatchWhitespace
}

// timeout is c's own time limit, 0 when it has none.
func (c Case) timeout() (time.Duration, error) {
	if c.Timeout == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(c.Timeout)
	if err != nil || d <= 0 || d > MaxTimeout {
		return 0, fmt.Errorf("timeout %q: a duration such as 2s, at most %s", c.Timeout, MaxTimeout)
	}
	return d, nil
}

// CheckLanguage refuses assertion tests for a program in another language
// than Python (fence name: "python", "sh", "javascript"…).
func (s *Suite) CheckLanguage(lang string) error {
	if s.Empty() || lang == "" || lang == "python" {
		return nil
	}
	for i, c := range s.Cases {
		if c.Assert != "" {
			return &Error{Test: i + 1, Msg: ErrLanguage.Error() + " (this run is " + lang + ")"}
		}
	}
	return nil
}

// YAML is s in the format Parse reads ("" for an empty suite).
func (s *Suite) YAML() string {
	if s.Empty() {
		return ""
	}
	b, err := yaml.Marshal(s)
	if err != nil {
		// Plain strings, numbers and booleans always marshal.
		panic(fmt.Sprintf("judge: marshal suite: %v", err))
	}
	return string(b)
}

// SampleInput is the stdin of the first visible IO test that has one: the
// input the program's own run (outside the tests) is given when the run
// has none. Never a hidden test's.
func (s *Suite) SampleInput() string {
	if s == nil {
		return ""
	}
	for _, c := range s.Cases {
		if !c.Hidden && c.Assert == "" && c.Stdin != "" {
			return c.Stdin
		}
	}
	return ""
}

// Visible is s without its hidden tests: what a student may be shown.
func (s *Suite) Visible() *Suite {
	out := &Suite{}
	if s != nil {
		for _, c := range s.Cases {
			if !c.Hidden {
				out.Cases = append(out.Cases, c)
			}
		}
	}
	return out
}
