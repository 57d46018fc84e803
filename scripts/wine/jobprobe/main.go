//go:build windows

// Command jobprobe tells which job-object features the Windows it runs on
// enforces. It exists for Wine: scripts/wine-test.sh --probe runs it there,
// so that the Windows tests that need a feature Wine lacks can say so (and
// skip) instead of failing, and so that a newer Wine can be checked again.
// On real Windows 10/11 every line should read "enforced".
//
// Each probe starts copies of this program (in the child role) inside a
// job object with one limit set and watches what happens. A probe prints
// one line: the feature, "enforced" or "NOT enforced", and what was seen.
package main

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "child" {
		child(os.Args[2:])
		return
	}
	// ntdll exports wine_get_version only under Wine: how a Windows test can
	// tell it runs there (and skip what Wine does not enforce).
	if ntdll.NewProc("wine_get_version").Find() == nil {
		fmt.Println("running on Wine (ntdll exports wine_get_version)")
	} else {
		fmt.Println("not running on Wine (ntdll has no wine_get_version)")
	}
	ok := true
	for _, p := range []struct {
		name string
		run  func() (bool, string)
	}{
		{"children join their parent's job", probeInherit},
		{"TerminateJobObject kills the whole tree", probeTerminate},
		{"KILL_ON_JOB_CLOSE kills the tree when the last handle closes", probeKillOnClose},
		{"KILL_ON_JOB_CLOSE kills the tree when the job's owner is killed", probeOwnerKilled},
		{"ACTIVE_PROCESS limit refuses the extra process", probeActiveLimit},
		{"JOB_MEMORY limit refuses the allocation past it", probeJobMemory},
		{"PROCESS_MEMORY limit refuses the allocation past it", probeProcessMemory},
		{"ACTIVE_PROCESS_ZERO is posted when the last process exits", probeZeroMessage},
		{"breakaway is refused without BREAKAWAY_OK", probeBreakaway},
		{"a process in a job can be put in a second job (nesting)", probeNested},
	} {
		enforced, seen := p.run()
		word := "enforced"
		if !enforced {
			word, ok = "NOT enforced", false
		}
		fmt.Printf("%-62s %-13s %s\n", p.name+":", word, seen)
	}
	if !ok {
		os.Exit(1)
	}
}

// child is the role the probes start: it waits for "go" on stdin (so that
// it runs nothing before it is in its job), then does what it was told and
// prints what happened.
func child(args []string) {
	_, _ = bufio.NewReader(os.Stdin).ReadString('\n')
	switch args[0] {
	case "sleep": // sleep: stay alive until killed (or 2 minutes)
		time.Sleep(2 * time.Minute)
	case "tree": // tree: start a sleeping grandchild, print its pid, sleep
		c, err := startSleeper(0)
		if err != nil {
			fmt.Println("error", err)
			return
		}
		fmt.Println(c.Process.Pid)
		time.Sleep(2 * time.Minute)
	case "spawn": // spawn N: start N sleeping children, print how many started
		n, _ := strconv.Atoi(args[1])
		started := 0
		var last error
		for range n {
			if c, err := startSleeper(0); err != nil {
				last = err
			} else {
				started++
				defer c.Process.Kill()
			}
		}
		fmt.Println(started, last)
	case "alloc": // alloc MB: commit MB mebibytes one at a time, print how many succeeded
		mb, _ := strconv.Atoi(args[1])
		got := 0
		for range mb {
			// A job's memory limits are on committed memory: the commit
			// itself is what Windows refuses past the limit.
			if _, err := windows.VirtualAlloc(0, 1<<20, windows.MEM_COMMIT|windows.MEM_RESERVE, windows.PAGE_READWRITE); err != nil {
				fmt.Println(got, err)
				return
			}
			got++
		}
		fmt.Println(got, "<nil>")
	case "holder": // holder: put a sleeper in a KILL_ON_JOB_CLOSE job of its own, print its pid, sleep
		var l windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION
		l.BasicLimitInformation.LimitFlags = windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
		job, err := windows.CreateJobObject(nil, nil)
		if err == nil {
			_, err = windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
				uintptr(unsafe.Pointer(&l)), uint32(unsafe.Sizeof(l)))
		}
		var c *exec.Cmd
		if err == nil {
			c, err = startSleeper(0)
		}
		var h windows.Handle
		if err == nil {
			h, err = windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, uint32(c.Process.Pid))
		}
		if err == nil {
			err = windows.AssignProcessToJobObject(job, h)
		}
		if err != nil {
			fmt.Println("error", err)
			return
		}
		fmt.Println(c.Process.Pid)
		time.Sleep(2 * time.Minute)
	case "breakaway": // breakaway: start a child with CREATE_BREAKAWAY_FROM_JOB
		c, err := startSleeper(windows.CREATE_BREAKAWAY_FROM_JOB)
		if err == nil {
			_ = c.Process.Kill()
		}
		fmt.Println(err)
	}
}

