//go:build unix && !darwin

package cli

import (
	"errors"
	"os"
	"os/exec"
)

// hasDisplay reports whether an X11 or Wayland display is there to open a
// window (or a browser) on. Without one, xdg-open would fall back to a text
// browser in this terminal, which is not what the user asked for.
func hasDisplay() bool { return os.Getenv("DISPLAY") != "" || os.Getenv("WAYLAND_DISPLAY") != "" }

// openURL opens url in the desktop's default browser through xdg-open, else
// Debian's x-www-browser (a graphical browser; www-browser is a text one and
// is left alone).
func openURL(url string) error {
	for _, name := range []string{"xdg-open", "x-www-browser"} {
		if _, err := exec.LookPath(name); err == nil {
			return runOpener([]string{name}, url)
		}
	}
	return errors.New("neither xdg-open nor x-www-browser is installed")
}
