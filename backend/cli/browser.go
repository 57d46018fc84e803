package cli

// The web UI in the default browser: what `loopforge` with no command does
// where no window can open, as Jupyter does. That is when there is no
// desktop build next to this executable (the macOS and arm64 packages ship
// none), and on Linux when there is no display. The server is `loopforge
// serve`'s (loopback, a fresh token), and its URL is printed too, for when no
// browser opens.
//
// The opener is small and per OS (browser_*.go) rather than a library:
// github.com/pkg/browser waits for the opener in the foreground, in this
// process's group, with its output on ours, so a browser started through a
// bare xdg-open would hold the call, mix its messages into the URL line and
// die with this process on Ctrl-C. Ours starts the opener detached and
// silent, and reports only whether it worked.

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/loopforge/loopforge/backend/server"
)

// NoBrowserVar set to anything but "", "0" or "false" keeps `loopforge`
// from opening a browser (BROWSER=none does the same): it serves and prints
// the URL only.
const NoBrowserVar = "LOOPFORGE_NO_BROWSER"

// noDesktopError: there is no desktop build next to the CLI build.
type noDesktopError struct{ path string }

func (e *noDesktopError) Error() string {
	return fmt.Sprintf("no desktop window here (%s is missing)", e.path)
}

// orWebUI serves the web UI in the browser when err says that there is no
// desktop build to start; any other err is returned as it is.
func (e *env) orWebUI(ctx context.Context, err error) error {
	if nd, ok := errors.AsType[*noDesktopError](err); ok {
		return e.webUI(ctx, nd.Error())
	}
	return err
}

// webUI serves the web UI as `loopforge serve` does, prints its URL and
// opens it in the default browser when there is one to open; why says why
// there is no window.
func (e *env) webUI(ctx context.Context, why string) error {
	fmt.Fprintf(e.stderr, "loopforge: %s; serving the web UI instead\n", why)
	h, err := e.startServing(ctx, cmp.Or(e.serveAddr, DefaultAddr), false)
	if err != nil {
		return err
	}
	defer h.close()
	fmt.Fprintf(e.stdout, "loopforge is serving at %s\n", h.url())
	e.offerBrowser(h.launchURL())
	return serveUntilSignal(ctx, h.srv, h.ln)
}

// offerBrowser opens url in the default browser, unless the user said not
// to or there is no display to open one on, and says what the user should
// do. The opener runs in the background: serving starts at once.
func (e *env) offerBrowser(url string) {
	const stop = "press Ctrl-C to stop"
	if off := browserOff(); off != "" {
		fmt.Fprintf(e.stderr, "open that URL in a browser (%s); %s\n", off, stop)
		return
	}
	if !hasDisplay() {
		fmt.Fprintf(e.stderr, "no display to open a browser on: open that URL in a browser on this machine; %s\n", stop)
		return
	}
	open := e.openBrowser
	if open == nil {
		open = openURL
	}
	fmt.Fprintf(e.stderr, "opening it in your browser; %s\n", stop)
	go func() {
		if err := open(url); err != nil {
			fmt.Fprintf(e.stderr, "loopforge: could not open a browser (%v): open that URL in one\n", err)
		}
	}()
}

// browserOff says why no browser is to be opened ("" = open one).
func browserOff() string {
	switch v := strings.TrimSpace(os.Getenv(NoBrowserVar)); {
	case v != "" && v != "0" && !strings.EqualFold(v, "false"):
		return NoBrowserVar + " is set"
	case strings.EqualFold(strings.TrimSpace(os.Getenv("BROWSER")), "none"):
		return "BROWSER=none"
	}
	return ""
}

// url is the address to open: the server's with its access token.
func (h *hosting) url() string { return fmt.Sprintf("http://%s/?token=%s", h.ln.Addr(), h.token) }

// launchURL is the address handed to the browser: a one-time code instead
// of the token, since the opener's command line is visible to other users
// (server/launch.go).
func (h *hosting) launchURL() string {
	return fmt.Sprintf("http://%s/?%s=%s", h.ln.Addr(), server.LaunchParam, h.api.LaunchCode())
}
