package gitops

import "os/exec"

// killGroupOnCancel: Windows has no process groups to signal; os/exec's
// own cancellation kills git itself, and WaitDelay bounds the wait for a
// helper that still holds its output.
func killGroupOnCancel(*exec.Cmd) {}
