package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// matplotlibFix says how to make matplotlib importable.
const matplotlibFix = "python3 -m pip install matplotlib (for that interpreter)"

// darwinSystemPath is the code's PATH after the interpreters' own dirs.
var darwinSystemPath = []string{"/usr/local/bin", "/usr/bin", "/bin", "/usr/sbin", "/sbin"}

// newPlainOS is macOS's plain sandbox: level "basic" behind the shim.
func newPlainOS(o Options) (plainOS, string, string, error) {
	switch o.Isolation {
	case "", "auto", IsolationBasic:
	default:
		return nil, "", "", fmt.Errorf("sandbox: isolation level %q is not available on macOS (want auto or basic)", o.Isolation)
	}
	self, err := shimPath(o.Self)
	if err != nil {
		return nil, "", "", err
	}
	python, err := findPython(o.Python)
	if err != nil {
		return nil, "", "", err
	}
	node := findNode(o.Node)
	return &shimOS{self: self, path: pathWith(darwinSystemPath, python, node), lang: "en_US.UTF-8"}, python, node, nil
}

// shimPath is Options.Self, else the trusted loopforge-shim next to the
// executable, else the executable itself (as on Linux).
func shimPath(self string) (string, error) {
	if self == "" {
		exe, err := os.Executable()
		if err != nil {
			return "", fmt.Errorf("sandbox: locate own executable for the shim: %w", err)
		}
		self = exe
		if shim := filepath.Join(filepath.Dir(exe), ShimName); trustedShim(shim) {
			self = shim
		}
	}
	if abs, err := filepath.Abs(self); err == nil {
		self = abs
	}
	return self, nil
}

// findPython resolves the interpreter once: python3 on PATH, then the
// usual installs (Homebrew, python.org), then Apple's /usr/bin/python3,
// which only runs Python when the Command Line Tools are installed (else
// it opens their installer). A launcher is asked for its real binary.
func findPython(explicit string) (string, error) {
	if explicit != "" {
		p, err := exec.LookPath(explicit)
		if err != nil {
			return "", &InterpreterError{Tried: []string{explicit}, Err: err}
		}
		return resolvePython(p), nil
	}
	tried := []string{"python3 on PATH"}
	if p, err := exec.LookPath("python3"); err == nil && p != "/usr/bin/python3" {
		return resolvePython(p), nil
	}
	for _, p := range []string{"/opt/homebrew/bin/python3", "/usr/local/bin/python3",
		"/Library/Frameworks/Python.framework/Versions/Current/bin/python3"} {
		tried = append(tried, p)
		if isRegular(p) {
			return resolvePython(p), nil
		}
	}
	tried = append(tried, "/usr/bin/python3 (with the Command Line Tools)")
	if isRegular("/Library/Developer/CommandLineTools/usr/bin/python3") ||
		isRegular("/Applications/Xcode.app/Contents/Developer/usr/bin/python3") {
		return resolvePython("/usr/bin/python3"), nil
	}
	return "", &InterpreterError{Tried: tried,
		Hint: "install Python 3 from https://www.python.org/downloads/ (or `brew install python`)"}
}

func resolvePython(p string) string {
	if real := askPython(p); real != "" {
		return real
	}
	return p
}

func isRegular(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

func hideWindow(*exec.Cmd) {}

// nodeInstalls are where Homebrew and nodejs.org's installer put node.
func nodeInstalls() []string { return []string{"/opt/homebrew/bin/node", "/usr/local/bin/node"} }

// probeOS: macOS's process groups and rlimits need no probe.
func probeOS() error { return nil }
