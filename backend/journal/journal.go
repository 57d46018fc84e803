// Package journal is the event log of runs: it numbers each run's events,
// writes them to the history and hands them to subscribers, and replays them
// to a subscriber that joins late or reconnects. It knows nothing of what a
// run does (backend/service runs them and checks who may read them).
//
// # Contract
//
//   - Numbering. A run's events carry seq 1, 2, 3… in the order Run.Emit was
//     called. A subscription from seq n (Journal.Subscribe) delivers every
//     event of the run with seq > n exactly once, in seq order, with no gap:
//     first what the store holds, then what was published but is not stored
//     yet, then live events, until run_finished.
//   - Stored before shown. An event reaches subscribers only once the store
//     holds it and everything before it, in one transaction with the
//     iteration rows it changes — except the high-volume events (token,
//     exec_output), which are published at once and written together within
//     a window (Options.Window, DefaultWindow by default; one window, and
//     one transaction, for all runs: window.go). So a
//     subscriber that sees run_finished (or generated, exec_finished…) can
//     count on the history holding everything up to it, and the store always
//     holds a prefix of the stream: a crash loses a tail, never a middle.
//   - Pace. Emit never waits for the store unless Options.MaxUnsaved events
//     are already waiting (then the producer waits for their write): a
//     run's pace depends neither on the disk nor on other runs sharing it.
//   - A seq that was shown is never reused. A process killed mid-stream
//     (kill -9) may have published tokens the store never got. The next
//     process's recovery (store.MarkInterrupted) numbers the run's end
//     store.SeqGap past the last seq stored, and this package never
//     publishes an event more than store.SeqGap past the last seq stored (a
//     token beyond it waits for the store like any other event). A page that
//     saw the last token and reconnects from its seq therefore still gets
//     the run's end.
//   - The end. Run.Close writes what is left, publishes it and ends every
//     subscription. If that last write fails (a full disk) the events are
//     published all the same, run_finished last, and Close returns the error:
//     a face that never saw run_finished could not tell its user why the run
//     stopped. Its caller keeps that run_finished's seq (Run.Seq) so that the
//     end is stored under it later (backend/service records it beside the
//     history; store.Ending).
//
// Why a gap and not a durable reservation (writing "seqs up to N are taken"
// before publishing seq N): a reservation puts a disk write back on the token
// path, at least once per block, so a run's pace would again depend on the
// disk, and it needs a column the recovery reads. The gap costs nothing while
// a run streams: the bound is checked in memory when an event is published,
// and the recovery needs only the last stored seq, which it reads anyway.
// Seqs are compared, never counted (clients resume "after the last seq seen"
// and drop what is not above it), so the hole in a recovered run's numbering
// is invisible. The bound holds whatever the window, MaxUnsaved, the number
// of goroutines emitting, or a disk that refuses writes; in ordinary use
// (MaxUnsaved 1024, SeqGap 4096) it never holds a token back.
//
// # Concurrency
//
// Each Run has two locks. flushMu serialises the run's writes (that is what
// makes the store hold a prefix) and guards its iteration rows; mu guards
// the rest (seqs, the unsaved events, subscribers) and is never held during
// a store write except the last one, in Close. Lock order: flushMu, then mu.
// Journal.mu guards the open runs and is never held with a Run's locks.
//
// The writes of all runs go through one group commit (committer): a run
// whose batch is ready while another transaction is under way waits for it,
// then goes in the next one with every other batch that waited meanwhile.
// In a class burst, that turns one transaction per run and event into one
// per commit time; a run's events still reach the store in seq order, since
// flushMu lets a run have one batch in flight at a time.
package journal

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/loopforge/loopforge/backend/event"
	"github.com/loopforge/loopforge/backend/store"
)

// Store is what the journal needs of the history (a *store.Store).
type Store interface {
	// AppendEvents commits events (of one run or several, each run's in
	// seq order) and the iteration rows they change, all or none.
	AppendEvents(ctx context.Context, events []event.Event, its ...store.Iteration) error
	// EventsAfter returns up to limit stored events of the run with seq >
	// after, in seq order.
	EventsAfter(ctx context.Context, runID string, after int64, limit int) ([]event.Event, error)
}

