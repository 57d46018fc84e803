//go:build linux && (amd64 || arm64)

package sandbox

// The seccomp filter is a handful of rules, so it is written here with
// golang.org/x/net/bpf (already in the module graph) instead of pulling in a
// seccomp library or libseccomp (cgo). It is applied by the shim to its own
// locked thread, right before exec, like Landlock.

import (
	"fmt"
	"unsafe"

	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

const seccompSupported = true

// seccompSpec is what the parent asks the shim to filter.
type seccompSpec struct {
	// Sockets lists the address families socket(2) may create; every
	// other family gets EACCES. nil means no socket rule at all (bwrap with
	// the network allowed); empty refuses every socket, AF_UNIX included, so
	// code outside a namespace cannot reach the host's D-Bus, X11 or docker
	// sockets. socketpair(2) stays allowed.
	Sockets []uint32 `json:"sockets"`
	// AppPid and AppPgid protect the app when no PID namespace or Landlock
	// scope does: kill(2) and friends may not target the app's process or
	// group, nor every process at once (kill(-1)); tkill and
	// pidfd_send_signal (which also takes a /proc/<pid> fd) are refused.
	AppPid  int32 `json:"app_pid,omitempty"`
	AppPgid int32 `json:"app_pgid,omitempty"`
	// Namespaces lets unshare(2) and clone(2) make new namespaces: the
	// zygote's own filter alone, whose children must leave its namespaces
	// before they apply the full filter (zygote_linux.go). Never the code's.
	Namespaces bool `json:"ns,omitempty"`
}

const (
	seccompRetAllow       = 0x7fff0000
	seccompRetErrno       = 0x00050000
	seccompRetKillProcess = 0x80000000

	// Offsets in struct seccomp_data (little-endian: the low half of an
	// argument comes first).
	seccompOffNr   = 0
	seccompOffArch = 4
	seccompOffArg0 = 16
	seccompOffArg1 = 24

	// cloneNSFlags are the namespace flags clone(2) accepts.
	cloneNSFlags = unix.CLONE_NEWNS | unix.CLONE_NEWCGROUP | unix.CLONE_NEWUTS | unix.CLONE_NEWIPC |
		unix.CLONE_NEWUSER | unix.CLONE_NEWPID | unix.CLONE_NEWNET
)

// seccompDenied are refused with EPERM whatever the request. The code never
// needs them, and several are dangerous when the app (and so the code) runs
// as root without a namespace: io_uring can open sockets without socket(2);
// ptrace and process_vm_* read other processes of the same user (the app!);
// the keyctl family reaches the session keyring the app shares; the rest
// administer the machine or widen the kernel's attack surface.
var seccompDenied = []uint32{
	unix.SYS_IO_URING_SETUP, unix.SYS_IO_URING_ENTER, unix.SYS_IO_URING_REGISTER,
	unix.SYS_PTRACE, unix.SYS_PROCESS_VM_READV, unix.SYS_PROCESS_VM_WRITEV,
	unix.SYS_KEYCTL, unix.SYS_ADD_KEY, unix.SYS_REQUEST_KEY,
	unix.SYS_BPF, unix.SYS_PERF_EVENT_OPEN, unix.SYS_USERFAULTFD,
	unix.SYS_MOUNT, unix.SYS_UMOUNT2, unix.SYS_PIVOT_ROOT, unix.SYS_FSOPEN, unix.SYS_FSMOUNT,
	unix.SYS_MOVE_MOUNT, unix.SYS_OPEN_TREE, unix.SYS_MOUNT_SETATTR,
	unix.SYS_UNSHARE, unix.SYS_SETNS,
	unix.SYS_SWAPON, unix.SYS_SWAPOFF, unix.SYS_REBOOT, unix.SYS_KEXEC_LOAD, unix.SYS_KEXEC_FILE_LOAD,
	unix.SYS_INIT_MODULE, unix.SYS_FINIT_MODULE, unix.SYS_DELETE_MODULE, unix.SYS_ACCT,
	unix.SYS_SETTIMEOFDAY, unix.SYS_CLOCK_SETTIME, unix.SYS_CLOCK_ADJTIME, unix.SYS_ADJTIMEX,
	unix.SYS_OPEN_BY_HANDLE_AT, unix.SYS_NAME_TO_HANDLE_AT, unix.SYS_QUOTACTL,
	unix.SYS_SETHOSTNAME, unix.SYS_SETDOMAINNAME,
}

// seccompModeCall is a system call that sets a file's mode: chmod and
// friends, or one that creates a file (open with O_CREAT, mknod).
type seccompModeCall struct {
	nr    uint32
	mode  int // index of the mode argument
	flags int // index of open's flags argument (the mode counts only with O_CREAT or O_TMPFILE); -1 for none
}

// setIDBits are S_ISUID and S_ISGID. The code may not set them: in a
// project dir (Request.Dir) the file outlives the run, and a set-user-ID
// program left there would let anyone who can reach it act as this user
// (as root, when the app runs as root).
const setIDBits = unix.S_ISUID | unix.S_ISGID

// openCreateFlags are the open flags under which the mode argument applies.
const openCreateFlags = unix.O_CREAT | (unix.O_TMPFILE &^ unix.O_DIRECTORY)

func retErrno(errno unix.Errno) bpf.Instruction {
	return bpf.RetConstant{Val: seccompRetErrno | uint32(errno)}
}

// seccompProgram builds the filter. Every rule is a self-contained block
// that returns, so the jumps stay local and short.
func seccompProgram(s seccompSpec) []bpf.Instruction {
	p := []bpf.Instruction{
		bpf.LoadAbsolute{Off: seccompOffArch, Size: 4},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: seccompAuditArch, SkipTrue: 1},
		bpf.RetConstant{Val: seccompRetKillProcess}, // another ABI (e.g. int 0x80 on x86-64)
		bpf.LoadAbsolute{Off: seccompOffNr, Size: 4},
	}
	if seccompX32Bit != 0 {
		p = append(p,
			bpf.JumpIf{Cond: bpf.JumpBitsSet, Val: seccompX32Bit, SkipFalse: 1},
			retErrno(unix.EPERM))
	}
	for _, nr := range seccompDenied {
		if s.Namespaces && nr == unix.SYS_UNSHARE {
			continue
		}
		p = append(p, bpf.JumpIf{Cond: bpf.JumpEqual, Val: nr, SkipFalse: 1}, retErrno(unix.EPERM))
	}
	cloneFlags := uint32(cloneNSFlags)
	if s.Namespaces {
		cloneFlags = 0 // no flag matches: clone is allowed whatever it asks
	}
	// clone3 hides its flags in memory a filter cannot read; ENOSYS makes
	// glibc fall back to clone(2), whose flags we can check.
	p = append(p,
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.SYS_CLONE3, SkipFalse: 1},
		retErrno(unix.ENOSYS),
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.SYS_CLONE, SkipFalse: 4},
		bpf.LoadAbsolute{Off: seccompOffArg0, Size: 4},
		bpf.JumpIf{Cond: bpf.JumpBitsSet, Val: cloneFlags, SkipFalse: 1},
		retErrno(unix.EPERM),
		bpf.RetConstant{Val: seccompRetAllow},
		// TIOCSTI pushes bytes into a terminal's input (and TIOCLINUX can on
		// a VT): refuse both even though the code has no controlling tty.
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.SYS_IOCTL, SkipFalse: 5},
		bpf.LoadAbsolute{Off: seccompOffArg1, Size: 4},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.TIOCSTI, SkipTrue: 2},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.TIOCLINUX, SkipTrue: 1},
		bpf.RetConstant{Val: seccompRetAllow},
		retErrno(unix.EPERM),
		// openat2 hides its mode in memory, like clone3; ENOSYS makes
		// callers fall back to openat.
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.SYS_OPENAT2, SkipFalse: 1},
		retErrno(unix.ENOSYS),
	)
	// No set-user-ID or set-group-ID bits (see setIDBits).
	for _, c := range seccompModeCalls {
		mode := bpf.LoadAbsolute{Off: uint32(seccompOffArg0 + 8*c.mode), Size: 4}
		if c.flags < 0 {
			p = append(p,
				bpf.JumpIf{Cond: bpf.JumpEqual, Val: c.nr, SkipFalse: 4},
				mode,
				bpf.JumpIf{Cond: bpf.JumpBitsSet, Val: setIDBits, SkipTrue: 1},
				bpf.RetConstant{Val: seccompRetAllow},
				retErrno(unix.EPERM))
			continue
		}
		p = append(p,
			bpf.JumpIf{Cond: bpf.JumpEqual, Val: c.nr, SkipFalse: 6},
			bpf.LoadAbsolute{Off: uint32(seccompOffArg0 + 8*c.flags), Size: 4},
			bpf.JumpIf{Cond: bpf.JumpBitsSet, Val: openCreateFlags, SkipFalse: 2},
			mode,
			bpf.JumpIf{Cond: bpf.JumpBitsSet, Val: setIDBits, SkipTrue: 1},
			bpf.RetConstant{Val: seccompRetAllow},
			retErrno(unix.EPERM))
	}
	if s.Sockets != nil {
		// Allowed families pass; every other one gets EACCES.
		p = append(p, argRule(unix.SYS_SOCKET, seccompOffArg0, s.Sockets,
			bpf.RetConstant{Val: seccompRetAllow}, retErrno(unix.EACCES))...)
	}
	if s.AppPid > 0 {
		app := uint32(s.AppPid)
		targets := []uint32{app, ^uint32(0)} // the app, or -1: everyone
		if s.AppPgid > 0 {
			targets = append(targets, uint32(-s.AppPgid))
		}
		allow, deny := bpf.RetConstant{Val: seccompRetAllow}, retErrno(unix.EPERM)
		p = append(p, argRule(unix.SYS_KILL, seccompOffArg0, targets, deny, allow)...)
		for _, nr := range []uint32{unix.SYS_TGKILL, unix.SYS_RT_SIGQUEUEINFO, unix.SYS_RT_TGSIGQUEUEINFO, unix.SYS_PIDFD_OPEN} {
			p = append(p, argRule(nr, seccompOffArg0, []uint32{app}, deny, allow)...)
		}
		for _, nr := range []uint32{unix.SYS_TKILL, unix.SYS_PIDFD_SEND_SIGNAL} {
			p = append(p, bpf.JumpIf{Cond: bpf.JumpEqual, Val: nr, SkipFalse: 1}, deny)
		}
	}
	return append(p, bpf.RetConstant{Val: seccompRetAllow})
}

