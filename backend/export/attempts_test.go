package export

import (
	"bytes"
	"encoding/csv"
	"testing"
	"time"
)

// TestAttemptsCSVFields: commas, quotes, line breaks and accents survive a
// round trip through encoding/csv; a run with no iteration has blank
// iteration cells; unknown times are blank, not 0.
func TestAttemptsCSVFields(t *testing.T) {
	started := time.Date(2026, 11, 27, 13, 0, 0, 0, time.UTC)
	rows := []AttemptRow{
		{Student: `Zé "Z", da Silva`, Assignment: "Exercício 1, parte 2", RunID: "r1", Started: started, RunStatus: "limit_reached",
			Iteration: 1, Status: "error", ErrorKind: "timeout", Error: `took "too" long`, TokensIn: 12, TokensOut: 3, DurationMS: 1250},
		{Student: "Ana", RunID: "r2", Started: started, RunStatus: "error", ErrorKind: "provider.auth", Error: "key refused"},
	}
	got, err := csv.NewReader(bytes.NewReader(AttemptsCSV(Locale{Lang: English}, rows))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{
		{"student", "assignment", "run id", "started", "run status", "iteration", "iteration status", "error kind", "error",
			"tokens in", "tokens out", "seconds", "seconds to a working program"},
		{`Zé "Z", da Silva`, "Exercício 1, parte 2", "r1", "2026-11-27T13:00:00Z", "limit reached", "1", "error", "timeout", `took "too" long`, "12", "3", "1.2", ""},
		{"Ana", "", "r2", "2026-11-27T13:00:00Z", "error", "", "", "provider.auth", "key refused", "0", "0", "", ""},
	}
	if len(got) != len(want) {
		t.Fatalf("%d records, want %d: %q", len(got), len(want), got)
	}
	for i := range want {
		if len(got[i]) != len(want[i]) {
			t.Fatalf("record %d: %q", i, got[i])
		}
		for j := range want[i] {
			if got[i][j] != want[i][j] {
				t.Errorf("record %d field %d: %q, want %q", i, j, got[i][j], want[i][j])
			}
		}
	}
}
