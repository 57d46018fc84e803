package owner

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A child process (this test binary re-executed) claims an id, prints it and
// waits for its stdin to close.
func TestMain(m *testing.M) {
	if dir := os.Getenv("OWNER_TEST_CHILD"); dir != "" {
		c, err := New(dir)
		if err != nil {
			os.Stdout.WriteString("error " + err.Error() + "\n")
			os.Exit(1)
		}
		os.Stdout.WriteString(c.ID() + "\n")
		_, _ = bufio.NewReader(os.Stdin).ReadString('\n')
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func startChild(t *testing.T, dir string) (*exec.Cmd, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "OWNER_TEST_CHILD="+dir)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stdin.Close() })
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || strings.HasPrefix(line, "error") {
		t.Fatalf("child: %q %v", line, err)
	}
	return cmd, strings.TrimSpace(line)
}

func alive(t *testing.T, dir, id string) bool {
	t.Helper()
	ok, err := Alive(dir, id)
	if err != nil {
		t.Fatal(err)
	}
	return ok
}

func TestKilledOwnerIsGone(t *testing.T) {
	dir := t.TempDir()
	a, idA := startChild(t, dir)
	_, idB := startChild(t, dir)
	if !alive(t, dir, idA) || !alive(t, dir, idB) {
		t.Fatal("live owners reported gone")
	}
	if err := a.Process.Kill(); err != nil { // SIGKILL: no chance to clean up
		t.Fatal(err)
	}
	_ = a.Wait()
	if alive(t, dir, idA) {
		t.Fatal("a SIGKILLed owner is reported alive")
	}
	if _, err := os.Stat(filepath.Join(dir, idA+".lock")); !os.IsNotExist(err) {
		t.Errorf("the dead owner's lock file was not removed: %v", err)
	}
	if !alive(t, dir, idB) {
		t.Fatal("checking a dead owner disturbed a live one")
	}
}

func TestOwnProcessAndRelease(t *testing.T) {
	dir := t.TempDir()
	c, err := New(dir)
	if err != nil {
		t.Fatal(err)
	}
	// Checking our own id from the same process must not take our lock.
	if !alive(t, dir, c.ID()) || !alive(t, dir, c.ID()) { //nolint:staticcheck // SA4000: twice on purpose: the first check leaves no lock
		t.Fatal("own claim reported gone")
	}
	if err := c.Release(); err != nil {
		t.Fatal(err)
	}
	if alive(t, dir, c.ID()) {
		t.Fatal("released claim reported alive")
	}
}

func TestUnknownIDsAreGone(t *testing.T) {
	dir := t.TempDir()
	for _, id := range []string{"", "nobody", "../x", ".hidden"} {
		if alive(t, dir, id) {
			t.Errorf("Alive(%q) = true", id)
		}
	}
}

// A tag is ours only in the owners directory that made it: in another
// one, a live owner's lock file is missing and Alive would call it gone.
func TestTagAlive(t *testing.T) {
	dir, other := t.TempDir(), t.TempDir()
	live, err := New(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer live.Release()
	a, idA := startChild(t, dir)
	tagA := dirDigest(dir) + "-" + idA
	check := func(dir, tag string, wantOurs, wantAlive bool) {
		t.Helper()
		ours, alive, err := TagAlive(dir, tag)
		if err != nil || ours != wantOurs || alive != wantAlive {
			t.Errorf("TagAlive(%s) = ours %v alive %v err %v, want ours %v alive %v", tag, ours, alive, err, wantOurs, wantAlive)
		}
	}
	check(dir, live.Tag(), true, true)
	check(dir, tagA, true, true)
	check(other, live.Tag(), false, false)
	if err := a.Process.Kill(); err != nil { // SIGKILL
		t.Fatal(err)
	}
	_ = a.Wait()
	check(dir, tagA, true, false)
	check(other, tagA, false, false)
	for _, bad := range []string{"", idA, dirDigest(dir), dirDigest(dir) + "-", dirDigest(dir) + "-../x", dirDigest(dir) + "-123"} {
		check(dir, bad, false, false)
	}
}