// argRule is a block for system call nr: if the 32-bit argument at off
// equals one of values, onMatch, else otherwise. Other calls skip it.
func argRule(nr, off uint32, values []uint32, onMatch, otherwise bpf.Instruction) []bpf.Instruction {
	k := len(values)
	p := []bpf.Instruction{
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: nr, SkipFalse: uint8(k + 3)},
		bpf.LoadAbsolute{Off: off, Size: 4},
	}
	for i, v := range values {
		p = append(p, bpf.JumpIf{Cond: bpf.JumpEqual, Val: v, SkipTrue: uint8(k - i)})
	}
	return append(p, otherwise, onMatch)
}

// applySeccomp installs the filter on the calling thread (locked, with
// no_new_privs already set). No TSYNC: only this thread survives exec.
func applySeccomp(s seccompSpec) error {
	raw, err := bpf.Assemble(seccompProgram(s))
	if err != nil {
		return fmt.Errorf("assemble seccomp filter: %w", err)
	}
	filter := make([]unix.SockFilter, len(raw))
	for i, r := range raw {
		filter[i] = unix.SockFilter{Code: r.Op, Jt: r.Jt, Jf: r.Jf, K: r.K}
	}
	prog := unix.SockFprog{Len: uint16(len(filter)), Filter: &filter[0]}
	if _, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, 0, uintptr(unsafe.Pointer(&prog))); errno != 0 {
		return fmt.Errorf("seccomp(SET_MODE_FILTER): %w", errno)
	}
	return nil
}

// seccompAvailable reports whether the kernel takes seccomp filters that
// return errno (it answers SECCOMP_GET_ACTION_AVAIL from Linux 4.14).
func seccompAvailable() error {
	action := uint32(seccompRetErrno)
	if _, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_GET_ACTION_AVAIL, 0, uintptr(unsafe.Pointer(&action))); errno != 0 {
		return fmt.Errorf("seccomp filters unavailable: %w", errno)
	}
	return nil
}
