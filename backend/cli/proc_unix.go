//go:build unix

package cli

import (
	"errors"
	"io/fs"
	"os"
	"runtime"
	"syscall"
)

// desktopFile is the desktop build's file name.
const desktopFile = DesktopName

// execProcess replaces this process with path (the desktop build).
func execProcess(path string, argv, envv []string) error { return syscall.Exec(path, argv, envv) }

// isExecutable reports whether fi is a file this system would run.
func isExecutable(fi fs.FileInfo) bool { return fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0 }

// hasDisplay reports whether a window can be opened: an X11 or Wayland
// display on Linux; macOS always has its own.
func hasDisplay() bool {
	return runtime.GOOS == "darwin" || os.Getenv("DISPLAY") != "" || os.Getenv("WAYLAND_DISPLAY") != ""
}

// addrInUse reports whether a listen failed because the port is taken.
func addrInUse(err error) bool { return errors.Is(err, syscall.EADDRINUSE) }
