package judge

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/loopforge/loopforge/backend/event"
)

func TestParseForms(t *testing.T) {
	task := "instructions: add two numbers\ntests:\n  - {stdin: '1 2', expected: '3'}\n  - assert: assert add(1, 2) == 3\n    hidden: true\n"
	s, err := Parse([]byte(task))
	if err != nil || len(s.Cases) != 2 || s.Cases[1].Kind() != event.TestKindAssert || s.Hidden() != 1 {
		t.Fatalf("%+v %v", s, err)
	}
	bare, err := Parse([]byte("- {expected: '3'}\n"))
	if err != nil || len(bare.Cases) != 1 || bare.Cases[0].match() != MatchWhitespace {
		t.Fatalf("%+v %v", bare, err)
	}
	if e, err := Parse([]byte("  \n")); err != nil || !e.Empty() {
		t.Fatalf("empty: %+v %v", e, err)
	}
	// The YAML written back reads as the same suite.
	again, err := Parse([]byte(s.YAML()))
	if err != nil || len(again.Cases) != 2 || again.Cases[1].Assert != s.Cases[1].Assert || *again.Cases[0].Expected != "3" {
		t.Fatalf("round trip: %+v %v\n%s", again, err, s.YAML())
	}
	if in := s.SampleInput(); in != "1 2" {
		t.Errorf("sample input %q", in)
	}
	hiddenFirst, _ := Parse([]byte("- {stdin: secret, expected: '1', hidden: true}\n- {stdin: shown, expected: '1'}\n"))
	if in := hiddenFirst.SampleInput(); in != "shown" {
		t.Errorf("sample input %q: a hidden test's stdin", in)
	}
	if v := s.Visible(); len(v.Cases) != 1 || v.Cases[0].Hidden {
		t.Errorf("visible %+v", v)
	}
}

func TestParseRefusesWhatCannotRun(t *testing.T) {
	cases := map[string]string{
		"tests: [{stdin: '1'}]":                                  "needs expected",
		"tests: [{expect: '1'}]":                                 "expect",
		"tests: [{expected: '1', match: fuzzy}]":                 "match \"fuzzy\"",
		"tests: [{expected: '1', timeout: forever}]":             "timeout",
		"tests: [{expected: '1', tolerance: -1}]":                "negative",
		"tests: [{assert: 'assert 1', expected: '1'}]":           "takes no",
		"tests: [{expected: '1', match: exact, tolerance: 0.1}]": "match: number",
		"tests: 3":       "list",
		"name: no tests": "no `tests:`",
		"tests: [{{":     "YAML",
	}
	for y, want := range cases {
		_, err := Parse([]byte(y))
		var je *Error
		if !errors.As(err, &je) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want an *Error with %q", y, err, want)
		}
	}
	many := "tests:\n" + strings.Repeat("  - {expected: '1'}\n", MaxTests+1)
	if _, err := Parse([]byte(many)); err == nil {
		t.Error("more than MaxTests tests accepted")
	}
	s, _ := Parse([]byte("tests: [{assert: 'assert True'}]"))
	if err := s.CheckLanguage("node"); err == nil {
		t.Error("an assertion test accepted for node")
	}
	if err := s.CheckLanguage("python"); err != nil {
		t.Error(err)
	}
}

func TestRedactedDropsHiddenEvidence(t *testing.T) {
	p := event.TestsPayload{Iteration: 2, Passed: 1, Total: 2, Results: []event.TestResult{
		{Index: 1, Kind: event.TestKindIO, Verdict: event.VerdictPassed, Input: "visible-in", Expected: "visible-out", Actual: "visible-out"},
		{Index: 2, Name: "edge", Kind: event.TestKindIO, Hidden: true, Verdict: event.VerdictWrongAnswer,
			Input: "SECRET-IN", Expected: "SECRET-OUT", Actual: "SECRET-ACTUAL", Diff: "-SECRET-OUT", Detail: "SECRET-TB"},
	}}
	e := event.ForStudent(event.New(event.Tested, p))
	raw := string(e.Payload)
	if strings.Contains(raw, "SECRET") {
		t.Fatalf("a student's payload carries hidden evidence: %s", raw)
	}
	var got event.TestsPayload
	if err := json.Unmarshal(e.Payload, &got); err != nil {
		t.Fatal(err)
	}
	h := got.Results[1]
	if !h.Hidden || !h.Redacted || h.Verdict != event.VerdictWrongAnswer || h.Name != "edge" || got.Passed != 1 || got.Total != 2 {
		t.Errorf("hidden result %+v of %+v", h, got)
	}
	if got.Results[0].Input != "visible-in" || got.Results[0].Expected != "visible-out" {
		t.Errorf("a visible test lost its evidence: %+v", got.Results[0])
	}
	other := event.New(event.Log, event.LogPayload{Message: "x"})
	if string(event.ForStudent(other).Payload) != string(other.Payload) {
		t.Error("another event was changed")
	}
}
