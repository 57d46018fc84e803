package cli

import "testing"

func TestShortSeconds(t *testing.T) {
	for sec, want := range map[float64]string{0: "-", 45: "45s", 30: "30s", 60: "1m", 90: "1m30s", 120: "2m", 600: "10m", 3600: "1h", 5400: "1h30m", 3601: "1h0m1s"} {
		if got := shortSeconds(sec); got != want {
			t.Errorf("shortSeconds(%v) = %q, want %q", sec, got, want)
		}
	}
}
