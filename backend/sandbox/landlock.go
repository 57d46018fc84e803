//go:build linux

package sandbox

// Landlock, applied by the shim to its own thread just before exec.
//
// We do not use Go-Landlock (github.com/landlock-lsm/go-landlock) because it
// always restricts every OS thread through libpsx, which under cgo (the Wails
// desktop binary is a cgo program) wraps pthread_create for the whole GTK
// process. The shim needs only the single-thread pattern from Go-Landlock's
// own docs ("Applying a Landlock policy to another program"): lock the
// goroutine to its OS thread, set no_new_privs, restrict that thread, exec
// from it. Only the exec'ing thread's domain survives execve.

import (
	"errors"
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

const (
	llReadExec = unix.LANDLOCK_ACCESS_FS_EXECUTE | unix.LANDLOCK_ACCESS_FS_READ_FILE | unix.LANDLOCK_ACCESS_FS_READ_DIR
	// llFileRights are the rights that may be granted on a non-directory.
	llFileRights = unix.LANDLOCK_ACCESS_FS_EXECUTE | unix.LANDLOCK_ACCESS_FS_WRITE_FILE |
		unix.LANDLOCK_ACCESS_FS_READ_FILE | unix.LANDLOCK_ACCESS_FS_TRUNCATE | unix.LANDLOCK_ACCESS_FS_IOCTL_DEV
	llDevRW = unix.LANDLOCK_ACCESS_FS_READ_FILE | unix.LANDLOCK_ACCESS_FS_WRITE_FILE | unix.LANDLOCK_ACCESS_FS_TRUNCATE
)

// landlockABI asks the kernel for its Landlock ABI version (0 and an error
// when Landlock is not compiled in or not enabled at boot).
func landlockABI() (int, error) {
	v, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
	if errno != 0 {
		switch errno {
		case unix.ENOSYS:
			return 0, errors.New("the kernel has no Landlock (needs Linux 5.13+ with CONFIG_SECURITY_LANDLOCK)")
		case unix.EOPNOTSUPP:
			return 0, errors.New("Landlock is built in but not enabled (add landlock to the lsm= boot parameter)") //nolint:staticcheck // ST1005: Landlock is a name
		}
		return 0, errno
	}
	return int(v), nil
}

// llHandledFS is every file-system right the given ABI knows, so that all of
// them are denied unless a rule grants them.
func llHandledFS(abi int) uint64 {
	h := uint64(unix.LANDLOCK_ACCESS_FS_EXECUTE | unix.LANDLOCK_ACCESS_FS_WRITE_FILE | unix.LANDLOCK_ACCESS_FS_READ_FILE |
		unix.LANDLOCK_ACCESS_FS_READ_DIR | unix.LANDLOCK_ACCESS_FS_REMOVE_DIR | unix.LANDLOCK_ACCESS_FS_REMOVE_FILE |
		unix.LANDLOCK_ACCESS_FS_MAKE_CHAR | unix.LANDLOCK_ACCESS_FS_MAKE_DIR | unix.LANDLOCK_ACCESS_FS_MAKE_REG |
		unix.LANDLOCK_ACCESS_FS_MAKE_SOCK | unix.LANDLOCK_ACCESS_FS_MAKE_FIFO | unix.LANDLOCK_ACCESS_FS_MAKE_BLOCK |
		unix.LANDLOCK_ACCESS_FS_MAKE_SYM)
	if abi >= 2 {
		h |= unix.LANDLOCK_ACCESS_FS_REFER
	}
	if abi >= 3 {
		h |= unix.LANDLOCK_ACCESS_FS_TRUNCATE
	}
	if abi >= 5 {
		h |= unix.LANDLOCK_ACCESS_FS_IOCTL_DEV
	}
	return h
}

// landlockSpec is the policy the parent computes and the shim enforces.
type landlockSpec struct {
	ABI      int      `json:"abi"`
	ReadExec []string `json:"ro"`  // read and execute beneath these paths
	ReadDev  []string `json:"rod"` // read-only device files (/dev/urandom)
	RWDev    []string `json:"rwd"` // read-write device files (/dev/null)
	RW       []string `json:"rw"`  // everything beneath these (the run dir)
	DenyTCP  bool     `json:"tcp"` // refuse TCP bind and connect (ABI 4+)
	Scope    bool     `json:"scope"`
}

// rulesetAttr is struct landlock_ruleset_attr up to ABI 6 (the kernel accepts
// a shorter struct than it knows; x/sys's is longer than old kernels accept).
type rulesetAttr struct {
	fs, net, scoped uint64
}

// applyLandlock restricts the calling thread. The caller has locked the
// goroutine to its OS thread and set no_new_privs. Missing paths are skipped:
// the same policy serves hosts with and without /lib64, /lib32 and so on.
func applyLandlock(s *landlockSpec) error {
	handled := llHandledFS(s.ABI)
	attr := rulesetAttr{fs: handled}
	if s.DenyTCP && s.ABI >= 4 {
		attr.net = unix.LANDLOCK_ACCESS_NET_BIND_TCP | unix.LANDLOCK_ACCESS_NET_CONNECT_TCP
	}
	if s.Scope && s.ABI >= 6 {
		attr.scoped = unix.LANDLOCK_SCOPE_SIGNAL | unix.LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET
	}
	fd, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, uintptr(unsafe.Pointer(&attr)), unsafe.Sizeof(attr), 0)
	if errno != 0 {
		return fmt.Errorf("landlock_create_ruleset: %w", errno)
	}
	defer unix.Close(int(fd))
	add := func(path string, access uint64) error {
		pfd, err := unix.Open(path, unix.O_PATH|unix.O_CLOEXEC, 0)
		if err != nil {
			if errors.Is(err, unix.ENOENT) || errors.Is(err, unix.EACCES) {
				return nil
			}
			return fmt.Errorf("open %s: %w", path, err)
		}
		defer unix.Close(pfd)
		var st unix.Stat_t
		if err := unix.Fstat(pfd, &st); err != nil {
			return fmt.Errorf("stat %s: %w", path, err)
		}
		if st.Mode&unix.S_IFMT != unix.S_IFDIR {
			access &= llFileRights
		}
		access &= handled
		if access == 0 {
			return nil
		}
		rule := unix.LandlockPathBeneathAttr{Allowed_access: access, Parent_fd: int32(pfd)}
		_, _, errno := unix.Syscall6(unix.SYS_LANDLOCK_ADD_RULE, fd, unix.LANDLOCK_RULE_PATH_BENEATH, uintptr(unsafe.Pointer(&rule)), 0, 0, 0)
		if errno != 0 {
			return fmt.Errorf("landlock_add_rule %s: %w", path, errno)
		}
		return nil
	}
	for _, set := range []struct {
		paths  []string
		access uint64
	}{
		{s.ReadExec, llReadExec},
		{s.ReadDev, unix.LANDLOCK_ACCESS_FS_READ_FILE},
		{s.RWDev, llDevRW},
		{s.RW, handled},
	} {
		for _, p := range set.paths {
			if err := add(p, set.access); err != nil {
				return err
			}
		}
	}
	if _, _, errno := unix.Syscall(unix.SYS_LANDLOCK_RESTRICT_SELF, fd, 0, 0); errno != 0 {
		return fmt.Errorf("landlock_restrict_self: %w", errno)
	}
	return nil
}
