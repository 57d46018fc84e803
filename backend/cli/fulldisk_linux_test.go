package cli

import (
	"context"
	"encoding/json"
	"errors"
	"iter"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/loopforge/loopforge/backend/config"
	"github.com/loopforge/loopforge/backend/event"
	"github.com/loopforge/loopforge/backend/provider"
	"github.com/loopforge/loopforge/backend/service"
	"github.com/loopforge/loopforge/backend/store"
)

// fillingModel fills the disk at filler once the run has started (the
// history is open and the run recorded), then streams more text than the
// disk could hold, so the run's events cannot be written.
type fillingModel struct{ filler string }

func (fillingModel) Name() string                        { return "fake" }
func (fillingModel) Capabilities() provider.Capabilities { return provider.Capabilities{} }
func (m fillingModel) Stream(ctx context.Context, _ provider.Request) iter.Seq2[provider.Delta, error] {
	return func(yield func(provider.Delta, error) bool) {
		if err := fill(m.filler); err != nil {
			yield(provider.Delta{}, err)
			return
		}
		chunk := strings.Repeat("# padding the answer out\n", 40) // 1 KiB
		var all strings.Builder
		all.WriteString("```python\n")
		for range 4096 { // 4 MiB: twice the disk
			if ctx.Err() != nil {
				return
			}
			all.WriteString(chunk)
			if !yield(provider.Delta{Text: chunk}, nil) {
				return
			}
		}
		all.WriteString("print('ok')\n```\n")
		yield(provider.Delta{Done: &provider.Response{Content: all.String()}}, nil)
	}
}

// fill writes path until the disk is full.
func fill(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	buf := make([]byte, 64<<10)
	for {
		if _, err := f.Write(buf); err != nil {
			if errors.Is(err, syscall.ENOSPC) {
				return nil
			}
			return err
		}
	}
}

// smallDisk mounts a 2 MiB tmpfs for the test, or skips it.
func smallDisk(t *testing.T) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("mounting a small tmpfs to fill needs root")
	}
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size=2m"); err != nil {
		t.Skipf("cannot mount a 2 MiB tmpfs on %s: %v", dir, err)
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(dir, 0); err != nil {
			t.Errorf("unmounting the tmpfs %s: %v", dir, err)
		}
	})
	return dir
}

