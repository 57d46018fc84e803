package service

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/loopforge/loopforge/backend/access"
	"github.com/loopforge/loopforge/backend/store"
)

// A repeat started from the app (StartRepeat) runs in the background, as
// the CLI's `compare --repeat` runs in the foreground (both are Repeat);
// the app follows it with RepeatStatus, which waits for the next change.

// RepeatState is where a repeat started from the app is.
type RepeatState string

const (
	RepeatRunning   RepeatState = "running"
	RepeatDone      RepeatState = "done"
	RepeatCancelled RepeatState = "cancelled"
	RepeatFailed    RepeatState = "failed" // a round could not start: Err says why
)

// RepeatStatus is a repeat's progress and its summary so far.
type RepeatStatus struct {
	ID string
	// Version grows with every change; RepeatStatus(after) waits for one
	// larger than after.
	Version   int
	State     RepeatState
	Repeat    int // rounds asked, clamped
	ReflectAB bool
	Providers []string
	Prompt    string
	// Round of Rounds is the round running (or the last); Reflect its
	// setting, Runs its runs.
	Round, Rounds int
	Reflect       bool
	Runs          []RunInfo
	// RunsDone of RunsTotal: runs ended, of every round's.
	RunsDone, RunsTotal int
	// Sessions are the rounds' comparison sessions, in order.
	Sessions []string
	// Groups summarise the rounds ended so far (SummarizeRepeats).
	Groups []RepeatGroup
	Err    error // RepeatFailed's cause
}

// repeatPoll bounds how long RepeatStatus waits for a change: under any
// proxy's idle timeout, and the caller simply asks again.
const repeatPoll = 25 * time.Second

// keptRepeats is how many ended repeats stay readable.
const keptRepeats = 8

type repeatJob struct {
	cancel  context.CancelFunc
	mu      sync.Mutex
	st      RepeatStatus
	samples []RepeatSample
	changed chan struct{} // closed and replaced at each change
}

// update changes the status under the lock and wakes the waiters.
func (j *repeatJob) update(f func(st *RepeatStatus)) {
	j.mu.Lock()
	defer j.mu.Unlock()
	f(&j.st)
	j.st.Version++
	close(j.changed)
	j.changed = make(chan struct{})
}

func (j *repeatJob) snapshot() (RepeatStatus, <-chan struct{}) {
	j.mu.Lock()
	defer j.mu.Unlock()
	st := j.st
	st.Runs = append([]RunInfo(nil), st.Runs...)
	st.Sessions = append([]string(nil), st.Sessions...)
	st.Groups = append([]RepeatGroup(nil), st.Groups...)
	return st, j.changed
}

func (j *repeatJob) observer() RepeatObserver {
	return RepeatObserver{
		Started: func(r RepeatRound) {
			j.update(func(st *RepeatStatus) {
				st.Round, st.Reflect, st.Runs = r.Round, r.Reflect, r.Info.Runs
				st.Sessions = append(st.Sessions, r.Info.SessionID)
			})
		},
		RunEnded: func(RepeatRound, string) {
			j.update(func(st *RepeatStatus) { st.RunsDone++ })
		},
		Ended: func(r RepeatRound, rows []ComparisonRow) {
			j.update(func(st *RepeatStatus) {
				for _, row := range rows {
					j.samples = append(j.samples, RepeatSample{Row: row, Reflect: r.Reflect})
				}
				st.Groups = SummarizeRepeats(j.samples)
			})
		},
	}
}

func (j *repeatJob) finish(err error) {
	j.update(func(st *RepeatStatus) {
		switch {
		case err == nil:
			st.State = RepeatDone
		case errors.Is(err, ErrCancelled), errors.Is(err, errShutdown):
			st.State = RepeatCancelled
		default:
			st.State, st.Err = RepeatFailed, err
		}
	})
}

// repeatJobs are the repeats started from the app, by id.
type repeatJobs struct {
	mu    sync.Mutex
	byID  map[string]*repeatJob
	order []string
}

func (rs *repeatJobs) add(j *repeatJob) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if rs.byID == nil {
		rs.byID = map[string]*repeatJob{}
	}
	rs.byID[j.st.ID] = j
	rs.order = append(rs.order, j.st.ID)
	// Forget the oldest ended repeats beyond keptRepeats (a running one stays).
	ended := 0
	for i := len(rs.order) - 1; i >= 0; i-- {
		id := rs.order[i]
		st, _ := rs.byID[id].snapshot()
		if st.State == RepeatRunning {
			continue
		}
		if ended++; ended > keptRepeats {
			delete(rs.byID, id)
			rs.order = append(rs.order[:i], rs.order[i+1:]...)
		}
	}
}

func (rs *repeatJobs) get(id string) (*repeatJob, error) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if j := rs.byID[id]; j != nil {
		return j, nil
	}
	return nil, fmt.Errorf("repeat %s: %w", id, store.ErrNotFound)
}

// StartRepeat starts req in the background and returns once its first
// round has started (or could not: its error, and nothing runs). The
// instructor's only: a class's limits are per run, and a repeat is many.
func (s *Service) StartRepeat(ctx context.Context, req RepeatRequest) (RepeatStatus, error) {
	if access.From(ctx).IsStudent() {
		return RepeatStatus{}, instructorOnly("StartRepeat")
	}
	// The repeat outlives the request that started it, with its caller.
	jctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	j := &repeatJob{cancel: cancel, changed: make(chan struct{}), st: RepeatStatus{
		ID: "rp_" + rand.Text()[:12], State: RepeatRunning, Repeat: req.repeat(), ReflectAB: req.ReflectAB,
		Providers: req.Providers, Prompt: req.Prompt, Rounds: req.Rounds(), RunsTotal: req.Rounds() * len(req.Providers)}}
	first := make(chan error, 1)
	var once sync.Once
	signal := func(err error) { once.Do(func() { first <- err }) }
	obs := j.observer()
	started := obs.Started
	obs.Started = func(r RepeatRound) { started(r); signal(nil) }
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer cancel()
		go func() {
			select {
			case <-s.closing:
				cancel()
			case <-jctx.Done():
			}
		}()
		_, err := s.Repeat(jctx, req, obs)
		signal(err)
		j.finish(err)
	}()
	if err := <-first; err != nil {
		return RepeatStatus{}, err
	}
	s.repeats.add(j)
	st, _ := j.snapshot()
	return st, nil
}

// RepeatStatus returns repeat id's status once its Version is past after
// (at once for -1), or it has ended, or repeatPoll has passed.
func (s *Service) RepeatStatus(ctx context.Context, id string, after int) (RepeatStatus, error) {
	if access.From(ctx).IsStudent() {
		return RepeatStatus{}, instructorOnly("Repeat")
	}
	j, err := s.repeats.get(id)
	if err != nil {
		return RepeatStatus{}, err
	}
	timer := time.NewTimer(repeatPoll)
	defer timer.Stop()
	for {
		st, changed := j.snapshot()
		if st.Version > after || st.State != RepeatRunning {
			return st, nil
		}
		select {
		case <-changed:
		case <-timer.C:
			return st, nil
		case <-s.closing:
			return st, nil
		case <-ctx.Done():
			return st, ctx.Err()
		}
	}
}

// CancelRepeat stops repeat id: its round's runs are cancelled and no
// other round starts (RepeatStatus then says cancelled).
func (s *Service) CancelRepeat(ctx context.Context, id string) error {
	if access.From(ctx).IsStudent() {
		return instructorOnly("CancelRepeat")
	}
	j, err := s.repeats.get(id)
	if err != nil {
		return err
	}
	j.cancel()
	return nil
}
