package sandbox

// imageOpenFlags: nothing to add on Windows, where the code can read the
// user's files anyway (no file isolation) and there are no FIFOs.
const imageOpenFlags = 0

// cpuLimitSignal: Windows has no signals, nor an RLIMIT_CPU.
func cpuLimitSignal(string) bool { return false }
