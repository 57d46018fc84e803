package sandbox

// NetworkIsolated reports whether this Runner keeps a run without
// AllowNetwork off the network (bubblewrap's network namespace, or the
// seccomp filter), as its runs' Protections.Network says.
func (r *Runner) NetworkIsolated() bool { return r.bwrap != nil || r.seccomp }
