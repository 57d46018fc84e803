package journal

import (
	"sync"
	"time"

	"github.com/loopforge/loopforge/backend/event"
	"github.com/loopforge/loopforge/backend/store"
)

// tokenWindow is the journal's window for the events published before they
// are written (tokens, exec_output): one for all runs. The first such event
// of a run with none waiting puts the run in it; one Options.Window after
// the first run came in, every run in it is written in one transaction. A
// class streaming forty answers at once would otherwise have forty windows
// ending each at its own moment, too far apart to share a group commit, and
// pay a transaction each.
type tokenWindow struct {
	// ending serialises endWindow: a window that ends while the last one
	// still writes may hold some of the same runs, and two holders of
	// several flushMus each could wait for each other.
	ending sync.Mutex
	mu     sync.Mutex
	runs   []*Run
	timer  *time.Timer
}

// inWindow adds r to the window, opening one if none is open. r.mu is held
// (lock order: a Run's mu, then the window's).
func (j *Journal) inWindow(r *Run) {
	w := &j.win
	w.mu.Lock()
	defer w.mu.Unlock()
	w.runs = append(w.runs, r)
	if len(w.runs) > 1 {
		return
	}
	if w.timer == nil {
		w.timer = time.AfterFunc(j.window, j.endWindow)
	} else {
		w.timer.Reset(j.window)
	}
}

// stopWindow stops the window's timer (Journal.Close: the runs are closed,
// so it would write nothing).
func (j *Journal) stopWindow() {
	j.win.mu.Lock()
	if j.win.timer != nil {
		j.win.timer.Stop()
	}
	j.win.mu.Unlock()
}

// part is one run's share of a window's write.
type part struct {
	r    *Run
	evs  []event.Event
	rows []store.Iteration
}

// endWindow writes the events of every run in the window, in one
// transaction; if the store refuses it for what a part holds (refused),
// each run's part is written alone, so that one run's refused batch fails
// that run only. Each run's flushMu
// is held from its take to its settle (a run has one write in flight);
// endWindow is the only holder of several, one at a time (ending), and
// waits for nothing that needs another's.
func (j *Journal) endWindow() {
	j.win.ending.Lock()
	defer j.win.ending.Unlock()
	j.win.mu.Lock()
	runs := j.win.runs
	j.win.runs = nil
	j.win.mu.Unlock()

	parts := make([]part, 0, len(runs))
	var evs []event.Event
	var rows []store.Iteration
	seen := make(map[*Run]bool, len(runs))
	for _, r := range runs {
		// A run whose batch a flush took after it came in may have come in
		// again: its flushMu is taken once.
		if seen[r] {
			continue
		}
		seen[r] = true
		r.flushMu.Lock()
		batch := r.take()
		if len(batch) == 0 {
			r.flushMu.Unlock()
			continue
		}
		p := part{r: r, evs: batch, rows: r.rows.track(batch)}
		parts = append(parts, p)
		evs, rows = append(evs, p.evs...), append(rows, p.rows...)
	}
	if len(parts) == 0 {
		return
	}
	groupErr := j.write(evs, rows)
	for _, p := range parts {
		err := groupErr
		if refused(err) && len(parts) > 1 {
			err = j.write(p.evs, p.rows)
		}
		if err != nil {
			p.r.failed(err)
		} else {
			p.r.settle(len(p.evs))
		}
		p.r.flushMu.Unlock()
	}
}
