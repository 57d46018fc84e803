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
	if !alive(t, dir, c.ID()) || !alive(t, dir, c.ID()) {
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
