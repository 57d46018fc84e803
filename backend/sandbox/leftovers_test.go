package sandbox

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
)

func TestLeftoverOwner(t *testing.T) {
	for name, want := range map[string]string{
		"loopforge-run-ab12-7-0123456789abcdef01234567-123456": "ab12-7-0123456789abcdef01234567",
		"loopforge-pyhook-x-9":                                 "x",
		"loopforge-prog-x-9":                                   "x",
		"loopforge-run-123456":                                 "", // untagged: an older loopforge's
		"loopforge-run-x-":                                     "",
		"loopforge-run-x-12a":                                  "",
		"loopforge-run-a.b-1":                                  "",
		"loopforge-probe-x-1":                                  "",
		"other-x-1":                                            "",
		"loopforge-run--1":                                     "",
	} {
		if got := leftoverOwner(name); got != want {
			t.Errorf("leftoverOwner(%q) = %q, want %q", name, got, want)
		}
	}
	for _, owner := range []string{"", "a", "ab12-7-x"} {
		if err := checkOwner(owner); err != nil {
			t.Errorf("checkOwner(%q): %v", owner, err)
		}
		dir, err := os.MkdirTemp(t.TempDir(), tempPattern(kindRun, owner))
		if err != nil {
			t.Fatal(err)
		}
		if got := leftoverOwner(filepath.Base(dir)); got != owner {
			t.Errorf("a dir made for %q is read as %q's", owner, got)
		}
	}
	for _, bad := range []string{"../x", "a/b", "-a", "a-", "a b"} {
		if checkOwner(bad) == nil {
			t.Errorf("checkOwner(%q) accepted", bad)
		}
	}
}

// Only tagged directories whose owner is confirmed dead go; a link under a
// leftover's name is not followed.
func TestRemoveLeftovers(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	t.Cleanup(func() { removeWorkdir(root) }) // before TempDir's: read-only dirs
	mk := func(name string) {
		if err := os.MkdirAll(filepath.Join(root, name, "sub"), 0o700); err != nil {
			t.Fatal(err)
		}
		// The figure hook is read-only, and code may lock its dirs.
		if err := os.WriteFile(filepath.Join(root, name, "sub", "f"), []byte("x"), 0o444); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(filepath.Join(root, name, "sub"), 0o500); err != nil {
			t.Fatal(err)
		}
	}
	mk("loopforge-run-dead-1")
	mk("loopforge-pyhook-dead-2")
	mk("loopforge-run-live-3")
	mk("loopforge-run-unsure-4")
	mk("loopforge-run-5")
	// Windows lets only some users make links, and Wine's call succeeds
	// without making one: the link case is checked where there is a link.
	link := filepath.Join(root, "loopforge-run-dead-6")
	_ = os.Symlink(outside, link)
	_, err := os.Lstat(link)
	linked := err == nil
	if !linked && runtime.GOOS != "windows" {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "loopforge-run-dead-7"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	asked := map[string]int{}
	n, err := RemoveLeftovers(root, func(owner string) (bool, error) {
		asked[owner]++
		switch owner {
		case "dead":
			return true, nil
		case "unsure":
			return true, os.ErrPermission // an error is never a verdict
		}
		return false, nil
	})
	if err != nil || n != 2 {
		t.Fatalf("RemoveLeftovers = %d, %v; want 2 removed", n, err)
	}
	if asked["dead"] != 1 {
		t.Errorf("the dead owner was asked about %d times, want once", asked["dead"])
	}
	entries, _ := os.ReadDir(root)
	var left []string
	for _, e := range entries {
		left = append(left, e.Name())
	}
	want := []string{"loopforge-run-5", "loopforge-run-dead-6", "loopforge-run-dead-7", "loopforge-run-live-3", "loopforge-run-unsure-4"}
	if !linked {
		want = slices.DeleteFunc(want, func(n string) bool { return n == "loopforge-run-dead-6" })
	}
	if !slices.Equal(left, want) {
		t.Errorf("left %v, want %v", left, want)
	}
	if _, err := os.Stat(outside); err != nil {
		t.Errorf("the link's target was touched: %v", err)
	}
}
