package service

import (
	"runtime/debug"
	"testing"
)

func TestFormatVersion(t *testing.T) {
	for _, c := range []struct{ version, commit, date, want string }{
		{"0.1.0", "52bb02b", "2026-11-27", "0.1.0 (commit 52bb02b, 2026-11-27)"},
		{"0.1.0+52bb02b", "52bb02b", "", "0.1.0+52bb02b (commit 52bb02b)"},
		{"0.1.0", "", "", "0.1.0 (development build)"},
	} {
		if got := formatVersion(c.version, c.commit, c.date); got != c.want {
			t.Errorf("formatVersion(%q, %q, %q) = %q, want %q", c.version, c.commit, c.date, got, c.want)
		}
	}
}

func TestStampFromSettings(t *testing.T) {
	full := "52bb02bd0c4f1e6b7a8e0d3c2b1a09f8e7d6c5b4"
	for _, c := range []struct {
		name         string
		settings     []debug.BuildSetting
		commit, date string
	}{
		{"clean", []debug.BuildSetting{{Key: "vcs.revision", Value: full}, {Key: "vcs.time", Value: "2026-11-27T23:30:00-03:00"}, {Key: "vcs.modified", Value: "false"}},
			"52bb02b", "2026-11-28"}, // the date is the commit's, in UTC
		{"dirty", []debug.BuildSetting{{Key: "vcs.revision", Value: full}, {Key: "vcs.modified", Value: "true"}}, "52bb02b-dirty", ""},
		{"no vcs", []debug.BuildSetting{{Key: "GOOS", Value: "linux"}}, "", ""},
	} {
		commit, date := stampFromSettings(c.settings)
		if commit != c.commit || date != c.date {
			t.Errorf("%s: stampFromSettings = %q, %q; want %q, %q", c.name, commit, date, c.commit, c.date)
		}
	}
}

// A stamped build prints what the stamp says, not what Go recorded.
func TestVersionLineUsesTheStamp(t *testing.T) {
	saved := [3]string{Version, Commit, Date}
	t.Cleanup(func() { Version, Commit, Date = saved[0], saved[1], saved[2] })
	Version, Commit, Date = "1.2.3", "abcdef1", "2026-01-02"
	if got, want := VersionLine(), "1.2.3 (commit abcdef1, 2026-01-02)"; got != want {
		t.Errorf("VersionLine() = %q, want %q", got, want)
	}
}
