// Package cliproc runs a coding CLI (codex, claude, gemini) as a subprocess
// and turns its JSON Lines output into a provider stream. The adapters in
// codexcli, claudecli and geminicli embed a Base, build the command line and
// parse their CLI's events; everything else is here: the profile's settings,
// finding the executable, the environment, the working directory, the
// prompt, the process group (see procgroup), the result and its errors.
//
// Contract of Run (it implements provider.Provider's stream contract):
//
//   - The CLI starts under a reaper of its own (procgroup.Start with
//     Options.Reap) in a new session, hence its own process group, with
//     stdin from /dev/null (or the prompt, when it is too long for argv).
//   - Its stdout is read line by line (lines up to MaxLine). Each JSON line is
//     kept in Response.RawEvents and handed to the Parser, which reports text,
//     tool calls, usage and the CLI's final verdict to a *Result. Text is
//     yielded as soon as the line that carried it has been parsed.
//   - Success is decided by the CLI's final event, never by its exit code.
//   - Cancelling ctx, the call's timeout, breaking out of the loop, or a fatal
//     event (a rejected key, which the CLI would only retry) stops the whole
//     group: SIGTERM, then, after Grace, SIGKILL to everything the CLI
//     started, also what left the group with setsid (the reaper is a child
//     subreaper: orphans of the CLI's tree become its children). When the
//     CLI exits on its own, whatever it left running is killed too, and if
//     loopforge dies the reaper kills it all. Run returns only after all of
//     it is gone (zombies count as gone) and the reaper reaped.
//   - Every outcome but success is a *provider.PartialError carrying what
//     arrived; see Run for the status and cause of each case.
//
// Nothing here keeps global state; each Run is independent.
package cliproc
