package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/loopforge/loopforge/backend/service"
	"github.com/loopforge/loopforge/backend/testwait"
)

// noCommand is `loopforge` with no command, run in the background by a CLI
// build whose directory has no desktop build, on a display, serving on a
// free loopback port with a real service; the browser it opens is recorded.
type noCommand struct {
	e       *env
	stderr  *lockedBuffer
	opened  chan string
	cancel  context.CancelFunc
	done    chan int
	started []string // what exec was asked to start
}

func newNoCommand(t *testing.T) *noCommand {
	t.Helper()
	t.Setenv("DISPLAY", ":99")
	t.Setenv(NoBrowserVar, "")
	t.Setenv("BROWSER", "")
	dir := t.TempDir()
	n := &noCommand{stderr: &lockedBuffer{}, opened: make(chan string, 1), done: make(chan int, 1)}
	n.e = &env{stdin: strings.NewReader(""), stderr: n.stderr, newService: tempService(t), serveAddr: "127.0.0.1:0",
		self: func() (string, error) { return filepath.Join(dir, "loopforge"), nil },
		exec: func(path string, _, _ []string) error { n.started = append(n.started, path); return nil },
		openBrowser: func(url string) error {
			n.opened <- url
			return nil
		}}
	return n
}

// start runs the command and returns the URL it printed on stdout.
func (n *noCommand) start(t *testing.T) string {
	t.Helper()
	outR, outW := io.Pipe()
	n.e.stdout = outW
	ctx, cancel := context.WithCancel(context.Background())
	n.cancel = cancel
	go func() {
		code := n.e.main(ctx, nil)
		outW.Close()
		n.done <- code
	}()
	t.Cleanup(cancel)
	var url []string
	for sc := bufio.NewScanner(outR); url == nil && sc.Scan(); {
		url = servingURL.FindStringSubmatch(sc.Text())
	}
	if url == nil {
		t.Fatalf("no URL printed (exit %d); stderr:\n%s", <-n.done, n.stderr.String())
	}
	go io.Copy(io.Discard, outR) // never block the server on stdout
	return url[0]
}

// stop ends the server as Ctrl-C does and returns the exit code.
func (n *noCommand) stop() int {
	n.cancel()
	return <-n.done
}

// token is the access token in the printed url.
func (n *noCommand) token(t *testing.T, url string) string {
	t.Helper()
	_, tok, ok := strings.Cut(url, "?token=")
	if !ok || tok == "" {
		t.Fatalf("no token in %q", url)
	}
	return tok
}

// get fetches url without following the redirect the token visit answers.
func get(t *testing.T, url string) int {
	t.Helper()
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// TestNoCommandWithoutTheDesktopBuildOpensTheBrowser: the macOS and arm64
// packages have no desktop build: `loopforge` serves the web UI as `serve`
// does, prints its URL and opens the same server in the browser, with a
// one-time launch code in place of the token.
func TestNoCommandWithoutTheDesktopBuildOpensTheBrowser(t *testing.T) {
	n := newNoCommand(t)
	url := n.start(t)
	var opened string
	select {
	case opened = <-n.opened:
	case code := <-n.done:
		t.Fatalf("exited %d before opening a browser; stderr:\n%s", code, n.stderr.String())
	}
	base, _, _ := strings.Cut(url, "?")
	if !strings.HasPrefix(opened, base+"?launch=") || strings.Contains(opened, n.token(t, url)) {
		t.Fatalf("the browser was given %q; want %s?launch=… without the token of %q", opened, base, url)
	}
	// The launch visit sets the cookie once; a second use is refused.
	if code := get(t, opened); code != http.StatusSeeOther {
		t.Fatalf("GET the launch URL: %d, want 303", code)
	}
	if code := get(t, opened); code != http.StatusUnauthorized {
		t.Fatalf("GET the launch URL again: %d, want 401", code)
	}
	// The printed URL works as `serve`'s does.
	if code := get(t, url); code != http.StatusSeeOther {
		t.Fatalf("GET the URL: %d, want 303", code)
	}
	if code := n.stop(); code != ExitOK {
		t.Fatalf("exit %d after Ctrl-C; stderr:\n%s", code, n.stderr.String())
	}
	for _, want := range []string{"no desktop window here (", desktopFile + " is missing); serving the web UI instead", "opening it in your browser; press Ctrl-C to stop"} {
		if !strings.Contains(n.stderr.String(), want) {
			t.Errorf("stderr does not say %q:\n%s", want, n.stderr.String())
		}
	}
	if len(n.started) > 0 {
		t.Errorf("exec started %q", n.started)
	}
}

// TestNoCommandWhenTheBrowserWillNotOpen: the URL is printed first, and a
// browser that fails to open is reported; the server goes on.
func TestNoCommandWhenTheBrowserWillNotOpen(t *testing.T) {
	n := newNoCommand(t)
	n.e.openBrowser = func(string) error { return errors.New("xdg-open: exit status 3") }
	url := n.start(t)
	testwait.Until(t, "the failure to be reported", time.Minute, func() bool {
		return strings.Contains(n.stderr.String(), "could not open a browser (xdg-open: exit status 3): open that URL in one")
	})
	if code := get(t, url); code != http.StatusSeeOther {
		t.Fatalf("GET the URL after the browser failed: %d, want 303", code)
	}
	if code := n.stop(); code != ExitOK {
		t.Fatalf("exit %d", code)
	}
}

// TestNoCommandWithTheBrowserTurnedOff: LOOPFORGE_NO_BROWSER=1 and
// BROWSER=none serve and print the URL without opening anything.
func TestNoCommandWithTheBrowserTurnedOff(t *testing.T) {
	for _, tt := range []struct{ name, key, value, says string }{
		{"LOOPFORGE_NO_BROWSER", NoBrowserVar, "1", NoBrowserVar + " is set"},
		{"BROWSER=none", "BROWSER", "none", "BROWSER=none"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			n := newNoCommand(t)
			t.Setenv(tt.key, tt.value)
			n.e.openBrowser = func(url string) error {
				t.Errorf("a browser was opened with %s", tt.name)
				return nil
			}
			url := n.start(t)
			if code := get(t, url); code != http.StatusSeeOther {
				t.Fatalf("GET the URL: %d, want 303", code)
			}
			if code := n.stop(); code != ExitOK {
				t.Fatalf("exit %d", code)
			}
			if want := "open that URL in a browser (" + tt.says + "); press Ctrl-C to stop"; !strings.Contains(n.stderr.String(), want) {
				t.Errorf("stderr does not say %q:\n%s", want, n.stderr.String())
			}
		})
	}
}