// startSleeper starts a child in the sleep role, already told to go.
func startSleeper(flags uint32) (*exec.Cmd, error) {
	c := exec.Command(os.Args[0], "child", "sleep")
	c.Stdin = strings.NewReader("go\n")
	c.SysProcAttr = &syscall.SysProcAttr{CreationFlags: flags}
	return c, c.Start()
}

// jobChild is a child started in a new job with the given limits.
type jobChild struct {
	job  windows.Handle
	cmd  *exec.Cmd
	in   *os.File
	out  *bufio.Reader
	port windows.Handle
}

func startInJob(limits windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION, args ...string) (*jobChild, error) {
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return nil, err
	}
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&limits)), uint32(unsafe.Sizeof(limits))); err != nil {
		return nil, fmt.Errorf("set limits: %w", err)
	}
	port, err := windows.CreateIoCompletionPort(windows.InvalidHandle, 0, 0, 1)
	if err != nil {
		return nil, err
	}
	assoc := struct {
		Key  uintptr
		Port windows.Handle
	}{uintptr(job), port}
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectAssociateCompletionPortInformation,
		uintptr(unsafe.Pointer(&assoc)), uint32(unsafe.Sizeof(assoc))); err != nil {
		return nil, fmt.Errorf("completion port: %w", err)
	}
	cmd := exec.Command(os.Args[0], append([]string{"child"}, args...)...)
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	h, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, uint32(cmd.Process.Pid))
	if err != nil {
		return nil, err
	}
	defer windows.CloseHandle(h)
	if err := windows.AssignProcessToJobObject(job, h); err != nil {
		return nil, fmt.Errorf("assign: %w", err)
	}
	if _, err := fmt.Fprintln(in, "go"); err != nil {
		return nil, err
	}
	return &jobChild{job: job, cmd: cmd, in: in.(*os.File), out: bufio.NewReader(out), port: port}, nil
}

func (j *jobChild) line() string {
	s, _ := j.out.ReadString('\n')
	return strings.TrimSpace(s)
}

func (j *jobChild) close() {
	_ = windows.TerminateJobObject(j.job, 1)
	_ = j.cmd.Process.Kill()
	_ = j.cmd.Wait()
	_ = windows.CloseHandle(j.job)
	_ = windows.CloseHandle(j.port)
}

// gone waits up to 5 s for process pid to end.
func gone(pid int) bool {
	h, err := windows.OpenProcess(windows.SYNCHRONIZE, false, uint32(pid))
	if err != nil {
		return true // no such process any more
	}
	defer windows.CloseHandle(h)
	ev, _ := windows.WaitForSingleObject(h, 5000)
	return ev == windows.WAIT_OBJECT_0
}

func inJob(pid int, job windows.Handle) (bool, error) {
	// PROCESS_QUERY_INFORMATION, not the LIMITED right Windows also
	// accepts: with it, Wine 8.0 answered "Access denied".
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_INFORMATION, false, uint32(pid))
	if err != nil {
		return false, err
	}
	defer windows.CloseHandle(h)
	var in int32
	r, _, err := isProcessInJob.Call(uintptr(h), uintptr(job), uintptr(unsafe.Pointer(&in)))
	if r == 0 {
		return false, err
	}
	return in != 0, nil
}

var ntdll = windows.NewLazySystemDLL("ntdll.dll")

// IsProcessInJob is not in x/sys/windows.
var isProcessInJob = windows.NewLazySystemDLL("kernel32.dll").NewProc("IsProcessInJob")

func activeProcesses(job windows.Handle) string {
	var acct struct {
		TotalUserTime, TotalKernelTime                       int64
		ThisPeriodTotalUserTime, ThisPeriodTotalKernelTime   int64
		TotalPageFaultCount, TotalProcesses, ActiveProcesses uint32
		TotalTerminatedProcesses                             uint32
	}
	if err := windows.QueryInformationJobObject(job, windows.JobObjectBasicAccountingInformation,
		uintptr(unsafe.Pointer(&acct)), uint32(unsafe.Sizeof(acct)), nil); err != nil {
		return "unknown (" + err.Error() + ")" // not 0: that would read as an empty job
	}
	return strconv.FormatUint(uint64(acct.ActiveProcesses), 10)
}

func probeInherit() (bool, string) {
	j, err := startInJob(windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION{}, "tree")
	if err != nil {
		return false, err.Error()
	}
	defer j.close()
	pid, _ := strconv.Atoi(j.line())
	in, err := inJob(pid, j.job)
	return in && err == nil, fmt.Sprintf("grandchild in the job: %v (err %v); job's active processes: %s", in, err, activeProcesses(j.job))
}

func probeTerminate() (bool, string) {
	j, err := startInJob(windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION{}, "tree")
	if err != nil {
		return false, err.Error()
	}
	defer j.close()
	pid, _ := strconv.Atoi(j.line())
	err = windows.TerminateJobObject(j.job, 137)
	child, grandchild := gone(j.cmd.Process.Pid), gone(pid)
	return err == nil && child && grandchild, fmt.Sprintf("TerminateJobObject: %v; child gone: %v, grandchild gone: %v", err, child, grandchild)
}

