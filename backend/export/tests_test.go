package export

import (
	"bytes"
	"strings"
	"testing"

	"github.com/loopforge/loopforge/backend/event"
)

// withTests gives the Claude run of the fixture two tests: its first
// program fails both (one hidden), its second passes them.
func withTests(b *Bundle) *Bundle {
	for i := range b.Runs {
		if b.Runs[i].ID == "run-claude" {
			b.Runs[i].TestsPassed, b.Runs[i].TestsTotal = 2, 2
		}
	}
	b.Events["run-claude"] = append(b.Events["run-claude"],
		ev(event.Tested, "run-claude", 900, 5000, event.TestsPayload{Iteration: 1, Passed: 0, Total: 2, Results: []event.TestResult{
			{Index: 1, Name: "média", Kind: event.TestKindIO, Verdict: event.VerdictWrongAnswer, Expected: "2.0", Actual: "2",
				Diff: "--- expected\n+++ actual\n@@ -1 +1 @@\n-2.0\n+2\n"},
			{Index: 2, Name: "vazia", Kind: event.TestKindIO, Hidden: true, Redacted: true, Verdict: event.VerdictRuntimeError},
		}}),
		ev(event.Tested, "run-claude", 901, 9000, event.TestsPayload{Iteration: 2, Passed: 2, Total: 2, Results: []event.TestResult{
			{Index: 1, Kind: event.TestKindIO, Verdict: event.VerdictPassed}, {Index: 2, Hidden: true, Verdict: event.VerdictPassed},
		}}))
	return b
}

func TestHandoutShowsTests(t *testing.T) {
	b := withTests(fixture())
	_, md := render(t, b, FormatMarkdown, "")
	for _, want := range []string{"2/2 tests passed", "**Tests:** 0/2 tests passed ✗✗", "- Test 1 (média): wrong answer",
		"-2.0\n+2", "- Test 2 (vazia): runtime error — a hidden test", "**Tests:** 2/2 tests passed ✓✓"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("markdown lacks %q", want)
		}
	}
	_, page := render(t, b, FormatHTML, "")
	checkBalanced(t, page)
	for _, want := range []string{`<span class="test-row">✗✗</span>`, "✗ Test 2 (vazia): runtime error — a hidden test", "· 2/2 tests passed</p>"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("html lacks %q", want)
		}
	}
	_, pt, err := RenderLocale(b, FormatMarkdown, "", Locale{Lang: Portuguese})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(pt), "**Testes:** 0/2 testes passaram ✗✗") || !strings.Contains(string(pt), "Teste 2 (vazia): erro de execução — um teste oculto") {
		t.Errorf("portuguese markdown:\n%s", pt)
	}
	_, nb := render(t, b, FormatNotebook, "run-claude")
	if !strings.Contains(string(nb), "**Tests:** 2/2 tests passed") {
		t.Errorf("the notebook lacks the tests")
	}
	// Without tests nothing changes.
	_, plain := render(t, fixture(), FormatMarkdown, "")
	if strings.Contains(string(plain), "tests passed") {
		t.Error("a run without tests shows tests")
	}
}

// The JSON export carries a run's tests and counts to loopforge import.
func TestJSONKeepsTests(t *testing.T) {
	b := withTests(fixture())
	for i := range b.Runs {
		if b.Runs[i].ID == "run-claude" {
			b.Runs[i].Tests = "tests:\n    - expected: \"2.0\"\n"
		}
	}
	_, data := render(t, b, FormatJSON, "")
	back, err := ReadBundle(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range back.Runs {
		if r.ID == "run-claude" && (r.Tests == "" || r.TestsPassed != 2 || r.TestsTotal != 2) {
			t.Errorf("run after the round trip: %+v", r)
		}
	}
	if back.tests("run-claude", 1) == nil {
		t.Error("the tested events did not come back")
	}
}