// TestFullDiskEndsTheJSONStream: a disk that fills during a --json run ends
// the stream with run_finished (status error, code history.disk_full, the
// folder named) although the history could not store it, stderr says it in
// plain words, and once space is freed the next start stores that reason,
// not "the process was stopped".
func TestFullDiskEndsTheJSONStream(t *testing.T) {
	home := smallDisk(t)
	filler := filepath.Join(home, "filler")
	code, stdout, stderr := cliRunModel(t, home, "", fillingModel{filler: filler}, "run", "-p", "fake", "--json", "-n", "1", "x")
	if code != ExitFailed {
		t.Errorf("exit %d, want %d", code, ExitFailed)
	}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	var first, last event.Event
	if err := json.Unmarshal([]byte(lines[0]), &first); err != nil {
		t.Fatalf("first line %q: %v", lines[0], err)
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &last); err != nil {
		t.Fatalf("last line %q: %v", lines[len(lines)-1], err)
	}
	var fin event.RunFinishedPayload
	if last.Type != event.RunFinished || last.Decode(&fin) != nil {
		t.Fatalf("the stream ends with %s, want run_finished:\n%.400s", last.Type, lines[len(lines)-1])
	}
	if fin.Status != event.RunStatusError || fin.ErrorCode != string(service.CodeHistoryFull) ||
		fin.ErrorParams["dir"] != home || !strings.Contains(fin.Error, "the disk holding the history (folder "+home+") is full") {
		t.Errorf("run_finished = %+v, want an error naming the full disk of %s", fin, home)
	}
	if !strings.Contains(stderr, "loopforge: the disk holding the history (folder "+home+") is full") {
		t.Errorf("stderr does not say the disk is full in plain words:\n%s", stderr)
	}

	// Space is back: the next start stores the real reason.
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := cliRunHome(t, home, "", "sessions"); code != ExitOK {
		t.Fatalf("loopforge sessions: exit %d:\n%s", code, stderr)
	}
	st, err := store.Open(context.Background(), filepath.Join(home, "history.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	run, err := st.GetRun(context.Background(), first.RunID)
	if err != nil {
		t.Fatal(err)
	}
	if run.Status != event.RunStatusError || run.ErrorCode != string(service.CodeHistoryFull) || run.Error != fin.Error {
		t.Errorf("stored run: status %s, code %q, error %q; want error, %s, %q", run.Status, run.ErrorCode, run.Error, service.CodeHistoryFull, fin.Error)
	}
	evs, err := st.EventsAfter(context.Background(), first.RunID, 0, 100000)
	if err != nil {
		t.Fatal(err)
	}
	end := evs[len(evs)-1]
	var stored event.RunFinishedPayload
	if end.Type != event.RunFinished || end.Decode(&stored) != nil || stored.Error != fin.Error {
		t.Errorf("the stored stream ends with %s %+v, want run_finished saying %q", end.Type, stored, fin.Error)
	}
	if end.Seq < last.Seq {
		t.Errorf("the stored run_finished has seq %d, below the %d the client saw", end.Seq, last.Seq)
	}
	if left, _ := os.ReadDir(filepath.Join(home, "ends")); len(left) > 0 {
		t.Errorf("the recorded end was not removed once stored: %v", left)
	}
}

// TestFullDiskHumanLine: without --json, the run's end is one plain line on
// stderr naming the full disk, exit 1.
func TestFullDiskHumanLine(t *testing.T) {
	home := smallDisk(t)
	code, _, stderr := cliRunModel(t, home, "", fillingModel{filler: filepath.Join(home, "filler")}, "run", "-p", "fake", "-n", "1", "x")
	if code != ExitFailed {
		t.Errorf("exit %d, want %d", code, ExitFailed)
	}
	want := "error: the disk holding the history (folder " + home + ") is full: free some space there\n"
	if !strings.Contains(stderr, want) {
		t.Errorf("stderr does not end the run with %q:\n%s", want, stderr)
	}
	t.Logf("stderr:\n%s", stderr)
}

// TestFullDiskEndStoredInTheSameProcess: once space is back, the next run
// of the same process stores the end the history could not take (no
// restart needed).
func TestFullDiskEndStoredInTheSameProcess(t *testing.T) {
	home := smallDisk(t)
	filler := filepath.Join(home, "filler")
	cfg, err := config.Load(config.Options{Workdir: t.TempDir(), LookupEnv: func(k string) (string, bool) {
		if k == "LOOPFORGE_HOME" {
			return home, true
		}
		return "", false
	}})
	if err != nil {
		t.Fatal(err)
	}
	cfg.Profiles["full"] = provider.Profile{Name: "full", Kind: "full"}
	cfg.Profiles["ok"] = provider.Profile{Name: "ok", Kind: "ok"}
	reg := service.DefaultRegistry()
	reg["full"] = func(provider.Profile) (provider.Provider, error) { return fillingModel{filler: filler}, nil }
	reg["ok"] = func(provider.Profile) (provider.Provider, error) { return okModel{}, nil }
	ctx := context.Background()
	svc, err := service.New(ctx, service.Options{Config: cfg, Registry: reg})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	start := func(prov string) *store.Run {
		info, err := svc.StartRun(ctx, service.RunRequest{Prompt: "x", Provider: prov, MaxIterations: 1})
		if err != nil {
			t.Fatalf("%s: %v", prov, err)
		}
		run, _ := svc.Wait(ctx, info.RunID)
		if run == nil {
			t.Fatalf("%s: no run", prov)
		}
		return run
	}
	first := start("full")
	if first.ErrorCode != string(service.CodeHistoryFull) {
		t.Fatalf("the run on a full disk ended with %s %q, want %s", first.Status, first.Error, service.CodeHistoryFull)
	}
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	start("ok")
	d, err := svc.Session(ctx, first.SessionID)
	if err != nil {
		t.Fatal(err)
	}
	if got := d.Runs[0]; got.Status != event.RunStatusError || got.ErrorCode != string(service.CodeHistoryFull) {
		t.Errorf("stored: %s %q (code %q), want the disk-full error", got.Status, got.Error, got.ErrorCode)
	}
	if left, _ := os.ReadDir(filepath.Join(home, "ends")); len(left) > 0 {
		t.Errorf("reservations left beside the history: %v", left)
	}
}