func probeKillOnClose() (bool, string) {
	var l windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION
	l.BasicLimitInformation.LimitFlags = windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
	j, err := startInJob(l, "tree")
	if err != nil {
		return false, err.Error()
	}
	defer j.close()
	pid, _ := strconv.Atoi(j.line())
	if err := windows.CloseHandle(j.job); err != nil { // the step this probe is about
		return false, "CloseHandle(job): " + err.Error()
	}
	child, grandchild := gone(j.cmd.Process.Pid), gone(pid)
	if !grandchild {
		p, _ := os.FindProcess(pid)
		_ = p.Kill()
	}
	return child && grandchild, fmt.Sprintf("after CloseHandle(job): child gone: %v, grandchild gone: %v", child, grandchild)
}

func probeActiveLimit() (bool, string) {
	var l windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION
	l.BasicLimitInformation.LimitFlags = windows.JOB_OBJECT_LIMIT_ACTIVE_PROCESS
	l.BasicLimitInformation.ActiveProcessLimit = 3
	j, err := startInJob(l, "spawn", "5")
	if err != nil {
		return false, err.Error()
	}
	defer j.close()
	got := j.line() // "started lastErr"
	n, _ := strconv.Atoi(strings.Fields(got + " x")[0])
	return n == 2, fmt.Sprintf("limit 3 (the child itself + 2): the child started %s of 5 more (started, last error)", got)
}

func allocProbe(flag uint32, set func(*windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION)) (bool, string) {
	var l windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION
	l.BasicLimitInformation.LimitFlags = flag
	set(&l)
	j, err := startInJob(l, "alloc", "512")
	if err != nil {
		return false, err.Error()
	}
	defer j.close()
	got := j.line() // "MiB err"
	n, _ := strconv.Atoi(strings.Fields(got + " x")[0])
	return n < 256, fmt.Sprintf("limit 256 MiB: the child committed %s MiB of 512 asked", strings.Replace(got, " ", " (last error: ", 1)+")")
}

func probeJobMemory() (bool, string) {
	return allocProbe(windows.JOB_OBJECT_LIMIT_JOB_MEMORY, func(l *windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION) { l.JobMemoryLimit = 256 << 20 })
}

func probeProcessMemory() (bool, string) {
	return allocProbe(windows.JOB_OBJECT_LIMIT_PROCESS_MEMORY, func(l *windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION) { l.ProcessMemoryLimit = 256 << 20 })
}

func probeZeroMessage() (bool, string) {
	j, err := startInJob(windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION{}, "sleep")
	if err != nil {
		return false, err.Error()
	}
	defer j.close()
	_ = j.cmd.Process.Kill()
	var msgs []uint32
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		var code uint32
		var key uintptr
		var ov *windows.Overlapped
		if err := windows.GetQueuedCompletionStatus(j.port, &code, &key, &ov, 500); err != nil {
			if errors.Is(err, windows.WAIT_TIMEOUT) {
				continue
			}
			break
		}
		msgs = append(msgs, code)
		if code == 4 { // JOB_OBJECT_MSG_ACTIVE_PROCESS_ZERO
			return true, fmt.Sprintf("messages: %v", msgs)
		}
	}
	return false, fmt.Sprintf("messages in 5 s: %v (want 4, ACTIVE_PROCESS_ZERO)", msgs)
}

func probeBreakaway() (bool, string) {
	j, err := startInJob(windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION{}, "breakaway")
	if err != nil {
		return false, err.Error()
	}
	defer j.close()
	got := j.line()
	return got != "<nil>", "CreateProcess(CREATE_BREAKAWAY_FROM_JOB) in a job without BREAKAWAY_OK: " + got
}

func probeNested() (bool, string) {
	j, err := startInJob(windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION{}, "sleep")
	if err != nil {
		return false, err.Error()
	}
	defer j.close()
	second, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return false, err.Error()
	}
	defer windows.CloseHandle(second)
	h, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, uint32(j.cmd.Process.Pid))
	if err != nil {
		return false, err.Error()
	}
	defer windows.CloseHandle(h)
	err = windows.AssignProcessToJobObject(second, h)
	return err == nil, fmt.Sprintf("AssignProcessToJobObject(second job): %v", err)
}

func probeOwnerKilled() (bool, string) {
	j, err := startInJob(windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION{}, "holder")
	if err != nil {
		return false, err.Error()
	}
	defer j.close()
	pid, err := strconv.Atoi(j.line())
	if err != nil {
		return false, "the holder failed"
	}
	_ = j.cmd.Process.Kill() // TerminateProcess: the owner dies without closing anything itself
	sleeper := gone(pid)
	if !sleeper {
		p, _ := os.FindProcess(pid)
		_ = p.Kill()
	}
	return sleeper, fmt.Sprintf("owner terminated; its job's process gone: %v", sleeper)
}
