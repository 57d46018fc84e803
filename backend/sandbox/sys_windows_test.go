package sandbox

// xcpuSignal: Windows has no RLIMIT_CPU nor its signal.
const xcpuSignal = ""
