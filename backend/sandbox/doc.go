// Package sandbox executes untrusted, AI-generated code and reports what
// happened in terms the reflect step can use.
//
// Contract:
//
//   - The code goes to the interpreter on stdin (python3 -I -, sh -s); it is
//     never written to a file. Stdin is closed after the code, so input() sees
//     EOF instead of hanging.
//   - Every run gets a fresh 0700 temp directory as cwd, HOME and TMPDIR,
//     removed before Run returns. The environment is rebuilt from an
//     allow-list; nothing (API keys in particular) is inherited from the app.
//   - The interpreter runs in its own session and process group, behind a
//     re-exec shim: the app binary started as "<self> __sbx_child" applies the
//     rlimits and then execs the interpreter. Binaries that host a Runner must
//     therefore call [RunChildIfRequested] first thing in main (and TestMain).
//   - The whole process group is SIGKILLed on timeout, on cancellation, when a
//     stream passes its hard output cap, and as soon as the leader exits (so a
//     forgotten background child cannot outlive the run); Run sweeps the group
//     again before it returns and never waits on the code's pipes for more
//     than a short grace period.
//   - Run returns an error only when the sandbox itself failed (bad request,
//     temp dir, shim or interpreter could not start); everything the code did,
//     including being killed, is a [Result] with a [Status].
//
// Isolation levels are layered: this package currently implements "basic"
// (the list above). Stronger layers (Landlock, namespaces, cgroups) plug in
// where the parent builds the command and where the shim restricts itself
// before exec; [Result.Isolation] records which level applied.
//
// Known gaps of the basic level: a process that calls setsid() leaves the
// group and survives the kill; RLIMIT_NPROC is not used (it is per user and
// ignored for root), so fork bombs are not contained; the code can signal the
// app (same uid); RLIMIT_AS is applied to Python only; no network or
// filesystem isolation.
package sandbox
