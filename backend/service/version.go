package service

import (
	"fmt"
	"runtime/debug"
	"time"
)

// Version, Commit and Date identify this build. They are variables so that
// the builds can stamp them with -ldflags -X (scripts/env.sh version_ldflags:
// `make build` and `make release`): Version from `git describe --tags` (else
// this default plus the short commit), Commit the short commit, Date the
// commit's date (never the build's), so two builds of one commit are
// byte-identical. Version is what /api/health reports.
var (
	Version = "0.1.0"
	Commit  = ""
	Date    = "" // YYYY-MM-DD, UTC
)

// VersionLine is what `loopforge --version` prints after "loopforge version":
// "0.1.0 (commit 52bb02b, 2026-11-27)". A build that was not stamped (go run,
// go build, go test) falls back to the commit Go recorded itself, if any.
func VersionLine() string {
	commit, date := Commit, Date
	if commit == "" {
		commit, date = vcsStamp()
	}
	return formatVersion(Version, commit, date)
}

func formatVersion(version, commit, date string) string {
	switch {
	case commit != "" && date != "":
		return fmt.Sprintf("%s (commit %s, %s)", version, commit, date)
	case commit != "":
		return fmt.Sprintf("%s (commit %s)", version, commit)
	}
	return version + " (development build)"
}

// vcsStamp reads the commit and its date from what `go build` records
// (-buildvcs, on by default in a git checkout): the short commit, "-dirty"
// after it when the tree had changes, and the date as YYYY-MM-DD.
func vcsStamp() (commit, date string) {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "", ""
	}
	return stampFromSettings(info.Settings)
}

func stampFromSettings(settings []debug.BuildSetting) (commit, date string) {
	dirty := false
	for _, s := range settings {
		switch s.Key {
		case "vcs.revision":
			commit = s.Value[:min(len(s.Value), 7)]
		case "vcs.time":
			if t, err := time.Parse(time.RFC3339, s.Value); err == nil {
				date = t.UTC().Format(time.DateOnly)
			}
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if commit != "" && dirty {
		commit += "-dirty"
	}
	return commit, date
}
