package sandbox

import (
	"fmt"
	"slices"
)

// memRlimit is the per-process memory rlimit an interpreter tolerates.
type memRlimit int

const (
	memNone memRlimit = iota
	memAS             // RLIMIT_AS: a clean MemoryError in CPython
	memData           // RLIMIT_DATA: V8 reserves address space, so not AS
)

// interpreter is how one language is started by the shim.
type interpreter struct {
	path string
	args []string // argv, argv[0] included; the last one means "the program is on stdin"
	ext  string   // file name extension for the program as a file
	mem  memRlimit
	// linkFlags come before a program file that is a symbolic link to a
	// pipe (a warm run's, see withProgramLink).
	linkFlags []string
}

// withScript runs the program from the file p instead of stdin: every
// interpreter here takes a script path where it takes "-" or "-s".
func (in interpreter) withScript(p string) interpreter {
	in.args = append(slices.Clone(in.args[:len(in.args)-1]), p)
	return in
}

// withProgramLink runs the program from the symbolic link p, which points
// to a pipe (a warm run's program file until its code is handed over).
func (in interpreter) withProgramLink(p string) interpreter {
	in = in.withScript(p)
	last := len(in.args) - 1
	in.args = slices.Concat(in.args[:last], in.linkFlags, in.args[last:])
	return in
}

// pythonInterpreter runs python with the program on stdin.
func pythonInterpreter(python string) interpreter {
	// -I: ignore PYTHON* env, user site and cwd on sys.path. -I also
	// ignores PYTHONUNBUFFERED etc., hence -B -u -X utf8: unbuffered so a
	// killed program keeps what it printed.
	return interpreter{
		path: python,
		args: []string{python, "-I", "-B", "-u", "-X", "utf8", "-"},
		ext:  ".py",
		mem:  memAS,
	}
}

// nodeInterpreter runs Node.js with the program on stdin.
func nodeInterpreter(node string, lim Limits) interpreter {
	// V8 sizes its heap from the machine, not from rlimits; keep it
	// under the memory limit so the error is V8's clear one.
	heap := max(lim.MemoryBytes*3/4/mib, 16)
	return interpreter{
		path: node,
		args: []string{node, fmt.Sprintf("--max-old-space-size=%d", heap), "-"},
		ext:  ".js",
		mem:  memData,
		// Node resolves its main script's symbolic links: the link to
		// the pipe would become "/proc/self/fd/pipe:[N]", which does
		// not exist.
		linkFlags: []string{"--preserve-symlinks-main"},
	}
}

// unixInterpreter is how Linux and macOS start lang: python and sh read the
// program on stdin, node too when it is installed.
func unixInterpreter(python, node, lang string, lim Limits) (interpreter, error) {
	switch lang {
	case "", "python":
		return pythonInterpreter(python), nil
	case "sh":
		return interpreter{path: "/bin/sh", args: []string{"sh", "-s"}, ext: ".sh"}, nil
	case "node", "javascript", "js":
		if node == "" {
			return interpreter{}, fmt.Errorf("sandbox: %w %q: Node.js is not installed", ErrUnsupportedLanguage, lang)
		}
		return nodeInterpreter(node, lim), nil
	}
	return interpreter{}, fmt.Errorf("sandbox: %w %q", ErrUnsupportedLanguage, lang)
}
