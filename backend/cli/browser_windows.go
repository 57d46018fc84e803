package cli

import (
	"fmt"

	"golang.org/x/sys/windows"
)

// hasDisplay: a Windows session has a desktop for the browser (or window).
func hasDisplay() bool { return true }

// openURL opens url in the default browser through the shell, as a double
// click on a link would: no command line to quote (the URL has a token and
// may have &), no console window.
func openURL(url string) error {
	verb, err := windows.UTF16PtrFromString("open")
	if err != nil {
		return err
	}
	target, err := windows.UTF16PtrFromString(url)
	if err != nil {
		return err
	}
	if err := windows.ShellExecute(0, verb, target, nil, nil, windows.SW_SHOWNORMAL); err != nil {
		return fmt.Errorf("ShellExecute: %w", err)
	}
	return nil
}
