package cliproc

import "os/exec"

// dieWithParent: macOS has no parent-death signal; the command's process
// group is killed when its context ends (procgroup), not when loopforge
// is killed.
func dieWithParent(*exec.Cmd) {}
