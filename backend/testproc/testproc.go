// Package testproc lets a test binary play the child processes of its own
// tests, on every OS and without Python (under Wine in particular, where
// none is installed): a test starts its own binary with Python's command
// line (Command, or a sandbox whose interpreter is the test binary), and
// TestMain's call to Run makes that process follow the script it was
// given instead of running the tests. Imported by tests only.
//
// A script is one operation per line (or separated by ";" after -c):
//
//	print TEXT     TEXT on stdout            eprint TEXT   TEXT on stderr
//	env NAME       NAME=value, or NAME unset cwd           the working directory
//	stdin          copies stdin to stdout    flood N       N bytes of 'x' on stdout
//	pid            "pid N", this process     exit N        exits with status N
//	tree D         "pid N", then a child running "tree D-1" (none at 0), then sleep
//	orphans D      a child running "tree D-1"; passes on its D pids, then exits
//	procs N        starts N children that sleep; "started K" and "refused: ERR" at
//	               the first failure
//	alloc MIB      allocates and touches MIB MiB ("allocated MIB" when it could)
//	memerror       a Python MemoryError's traceback on stderr, exit 1
//	png NAME       writes a 7×5 PNG picture to the file NAME
//	exists PATH    "exists yes" or "exists no"; $VARS in PATH are expanded
//	sleep          sleeps until killed
package testproc

import (
	"bufio"
	"fmt"
	"image"
	"image/png"
	"io"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Python's flags that the sandbox passes before the program file.
var pythonFlags = []string{"-I", "-s", "-B", "-u", "-X", "utf8"}

// Command is the test binary started as a child following script.
func Command(script string) *exec.Cmd {
	return exec.Command(Self(), "-I", "-c", script)
}

// Self is the test binary's path, for a sandbox to use as its "python".
func Self() string {
	if exe, err := os.Executable(); err == nil {
		return exe
	}
	return os.Args[0]
}

// Run follows the script when this process was started as a child (with
// Python's command line: flags, then -c SCRIPT or a program file) and
// exits; otherwise it returns at once. Call it first in TestMain (after
// sandbox.RunChildIfRequested, in a binary that hosts a sandbox).
func Run() {
	script, ok := childScript(os.Args[1:])
	if !ok {
		return
	}
	// A bare exit: a -race binary's os.Exit sleeps a second for late race
	// reports (GORACE atexit_sleep_ms), in every child. Nothing is
	// buffered: every operation writes straight to its file.
	syscall.Exit(follow(script))
}

// childScript finds the script in a child's arguments.
func childScript(args []string) (string, bool) {
	if len(args) < 2 || (args[0] != "-I" && args[0] != "-s") {
		return "", false
	}
	for i, a := range args {
		switch {
		case a == "-c" && i == len(args)-2:
			return strings.ReplaceAll(args[i+1], ";", "\n"), true
		case i == len(args)-1:
			b, err := readProgram(a)
			if err != nil {
				fmt.Fprintln(os.Stderr, "testproc:", err)
				os.Exit(2)
			}
			return string(b), true
		case !slices.Contains(pythonFlags, a):
			return "", false
		}
	}
	return "", false
}

// readProgram reads the program file, or stdin for "-".
func readProgram(name string) ([]byte, error) {
	if name == "-" {
		return io.ReadAll(os.Stdin)
	}
	return os.ReadFile(name)
}

func follow(script string) int {
	sc := bufio.NewScanner(strings.NewReader(script))
	for sc.Scan() {
		op, arg, _ := strings.Cut(strings.TrimSpace(sc.Text()), " ")
		if code, done := step(op, arg); done {
			return code
		}
	}
	return 0
}

// step runs one operation; done says the process ends with code.
func step(op, arg string) (code int, done bool) {
	n, _ := strconv.Atoi(arg)
	switch op {
	case "", "#":
	case "print":
		fmt.Println(arg)
	case "eprint":
		fmt.Fprintln(os.Stderr, arg)
	case "env":
		if v, ok := os.LookupEnv(arg); ok {
			fmt.Println(arg + "=" + v)
		} else {
			fmt.Println(arg + " unset")
		}
	case "cwd":
		wd, _ := os.Getwd()
		fmt.Println(wd)
	case "stdin":
		_, _ = io.Copy(os.Stdout, os.Stdin)
	case "flood":
		_, _ = os.Stdout.WriteString(strings.Repeat("x", n))
	case "pid":
		fmt.Println("pid", os.Getpid())
	case "exit":
		return n, true
	case "tree":
		tree(n)
	case "orphans":
		orphans(n)
	case "procs":
		procs(n)
	case "alloc":
		alloc(n)
	case "memerror":
		fmt.Fprint(os.Stderr, "Traceback (most recent call last):\n  File \"x.py\", line 1, in <module>\nMemoryError\n")
		return 1, true
	case "png":
		if err := writePNG(arg); err != nil {
			fmt.Fprintln(os.Stderr, "testproc: png:", err)
			return 1, true
		}
	case "exists":
		_, err := os.Stat(os.ExpandEnv(arg))
		fmt.Println("exists", map[bool]string{true: "yes", false: "no"}[err == nil])
	case "sleep":
		sleep()
	default:
		fmt.Fprintln(os.Stderr, "testproc: unknown operation", op)
		return 2, true
	}
	return 0, false
}

// tree prints its pid, starts the next level (sharing stdout), and sleeps.
func tree(depth int) {
	fmt.Println("pid", os.Getpid())
	if depth > 0 {
		child := Command("tree " + strconv.Itoa(depth-1))
		child.Stdout, child.Stderr = os.Stdout, os.Stderr
		if err := child.Start(); err != nil {
			fmt.Fprintln(os.Stderr, "testproc: tree:", err)
		}
	}
	sleep()
}

// orphans starts "tree depth-1", passes on its depth pids, and exits,
// leaving the tree behind.
func orphans(depth int) {
	child := Command("tree " + strconv.Itoa(depth-1))
	out, err := child.StdoutPipe()
	if err == nil {
		err = child.Start()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "testproc: orphans:", err)
		return
	}
	sc := bufio.NewScanner(out)
	for i := 0; i < depth && sc.Scan(); i++ {
		fmt.Println(sc.Text())
	}
}

// procs starts n sleeping children and says how many it could.
func procs(n int) {
	started := 0
	for range n {
		if err := Command("sleep").Start(); err != nil {
			fmt.Println("refused:", err)
			break
		}
		started++
	}
	fmt.Println("started", started)
}

// alloc allocates and touches mib MiB, one MiB at a time, and keeps it.
func alloc(mib int) {
	var keep [][]byte
	for range mib {
		b := make([]byte, 1<<20)
		for i := range b {
			if i%4096 == 0 {
				b[i] = 1
			}
		}
		keep = append(keep, b)
	}
	fmt.Println("allocated", len(keep))
}

// writePNG writes a small picture, as a program that draws would.
func writePNG(name string) error {
	f, err := os.Create(name)
	if err != nil {
		return err
	}
	img := image.NewGray(image.Rect(0, 0, 7, 5))
	if err := png.Encode(f, img); err != nil {
		_ = f.Close()
		return err
	}
	return f.Close()
}

func sleep() {
	for { // until killed; a bare select{} would die as a deadlock
		time.Sleep(time.Hour)
	}
}
