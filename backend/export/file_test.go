package export

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// listDir names the entries of dir, so a test sees stray temporary files.
func listDir(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		if runtime.GOOS == "windows" {
			t.Skip("symlinks need privileges on Windows")
		}
		t.Fatal(err)
	}
}

func TestWriteFileIntoDirectory(t *testing.T) {
	dir := t.TempDir()
	path, err := WriteFile(dir, "aula.py", []byte("print(1)\n"))
	if err != nil {
		t.Fatal(err)
	}
	if path != filepath.Join(dir, "aula.py") || readFile(t, path) != "print(1)\n" {
		t.Errorf("wrote %s = %q", path, readFile(t, path))
	}
	// No clobbering: the name is taken.
	_, err = WriteFile(dir, "aula.py", []byte("print(2)\n"))
	if !errors.Is(err, ErrExists) {
		t.Errorf("second write: err = %v; want ErrExists", err)
	}
	if readFile(t, path) != "print(1)\n" {
		t.Error("an existing file was replaced")
	}
	// A trailing separator names the same directory.
	if _, err := WriteFile(dir+string(filepath.Separator), "b.md", []byte("x")); err != nil {
		t.Error(err)
	}
	if got := strings.Join(listDir(t, dir), ","); got != "aula.py,b.md" {
		t.Errorf("directory holds %s; want aula.py,b.md (no temporary files)", got)
	}
	info, err := os.Stat(path)
	if err != nil || !info.Mode().IsRegular() {
		t.Errorf("stat: %v %v", info, err)
	}
}

func TestWriteFileExactPath(t *testing.T) {
	dir := t.TempDir()
	dest := filepath.Join(dir, "my handout.html")
	if _, err := WriteFile(dest, "ignored.html", []byte("one")); err != nil {
		t.Fatal(err)
	}
	// The exact path given may be replaced: the user chose it.
	path, err := WriteFile(dest, "ignored.html", []byte("two"))
	if err != nil || path != dest || readFile(t, dest) != "two" {
		t.Errorf("replace: %s %v %q", path, err, readFile(t, dest))
	}
	if got := strings.Join(listDir(t, dir), ","); got != "my handout.html" {
		t.Errorf("directory holds %s", got)
	}
	for _, bad := range []string{filepath.Join(dir, "missing", "x.py"), filepath.Join(dir, "missing") + "/"} {
		if _, err := WriteFile(bad, "x.py", []byte("x")); err == nil {
			t.Errorf("WriteFile(%q) did not fail", bad)
		}
	}
	// A directory in the way of the exact path is written into instead.
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if path, err := WriteFile(filepath.Join(dir, "sub"), "x.py", []byte("x")); err != nil || path != filepath.Join(dir, "sub", "x.py") {
		t.Errorf("into sub: %s %v", path, err)
	}
}

func TestWriteFileCurrentDirectory(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	path, err := WriteFile("", "x.json", []byte("{}"))
	if err != nil || path != "x.json" || readFile(t, filepath.Join(dir, "x.json")) != "{}" {
		t.Errorf("WriteFile(\"\") = %s, %v", path, err)
	}
}

func TestWriteFileRefusesEscapes(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "out")
	outside := filepath.Join(root, "outside")
	for _, d := range []string{dir, outside} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"../escape.py", "..", ".", "a/b.py", "sub/../../escape.py", `..\escape.py`, "/etc/passwd", "", "con"} {
		if _, err := WriteFile(dir, name, []byte("x")); err == nil || !strings.Contains(err.Error(), "unsafe file name") {
			t.Errorf("WriteFile(dir, %q): err = %v; want an unsafe name error", name, err)
		}
	}
	if len(listDir(t, dir))+len(listDir(t, root)) != 2 || len(listDir(t, outside)) != 0 {
		t.Errorf("something was written: %v %v %v", listDir(t, root), listDir(t, dir), listDir(t, outside))
	}
}

func TestWriteFileSymlinks(t *testing.T) {
	root := t.TempDir()
	work := filepath.Join(root, "work")
	real := filepath.Join(work, "real")
	outside := t.TempDir()
	for _, d := range []string{work, real} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	secret := filepath.Join(outside, "bashrc")
	if err := os.WriteFile(secret, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}

	// A directory that links outside its parent (planted in a workdir).
	symlink(t, outside, filepath.Join(work, "exports"))
	for _, dest := range []string{filepath.Join(work, "exports"), filepath.Join(work, "exports") + "/", filepath.Join(work, "exports", "h.md")} {
		_, err := WriteFile(dest, "h.md", []byte("x"))
		if err == nil || !strings.Contains(err.Error(), "symbolic link") {
			t.Errorf("WriteFile(%s): err = %v; want a refusal", dest, err)
		}
	}
	// A directory that links inside its parent is fine.
	symlink(t, "real", filepath.Join(work, "alias"))
	if _, err := WriteFile(filepath.Join(work, "alias"), "ok.md", []byte("ok")); err != nil {
		t.Errorf("link inside the parent: %v", err)
	} else if readFile(t, filepath.Join(real, "ok.md")) != "ok" {
		t.Error("not written through the inside link")
	}

	// A file name that is a link to a file outside: never written through,
	// neither into the directory nor as the exact path.
	symlink(t, secret, filepath.Join(work, "h.md"))
	for _, dest := range []string{work, filepath.Join(work, "h.md")} {
		_, err := WriteFile(dest, "h.md", []byte("pwned"))
		if err == nil || !strings.Contains(err.Error(), "symbolic link") {
			t.Errorf("WriteFile(%s) through a file link: err = %v", dest, err)
		}
	}
	// A dangling link at the exact path, to a file that would be created
	// outside.
	symlink(t, filepath.Join(outside, "new"), filepath.Join(work, "dangling.md"))
	if _, err := WriteFile(filepath.Join(work, "dangling.md"), "x.md", []byte("pwned")); err == nil {
		t.Error("wrote through a dangling link")
	}
	if readFile(t, secret) != "keep" {
		t.Error("the file outside was changed")
	}
	if got := strings.Join(listDir(t, outside), ","); got != "bashrc" {
		t.Errorf("outside holds %s; want only bashrc", got)
	}
}

func TestWriteFileConcurrentNoClobber(t *testing.T) {
	dir := t.TempDir()
	const n = 8
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		wins []string
	)
	for i := range n {
		wg.Go(func() {
			data := strings.Repeat(string(rune('a'+i)), 1000)
			if _, err := WriteFile(dir, "same.txt", []byte(data)); err == nil {
				mu.Lock()
				wins = append(wins, data)
				mu.Unlock()
			} else if !errors.Is(err, ErrExists) {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if len(wins) != 1 || readFile(t, filepath.Join(dir, "same.txt")) != wins[0] {
		t.Errorf("%d writers won; want exactly 1 and its content on disk", len(wins))
	}
	if got := listDir(t, dir); len(got) != 1 {
		t.Errorf("directory holds %v", got)
	}
}

func TestRenderThenWrite(t *testing.T) {
	dir := t.TempDir()
	b := fixture()
	for _, f := range Formats() {
		name, data, err := Render(b, f, "")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := WriteFile(dir, name, data); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	if got := len(listDir(t, dir)); got != len(Formats()) {
		t.Errorf("%d files written; want %d", got, len(Formats()))
	}
}