// DefaultWindow is how long token events wait to be written together.
const DefaultWindow = 30 * time.Millisecond

// DefaultMaxUnsaved bounds the events given a seq but not yet written: past
// it the producer writes them itself (and so waits for the store) instead of
// letting memory, and what a crash would lose, grow. It is below
// store.SeqGap, so the gap never holds a token back with the defaults.
const DefaultMaxUnsaved = 1024

// SubscriberBuffer is how many live events a subscriber may fall behind
// before it is dropped. A dropped subscriber resubscribes from its last seq
// and catches up from the store, so nothing is lost; the run never waits for
// it.
const SubscriberBuffer = 4096

// replayPage is how many stored events a subscription reads at a time.
const replayPage = 500

// writeTimeout bounds one write of a run's events. A cancelled run still
// records its last events, so writes use a context of their own.
const writeTimeout = 10 * time.Second

// ErrDropped ends a subscription whose reader fell too far behind.
var ErrDropped = errors.New("subscriber fell behind and was dropped")

// ErrClosed: the run's log, or the journal, is closed.
var ErrClosed = errors.New("journal closed")

// Options for New; the zero value gives the defaults.
type Options struct {
	// Window is how long token and exec_output events may wait to be
	// written together (they reach subscribers at once): 0 means
	// DefaultWindow; a negative value writes every event before it is
	// published, one transaction each.
	Window time.Duration
	// MaxUnsaved: 0 means DefaultMaxUnsaved.
	MaxUnsaved int
}

// Journal holds the logs of the runs of one history.
type Journal struct {
	st         Store
	commits    committer // every write of the runs' events goes through it
	win        tokenWindow
	window     time.Duration
	maxUnsaved int
	closing    chan struct{} // closed by Close: subscriptions stop
	// wg counts background writes and subscriptions; Add happens under mu
	// while !shut (or, for writes, on a Run that is not closed), so Close's
	// Wait never races an Add.
	wg   sync.WaitGroup
	mu   sync.Mutex
	open map[string]*Run // the runs whose log is open, by ID
	shut bool
}

// New makes the journal of st.
func New(st Store, o Options) *Journal {
	j := &Journal{st: st, commits: committer{st: st}, window: o.Window, maxUnsaved: o.MaxUnsaved, closing: make(chan struct{}), open: map[string]*Run{}}
	if j.window == 0 {
		j.window = DefaultWindow
	}
	if j.maxUnsaved <= 0 {
		j.maxUnsaved = DefaultMaxUnsaved
	}
	return j
}

// Open starts the log of a new run (recorded in the store, with no event
// yet). Its first event gets seq 1.
func (j *Journal) Open(runID string) *Run {
	r := &Run{j: j, id: runID, subs: map[*subscriber]struct{}{}, rows: iterRows{runID: runID, byN: map[int]*store.Iteration{}}}
	j.mu.Lock()
	j.open[runID] = r
	j.mu.Unlock()
	return r
}

func (j *Journal) forget(r *Run) {
	j.mu.Lock()
	if j.open[r.id] == r {
		delete(j.open, r.id)
	}
	j.mu.Unlock()
}

// Close ends every subscription and waits for them and for the background
// writes. Close every Run first: a run still open may still start writes.
func (j *Journal) Close() {
	j.mu.Lock()
	if !j.shut {
		j.shut = true
		close(j.closing)
	}
	j.mu.Unlock()
	j.stopWindow()
	j.wg.Wait()
}

// publishedFirst says whether e is published before it is written.
func (j *Journal) publishedFirst(e event.Event) bool {
	return j.window > 0 && (e.Type == event.Token || e.Type == event.ExecOutput)
}

// write commits evs (of one run, in seq order) and the rows they change,
// in a transaction it may share with other runs' writes (committer).
func (j *Journal) write(evs []event.Event, rows []store.Iteration) error {
	return j.commits.write(evs, rows)
}
