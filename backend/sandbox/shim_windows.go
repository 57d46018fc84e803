package sandbox

// RunChildIfRequested does nothing on Windows: the job object applies
// without a shim, so this binary is never started as one. It exists so
// that main stays the same on every system.
func RunChildIfRequested() {}
