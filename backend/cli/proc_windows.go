package cli

import (
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"os/signal"
	"syscall"

	"golang.org/x/sys/windows"
)

// desktopFile is the desktop build's file name.
const desktopFile = DesktopName + ".exe"

// execProcess stands in for Unix's exec, which Windows lacks: it runs path
// with this process's arguments, environment and standard streams and
// waits for it; a nonzero exit status comes back as an *exitError, which
// Main turns into this process's own. A Ctrl-C in the console reaches
// both: the child decides, this process only waits for it.
func execProcess(path string, argv, envv []string) error {
	cmd := &exec.Cmd{Path: path, Args: argv, Env: envv, Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr}
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt)
	defer signal.Stop(sigs)
	if err := cmd.Start(); err != nil {
		return err
	}
	_ = cmd.Wait() // only the status matters: the streams are the child's own
	if code := cmd.ProcessState.ExitCode(); code != 0 {
		return &exitError{code: code}
	}
	return nil
}

// isExecutable reports whether fi is a file this system would run: on
// Windows the name says so (desktopFile ends with .exe), not mode bits.
func isExecutable(fi fs.FileInfo) bool { return fi.Mode().IsRegular() }

// hasDisplay: a Windows session always has one.
func hasDisplay() bool { return true }

// addrInUse reports whether a listen failed because the port is taken
// (Winsock's own error number, not the one syscall invents for Windows).
func addrInUse(err error) bool {
	return errors.Is(err, windows.WSAEADDRINUSE) || errors.Is(err, syscall.EADDRINUSE)
}
