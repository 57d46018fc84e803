package event

import (
	"encoding/json"
	"testing"
	"time"
)

func TestEnvelopeRoundTrip(t *testing.T) {
	e := New(Token, TokenPayload{Iteration: 2, Phase: PhaseReflect, Text: "why"})
	e.RunID, e.Seq, e.TS = "r1", 7, time.Date(2026, 11, 21, 6, 0, 0, 5, time.UTC)
	b, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	var wire map[string]any
	_ = json.Unmarshal(b, &wire)
	for _, k := range []string{"type", "run_id", "seq", "ts", "payload"} {
		if _, ok := wire[k]; !ok {
			t.Fatalf("envelope lacks %q: %s", k, b)
		}
	}
	var back Event
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	var p TokenPayload
	if err := back.Decode(&p); err != nil || p.Text != "why" || p.Phase != PhaseReflect || p.Iteration != 2 {
		t.Fatalf("%+v %v", p, err)
	}
	if !back.TS.Equal(e.TS) || back.Seq != 7 || back.Terminal() {
		t.Fatalf("%+v", back)
	}
	if !New(RunFinished, RunFinishedPayload{}).Terminal() {
		t.Fatal("run_finished must be terminal")
	}
	var wrong RunFinishedPayload
	if err := (Event{Type: Token, Payload: []byte("[1]")}).Decode(&wrong); err == nil {
		t.Fatal("decoding a mismatched payload should fail")
	}
}