// TestNoCommandWithoutADisplay: on Linux with no display, `loopforge`
// serves the web UI and prints its URL, as `make run` does without a
// display; no browser is opened (xdg-open would pick a text one here), and
// the desktop build is not tried.
func TestNoCommandWithoutADisplay(t *testing.T) {
	if runtime.GOOS == "darwin" || runtime.GOOS == "windows" {
		t.Skip("a display is always there on " + runtime.GOOS)
	}
	n := newNoCommand(t)
	t.Setenv("DISPLAY", "")
	t.Setenv("WAYLAND_DISPLAY", "")
	n.e.openBrowser = func(string) error {
		t.Error("a browser was opened with no display")
		return nil
	}
	url := n.start(t)
	if code := get(t, url); code != http.StatusSeeOther {
		t.Fatalf("GET the URL: %d, want 303", code)
	}
	if code := n.stop(); code != ExitOK {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{"no display found for the desktop window; serving the web UI instead", "no display to open a browser on: open that URL in a browser on this machine"} {
		if !strings.Contains(n.stderr.String(), want) {
			t.Errorf("stderr does not say %q:\n%s", want, n.stderr.String())
		}
	}
	if len(n.started) > 0 {
		t.Errorf("exec started %q", n.started)
	}
}

// TestDesktopBuildThatCannotOpenItsWindow: the desktop build whose window
// cannot open on this display (GTK's init fails: a DISPLAY that is gone)
// serves the web UI instead of panicking in Wails; the window is never
// tried and the browser gets the UI.
func TestDesktopBuildThatCannotOpenItsWindow(t *testing.T) {
	n := newNoCommand(t)
	n.e.faces.Desktop = func(*service.Service, fs.FS) error {
		t.Error("the window was opened although the check failed")
		return nil
	}
	n.e.faces.WindowCheck = func() error { return fmt.Errorf("%w: GTK cannot open the display \":99\"", ErrNoWindow) }
	url := n.start(t)
	if opened := <-n.opened; !strings.Contains(opened, "?launch=") {
		t.Fatalf("the browser was given %q", opened)
	}
	if code := get(t, url); code != http.StatusSeeOther {
		t.Fatalf("GET the URL: %d, want 303", code)
	}
	if code := n.stop(); code != ExitOK {
		t.Fatalf("exit %d; stderr:\n%s", code, n.stderr.String())
	}
	if want := `no window can open here: GTK cannot open the display ":99"; serving the web UI instead`; !strings.Contains(n.stderr.String(), want) {
		t.Errorf("stderr does not say %q:\n%s", want, n.stderr.String())
	}
}
