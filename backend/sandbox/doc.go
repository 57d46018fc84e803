// Package sandbox executes untrusted, AI-generated code and reports what
// happened in terms the reflect step can use, together with the isolation
// that applied.
//
// Contract (every level):
//
//   - The code goes to the interpreter on stdin (python3 -I -, sh -s,
//     node -) and stdin ends after it, so input() sees EOF instead of
//     hanging. When the request has [Request.Stdin] or [Request.Dir], the
//     code is instead a file in the private run dir (never in Dir), and
//     stdin is Request.Stdin followed by EOF.
//   - Every run gets a fresh 0700 temp directory as HOME and TMPDIR (and
//     cwd), removed before Run returns. The environment is rebuilt from an
//     allow-list; nothing (API keys in particular) is inherited from the app.
//   - [Request.Dir] (workspace mode: validation commands, a model's
//     run_command) makes an existing project directory the cwd and a
//     second writable place, recursively; everything written there stays.
//     It is validated first (absolute, existing, a directory, symlinks
//     resolved; never /, a system directory, the home directory or an
//     ancestor of it, nor, without bubblewrap to keep it read-only, one that
//     holds the shim binary): a refused one is a [*DirError] and nothing
//     starts.
//     Everything else is as in script mode: HOME and TMPDIR stay private,
//     the rest of the user's files stay hidden, the limits and the kill
//     apply.
//   - The interpreter runs in its own session and process group, behind a
//     re-exec shim: "<self> __sbx_child" (the app binary, or the small
//     loopforge-shim next to it) applies the layers below and then execs the
//     interpreter. Binaries that host a Runner must therefore call
//     [RunChildIfRequested] first thing in main (and TestMain).
//   - Everything the run started is SIGKILLed on timeout, on cancellation,
//     when a stream passes its hard output cap, and as soon as the leader
//     exits; Run returns only when it is all dead, reads the output pipes to
//     the end without waiting on a writer that escaped, and never blocks on
//     the code.
//   - [Request.Images] (script mode) keeps the run's pictures: matplotlib
//     draws without a display through a read-only start-up hook on the
//     code's PYTHONPATH (python then runs with -s instead of -I), its
//     figures are saved into the run dir on plt.show() and at exit, and the
//     run dir's PNG, JPEG, GIF and SVG files come back in [Result.Images],
//     checked by their bytes and bounded in number and size (pictures.go).
//   - [Runner.Prepare] starts all of this before the code exists (a warm
//     run): the interpreter waits for its program on a pipe of its own
//     (fd 4, never stdin), read through a file in a private read-only
//     directory beside the run dir; [Prepared.Run] hands the code over and
//     the timeout, the caller's context and the live output start there.
//     The same limits, layers, kill, output caps, pictures and clean-up
//     apply (warm.go); a prepared sandbox closed unused, or one that died
//     before its code came, is torn down the same way and counted
//     ([Runner.WarmStats]).
//   - [Options.Zygote] (off by default; ZygoteAsked: the requests with
//     [Request.Forked], a class's) forks script-mode Python runs
//     from one pre-started interpreter per Runner, itself in a sandbox
//     with every layer, instead of starting bubblewrap, the shim and the
//     interpreter for each: before its code, each fork leaves the
//     zygote's user, PID and IPC namespaces, joins its own cgroup and
//     applies its own Landlock domain, seccomp filter and rlimits. The
//     contract above holds; what is weaker than a fresh sandbox (no
//     writable /tmp or /dev/shm, no mount or network namespace of its
//     own, the zygote's imported modules and hash seed) is reviewed in
//     zygote_linux.go. Requests it does not take, hosts without
//     bubblewrap, seccomp or Landlock ABI 6, and any zygote failure
//     before the code starts run fresh.
//   - Run returns an error only when the sandbox itself failed (bad request,
//     temp dir, shim, bwrap or interpreter could not start); everything the
//     code did, including being killed, is a [Result] with a [Status].
//
// Layers, probed once per process ([Probe]; with [Options.CacheDir], the
// kernel and bwrap part once per boot and binary: [ProbeCached]) and applied
// when available, the strongest first; [Options.Isolation] can cap the level:
//
//   - rlimits (always): CPU, file size, open files, no core dumps; per-process
//     memory as RLIMIT_AS for Python and RLIMIT_DATA for Node.js (V8 reserves
//     address space, so RLIMIT_AS breaks it); RLIMIT_NPROC only where it
//     counts the run's processes alone (a non-root user in bwrap's user
//     namespace).
//   - seccomp (basic level and up): a small BPF filter refusing internet,
//     raw and packet sockets (and, outside a namespace, Unix sockets to the
//     host's D-Bus, X11 or docker), io_uring, ptrace and process_vm_*, the
//     key-ring calls, mounts, new namespaces, module loading, clock setting,
//     TIOCSTI, and set-user-ID/set-group-ID mode bits (chmod, open, mknod;
//     openat2 answers ENOSYS), which would outlive the run in a project dir.
//   - Landlock (level "landlock"): read-only /usr, the merged-/usr dirs and
//     /etc without its credential files; read-write the run dir (and
//     Request.Dir) only; no TCP;
//     no signals or ptrace to processes outside the sandbox. Only the
//     process's own /proc entries: Landlock alone leaves other processes'
//     /proc/<pid>/environ readable.
//   - bubblewrap (level "namespace"): own user, PID, network, IPC and mount
//     namespaces; only /usr, /etc (credential files masked), the interpreter,
//     the shim, the run dir and Request.Dir (read-write, at its own path)
//     are visible, never / or the rest of $HOME; size-capped
//     private /tmp and /dev/shm; --die-with-parent, --new-session, no
//     capabilities. Killing bwrap kills the whole PID namespace. Landlock and
//     seccomp still apply inside. The probe starts a test sandbox; where
//     bwrap is installed but cannot build it, the probe classifies why
//     ([NamespaceBlock], from bwrap's message and the user namespace
//     sysctls): AppArmor's restriction of unprivileged user namespaces
//     (kernel.apparmor_restrict_unprivileged_userns = 1, the default on
//     Ubuntu 24.04 and later: "setting up uid map: Permission denied",
//     "loopback: Failed RTM_NEWADDR"), user namespaces turned off
//     (user.max_user_namespaces = 0, Debian's unprivileged_userns_clone =
//     0), or refused otherwise (a container). Runs then get the strongest
//     level that works (landlock, else basic, +cgroup as found), and never
//     silently: each run's Notes and Warnings say why (no_namespace), and
//     [Doctor] says so with the fix (an AppArmor profile that lets bwrap
//     alone create user namespaces, or the sysctl and what it costs).
//   - cgroup ("+cgroup"): one cgroup per run beneath the app's own, with a
//     complete kill (cgroup.kill) and the pids, memory and CPU limits whose
//     controllers the host gives it. cgroup v2 where the app's cgroup is
//     writable (children are born inside it with CLONE_INTO_CGROUP); v1
//     hierarchies when running as root on hybrid hosts (the shim joins them
//     before exec). The probe starts a test child inside a new cgroup:
//     where the kernel kills it at birth (Linux 6.18 does once the app's
//     own cgroup has had cgroup.kill written) or cannot start it there, the
//     shim joins the run's v2 cgroup too, through cgroup.procs, before it
//     restricts itself and execs; a run killed at birth after the probe
//     switches the Runner to joining and runs again (its code never
//     started). Either way the code never runs outside its cgroup, [Doctor]
//     reports it and each run notes it (cgroup_joined). A v2 parent that does not delegate the controllers (an
//     app started outside its own delegated scope) gives the kill alone:
//     the run's Protections then have no memory (nor processes) tick and
//     its Warnings name the missing controllers. Cgroups the code makes
//     inside its own (root at the basic level, or the owner of a delegated
//     subtree) are killed and removed with it.
//
// [Result.Isolation], [Result.Protections] (files, network, processes,
// memory, signals), [Result.Layers] and [Result.Warnings] record what applied
// to each run; [Doctor] explains the host and how to get more.
//
// Known gaps, by level (asserted by the hostile suite, hostile_test.go):
//
//   - every level: Request.Dir is writable whole, .git included (hooks,
//     config): the app must not run the project's git hooks or honour its
//     repository config unsandboxed after such a run without review.
//   - without seccomp (hosts or architectures without it): the code can
//     leave set-user-ID programs in Request.Dir.
//   - basic: the code can read and write the user's files and read other
//     processes' /proc entries, the app's environment included; it can
//     signal the app (kill its parent); a setsid() daemon survives the run
//     unless a cgroup applies; fork bombs are only bounded by a pids cgroup
//     (RLIMIT_NPROC is per user and root ignores it); memory is per process.
//   - landlock: no namespaces, so without a cgroup a setsid() daemon survives
//     and fork bombs are unbounded; UDP/DNS are refused by seccomp, not by
//     Landlock (UDP rules need a newer ABI). Landlock does not cover file
//     metadata: the code can chmod (and utime, set xattrs on) the user's
//     files outside the allowed places, though not read or write them.
//   - namespace as root without a cgroup: processes are killed completely but
//     not bounded in number (root is exempt from RLIMIT_NPROC).
//   - job (Windows) and basic on macOS: no file, network or signal isolation
//     at all (see below).
//
// Windows and macOS have none of the layers above; their Runner is the
// plain sandbox (plain.go), which keeps the contract but says plainly what
// it lacks ([Result.Notes] no_files and no_network with the OS named, and
// [Doctor]):
//
//   - Windows, level "job": the interpreter itself (no shim) in a job object
//     of the run's own, entered before its first instruction, killed whole
//     on every end of the run (and with loopforge: kill-on-close), bounding
//     live processes ([Limits.Processes]) and the whole run's committed
//     memory ([Limits.MemoryBytes]; hitting it is [StatusMemory]). The
//     program is always a file in the run dir. No "sh".
//   - macOS, level "basic": the shim (child_darwin.go) sets the CPU, file
//     size and open-file rlimits and execs the interpreter in a process group
//     of its own, killed whole. No memory limit (RLIMIT_AS is not enforced
//     there), and a setsid() daemon outlives the run (no subreaper).
//   - Both run every execution cold: Prepare fails with [ErrNoWarmStart].
//
// What the tests cover of the cgroups. CI is a hybrid host (cgroup v1
// memory, pids and cpu; a v2 hierarchy without those controllers) running
// as root, so the production path there is v1 limits plus the v2 kill, and
// the hostile suite exercises it: pids.max against a fork bomb,
// memory.limit_in_bytes across processes, the cfs quota, cgroup.kill on
// setsid daemons. The pure v2 layout of desktops is tested on a cgroup2
// mount of its own (cgroupv2_test.go, root only): runs born in their own
// cgroup beneath the app's, removed afterwards, nested cgroups too;
// cgroup.kill of setsid daemons and of a timed-out tree; the honest report
// when the controllers are missing (probe, doctor, Protections, Warnings);
// the move into a leaf cgroup that frees the controllers; an app cgroup
// that has had cgroup.kill written, where runs join their cgroup.
//
// Restricted hosts are simulated without changing this machine's settings
// (restricted_test.go): a bwrap that fails as AppArmor makes it fail, with
// sysctl files of the test's own; the real bwrap in a child user namespace
// whose user.max_user_namespaces is 0.
//
// Untested anywhere, for want of a v2 hierarchy with controllers: the pids,
// memory and cpu limits under cgroup v2 (pids.max, memory.max,
// memory.swap.max, memory.oom.group, cpu.max, and the read-back of
// memory.events oom_kill and pids.events max), and enabling them in
// cgroup.subtree_control. A controller can be bound to one hierarchy only;
// on the CI VM memory, pids and cpu are bound to v1 hierarchies that the
// machine uses (the memory one holds the VM agent's cgroups, CI's guard
// cgroup uses the pids one), and freeing them would mean unmounting those,
// which the tests must not do. To cover them, run the suite as a user on a
// pure v2 host inside a delegated scope, the test binary alone in it:
//
//	go test -c -o sandbox.test ./backend/sandbox
//	systemd-run --user --scope -p Delegate=yes -p TasksMax=4000 env LOOPFORGE_HOSTILE=1 ./sandbox.test -test.v
//
// (TestProbe logs the host; the hostile cases 08, 12 and TestHostileCPUQuota
// then assert the v2 limits.)
package sandbox
