// Package procgroup runs a child in a process group of its own and stops
// it (Start), and captures its output in a capped buffer (HeadTail). The
// sandbox, the coding CLI providers and the workspace's commands all run
// their children through it, so that nothing a child started outlives it.
//
// What "group" means depends on the OS, behind one API:
//
//   - Linux: a new session, so the group id is the leader's pid; the
//     primitives wait for, kill and inspect it through /proc, and
//     Options.Reap adds a child subreaper that catches what leaves the
//     group (reaper.go).
//   - macOS: the same session and group, inspected through sysctl; there is
//     no subreaper, so a process that calls setsid() leaves the group and
//     survives it (group_darwin.go).
//   - Windows: a job object that kills everything in it when closed; the
//     command is put in it before its first instruction runs, and nothing
//     it starts can leave it (group_windows.go).
package procgroup
