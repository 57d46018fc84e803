//go:build unix && !darwin

package cli

import (
	"os"
	"path/filepath"
	"testing"
)

// TestOpenURLRunsXdgOpen: the URL reaches the desktop's opener as its one
// argument, whole (a real process: a stand-in xdg-open on PATH).
func TestOpenURLRunsXdgOpen(t *testing.T) {
	bin, got := t.TempDir(), filepath.Join(t.TempDir(), "args")
	script := "#!/bin/sh\nprintf '%s\\n' \"$#\" \"$1\" > " + got + "\n"
	if err := os.WriteFile(filepath.Join(bin, "xdg-open"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	url := "http://127.0.0.1:8765/?token=0123abcd&x=1"
	if err := openURL(url); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(got)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != "1\n"+url+"\n" {
		t.Fatalf("xdg-open got %q, want one argument %q", b, url)
	}
}

// TestOpenURLReportsAFailingOpener: an opener that fails (no browser
// configured) is an error naming it.
func TestOpenURLReportsAFailingOpener(t *testing.T) {
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "xdg-open"), []byte("#!/bin/sh\nexit 3\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin)
	if err := openURL("http://127.0.0.1:1/"); err == nil || err.Error() != "xdg-open: exit status 3" {
		t.Fatalf("err %v, want xdg-open: exit status 3", err)
	}
}
