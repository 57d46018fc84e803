//go:build unix

package cli

import (
	"fmt"
	"os/exec"
	"syscall"
)

// runOpener starts argv[0] with url and waits for it, in a session of its
// own (Ctrl-C on loopforge does not reach a browser it started) and with its
// output discarded (browsers are chatty; the URL line stays clean).
func runOpener(argv []string, url string) error {
	cmd := exec.Command(argv[0], append(argv[1:], url)...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s: %w", argv[0], err)
	}
	return nil
}
