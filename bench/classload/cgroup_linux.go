package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
)

// treeCPU counts the CPU of a process and of every process it starts, in a
// cgroup v2 of their own. The server's own rusage cannot: under bubblewrap
// the namespace's init outlives its parent (bwrap exits as soon as it has
// the code's exit status) and is never waited for by the server, so its
// CPU and the interpreter's never reach the server's children time.
type treeCPU struct {
	dir string
	fd  int
}

// newTreeCPU makes a cgroup beside this process's own (cgroup v2) and has
// cmd born inside it. Runs' cgroups then nest inside it, and the cgroup's
// cpu.stat keeps their CPU after they are removed.
func newTreeCPU(cmd *exec.Cmd) (*treeCPU, error) {
	parent, err := ownCgroup()
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(parent, fmt.Sprintf("classload-%d-%d", os.Getpid(), treeSeq.Add(1)))
	if err := os.Mkdir(dir, 0o755); err != nil {
		return nil, fmt.Errorf("a cgroup for the server: %w", err)
	}
	fd, err := syscall.Open(dir, syscall.O_DIRECTORY|syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		_ = os.Remove(dir)
		return nil, err
	}
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.UseCgroupFD, cmd.SysProcAttr.CgroupFD = true, fd
	return &treeCPU{dir: dir, fd: fd}, nil
}

// treeSeq numbers the servers of one bench (a burst each).
var treeSeq atomic.Int64

// ownCgroup is the directory of this process's cgroup v2 (the unified
// hierarchy of a hybrid host too).
func ownCgroup() (string, error) {
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return "", err
	}
	var rel string
	found := false
	for line := range strings.SplitSeq(string(b), "\n") {
		if p, ok := strings.CutPrefix(line, "0::"); ok {
			rel, found = p, true
		}
	}
	if !found {
		return "", errors.New("no cgroup v2 hierarchy")
	}
	for _, root := range []string{"/sys/fs/cgroup/unified", "/sys/fs/cgroup"} {
		if _, err := os.Stat(filepath.Join(root, "cgroup.controllers")); err == nil {
			return filepath.Join(root, rel), nil
		}
	}
	return "", errors.New("the cgroup v2 hierarchy is not mounted at /sys/fs/cgroup")
}

// usage is the CPU (user + system) of every process that has been in the
// cgroup; false without one.
func (t *treeCPU) usage() (time.Duration, bool) {
	if t == nil {
		return 0, false
	}
	b, err := os.ReadFile(filepath.Join(t.dir, "cpu.stat"))
	if err != nil {
		return 0, false
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "usage_usec "); ok {
			us, err := strconv.ParseInt(v, 10, 64)
			return time.Duration(us) * time.Microsecond, err == nil
		}
	}
	return 0, false
}

// close removes the cgroup once the server is gone (its runs' cgroups are
// removed by the server itself). What the server left dying (its
// zygote's sandbox, which dies with it) is killed and waited for.
func (t *treeCPU) close() {
	if t == nil {
		return
	}
	_ = syscall.Close(t.fd)
	_ = os.WriteFile(filepath.Join(t.dir, "cgroup.kill"), []byte("1"), 0)
	for deadline := time.Now().Add(5 * time.Second); ; {
		err := os.Remove(t.dir)
		if err == nil || !errors.Is(err, syscall.EBUSY) || time.Now().After(deadline) {
			if err != nil {
				fmt.Fprintln(os.Stderr, "classload: remove the server's cgroup:", err)
			}
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}
