package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"unsafe"

	"github.com/loopforge/loopforge/backend/procgroup"
	"golang.org/x/sys/windows"
)

// matplotlibFix says how to make matplotlib importable.
const matplotlibFix = "py -m pip install matplotlib (for that interpreter)"

// jobOS is Windows's plain sandbox, level "job": the interpreter itself
// (no shim: nothing needs applying inside the process) in a job object
// with the run's process and memory limits (procgroup.Options.JobMemory,
// JobProcesses), which the timeout and cancellation terminate whole.
type jobOS struct {
	sysRoot string // %SystemRoot%
	path    string // PATH for the code
}

// newPlainOS is Windows's plain sandbox.
func newPlainOS(o Options) (plainOS, string, string, error) {
	switch o.Isolation {
	case "", "auto", IsolationJob:
	default:
		return nil, "", "", fmt.Errorf("sandbox: isolation level %q is not available on Windows (want auto or job)", o.Isolation)
	}
	python, err := findPython(o.Python)
	if err != nil {
		return nil, "", "", err
	}
	node := findNode(o.Node)
	return newJobOS(python, node), python, node, nil
}

func newJobOS(python, node string) *jobOS {
	root, err := windows.GetSystemWindowsDirectory()
	if err != nil || root == "" {
		root = `C:\Windows`
	}
	sys := []string{filepath.Join(root, "System32"), root}
	return &jobOS{sysRoot: root, path: pathWith(sys, python, node)}
}

func (j *jobOS) level() string { return IsolationJob }

// codeAsFile: the program is a file in the run dir, as given (line endings
// included); a pipe into python.exe would gain nothing here.
func (j *jobOS) codeAsFile() bool { return true }

func (j *jobOS) interpreter(r *plainRunner, lang string, lim Limits) (interpreter, error) {
	switch lang {
	case "", "python":
		return pythonInterpreter(r.python), nil
	case "sh":
		return interpreter{}, fmt.Errorf("sandbox: %w %q: Windows has no POSIX shell; ask for python or node", ErrUnsupportedLanguage, lang)
	case "node", "javascript", "js":
		if r.node == "" {
			return interpreter{}, fmt.Errorf("sandbox: %w %q: Node.js is not installed (node.exe is not on PATH)", ErrUnsupportedLanguage, lang)
		}
		return nodeInterpreter(r.node, lim), nil
	}
	return interpreter{}, fmt.Errorf("sandbox: %w %q", ErrUnsupportedLanguage, lang)
}

// env is rebuilt from scratch: what Windows programs need to run (the
// system root, a minimal PATH, the shell for subprocess), every per-user
// directory pointing at the private run dir, and UTF-8 for Python; never
// the app's own variables (its API keys).
func (j *jobOS) env(_ *plainRunner, wd string) []string {
	return []string{
		"SystemRoot=" + j.sysRoot,
		"windir=" + j.sysRoot,
		"SystemDrive=" + filepath.VolumeName(j.sysRoot),
		"ComSpec=" + filepath.Join(j.sysRoot, "System32", "cmd.exe"),
		"PATHEXT=.COM;.EXE;.BAT;.CMD",
		"PATH=" + j.path,
		"TEMP=" + wd,
		"TMP=" + wd,
		"USERPROFILE=" + wd,
		"HOME=" + wd,
		"APPDATA=" + wd,
		"LOCALAPPDATA=" + wd,
		"PYTHONIOENCODING=utf-8",
		"PYTHONUTF8=1",
		"PYTHONDONTWRITEBYTECODE=1",
		"PYTHONUNBUFFERED=1",
	}
}

func (j *jobOS) command(x *plainRun, in interpreter) error {
	x.cmd = &exec.Cmd{Path: in.path, Args: in.args}
	x.opts = procgroup.Options{SweepWithin: plainSweepWithin, JobMemory: x.lim.MemoryBytes, JobProcesses: x.lim.Processes}
	plainReport(&x.res, x.req, Protections{Processes: true, Memory: true}, "job")
	return nil
}

func (j *jobOS) started(*plainRun, error) {}

func (j *jobOS) check(*plainRun, procgroup.Exit, bool) error { return nil }

// hideWindow keeps a console program started by the desktop app from
// opening a console window.
func hideWindow(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &windows.SysProcAttr{}
	}
	cmd.SysProcAttr.CreationFlags |= windows.CREATE_NO_WINDOW
}

// nodeInstalls is where nodejs.org's installer puts node.exe.
func nodeInstalls() []string {
	var out []string
	for _, env := range []string{"ProgramFiles", "ProgramW6432"} {
		if dir := os.Getenv(env); dir != "" {
			out = append(out, filepath.Join(dir, "nodejs", "node.exe"))
		}
	}
	return out
}

// probeOS checks that a job object with the sandbox's limits can be made
// (a process already in a job that forbids nesting could not be put in
// one before Windows 8).
func probeOS() error {
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return fmt.Errorf("cannot create a job object: %w", err)
	}
	defer windows.CloseHandle(job)
	var info windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION
	info.BasicLimitInformation.LimitFlags = windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE |
		windows.JOB_OBJECT_LIMIT_ACTIVE_PROCESS | windows.JOB_OBJECT_LIMIT_JOB_MEMORY
	info.BasicLimitInformation.ActiveProcessLimit = 1
	info.JobMemoryLimit = 1 << 30
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		return fmt.Errorf("cannot set a job object's limits: %w", err)
	}
	return nil
}

// storeStubs is where the Microsoft Store puts its python.exe stand-ins
// ("app execution aliases"), which open the Store instead of running
// Python when Python is not installed from it.
func storeStubs() string {
	local, err := windows.KnownFolderPath(windows.FOLDERID_LocalAppData, 0)
	if err != nil {
		return ""
	}
	return filepath.Join(local, "Microsoft", "WindowsApps")
}

// pythonHint says how to get a Python that loopforge finds.
const pythonHint = "install Python 3 from https://www.python.org/downloads/ (or run `winget install Python.Python.3.12`) " +
	"and tick \"Add python.exe to PATH\" in its installer"

// findPython resolves the interpreter once, the Windows way: the one the
// py launcher picks (`py -3`), else python or python3 on PATH, never a
// Microsoft Store stand-in.
func findPython(explicit string) (string, error) {
	stubs := storeStubs()
	isStub := func(p string) bool { return stubs != "" && beneath(filepath.Clean(p), stubs) }
	if explicit != "" {
		p, err := exec.LookPath(explicit)
		if err == nil && isStub(p) {
			err = fmt.Errorf("%s is the Microsoft Store's stand-in, not Python", p)
		}
		if err != nil {
			return "", &InterpreterError{Tried: []string{explicit}, Err: err, Hint: pythonHint}
		}
		return p, nil
	}
	tried := []string{"py -3"}
	if py, err := exec.LookPath("py"); err == nil && !isStub(py) {
		if p := askPython(py, "-3"); p != "" && !isStub(p) {
			return p, nil
		}
	}
	for _, name := range []string{"python", "python3"} {
		tried = append(tried, name+" on PATH")
		if p := pythonOnPath(name, isStub); p != "" {
			if real := askPython(p); real != "" && !isStub(real) {
				return real, nil
			}
		}
	}
	return "", &InterpreterError{Tried: tried, Hint: pythonHint}
}
