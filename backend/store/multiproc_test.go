package store

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/loopforge/loopforge/backend/event"
)

// openChildEnv names the history a child process of this test binary opens
// (and then writes to) before exiting; see TestMain.
const openChildEnv = "LOOPFORGE_STORE_TEST_OPEN"

func TestMain(m *testing.M) {
	if path := os.Getenv(openChildEnv); path != "" {
		os.Exit(openChild(path))
	}
	os.Exit(m.Run())
}

// openChild is what each child process does: open the history as every
// loopforge command does, write one session and close it, several times over
// — each close may be the file's last, which is the moment another process's
// open used to fail.
func openChild(path string) int {
	ctx := context.Background()
	for range childOpens {
		s, err := Open(ctx, path)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		err = s.CreateSession(ctx, &Session{Title: "child", Prompt: "p", Mode: "script", Kind: event.ModeScript})
		if cerr := s.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	return 0
}

const childOpens = 5

// Several processes open the same new history at once (a class of students'
// terminals, or the desktop and a terminal run started together): each must
// wait for the one that creates and migrates it, never fail with "database is
// locked". Repeated over fresh files because the race is at creation.
func TestManyProcessesOpenNewHistory(t *testing.T) {
	const files, procs = 8, 8
	for f := range files {
		path := filepath.Join(t.TempDir(), "history.db")
		var wg sync.WaitGroup
		errs := make([]string, procs)
		for p := range procs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				cmd := exec.Command(os.Args[0], "-test.run=^$")
				cmd.Env = append(os.Environ(), openChildEnv+"="+path)
				if out, err := cmd.CombinedOutput(); err != nil {
					errs[p] = fmt.Sprintf("%v: %s", err, out)
				}
			}()
		}
		wg.Wait()
		for p, e := range errs {
			if e != "" {
				t.Errorf("file %d, process %d: %s", f, p, e)
			}
		}
		s, err := Open(context.Background(), path)
		if err != nil {
			t.Fatalf("file %d: %v", f, err)
		}
		n := count(t, s, `SELECT COUNT(*) FROM sessions`)
		s.Close()
		if n != procs*childOpens {
			t.Errorf("file %d: %d sessions stored, want %d", f, n, procs*childOpens)
		}
	}
}
