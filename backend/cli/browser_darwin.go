package cli

// hasDisplay: a Mac always has a screen for the browser (or the window).
func hasDisplay() bool { return true }

// openURL opens url in the default browser: open(1) hands it to Launch
// Services and returns.
func openURL(url string) error { return runOpener([]string{"open"}, url) }
