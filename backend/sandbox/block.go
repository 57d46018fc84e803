package sandbox

// Shared by every OS: the run notes' words (words.go) name these reasons,
// though only Linux's probe finds them.

// NamespaceBlock says why the namespace level is not available: what keeps
// bubblewrap (or the namespaces it needs) from working on this host.
type NamespaceBlock string

const (
	// BlockAppArmor: AppArmor restricts unprivileged user namespaces
	// (kernel.apparmor_restrict_unprivileged_userns = 1, the default on
	// Ubuntu 24.04 and later) and bwrap has no profile that allows them.
	BlockAppArmor NamespaceBlock = "apparmor"
	// BlockUserNSDisabled: a sysctl turns unprivileged user namespaces off
	// (user.max_user_namespaces = 0, or kernel.unprivileged_userns_clone =
	// 0 on Debian kernels).
	BlockUserNSDisabled NamespaceBlock = "userns_disabled"
	// BlockUserNSRefused: the kernel refused a user namespace for another
	// reason (a container's seccomp profile, a nested namespace's limits).
	BlockUserNSRefused NamespaceBlock = "userns_refused"
	// BlockBwrapMissing: bubblewrap is not installed.
	BlockBwrapMissing NamespaceBlock = "bwrap_missing"
	// BlockBwrapSetuid: bwrap is setuid root, which loopforge does not use.
	BlockBwrapSetuid NamespaceBlock = "bwrap_setuid"
	// BlockBwrapFailed: bwrap failed for another reason (its message is in
	// Host.BwrapError).
	BlockBwrapFailed NamespaceBlock = "bwrap_failed"
	// BlockNamespacesFailed: the namespace probe failed for another reason
	// (Host.NamespacesError).
	BlockNamespacesFailed NamespaceBlock = "namespaces_failed"
)
