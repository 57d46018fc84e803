package journal

import (
	"context"
	"errors"
	"sync"

	"github.com/loopforge/loopforge/backend/event"
	"github.com/loopforge/loopforge/backend/store"
)

// committer is the journal's group commit: the batches that runs want
// written while a transaction is under way wait, and the next transaction
// carries them all. A class of forty runs would otherwise pay forty
// BEGIN…COMMITs where one does (the history has a single write connection,
// so they would only have queued for it one by one anyway); a lone run
// pays nothing more, its batch going at once when no commit is in progress.
//
// There is no goroutine of its own: the writer whose batch arrives when no
// commit is in progress leads, writes its group and hands the lead to the
// oldest writer that waits, if any (so a leader's caller waits for its own
// batch only). The committer never takes a Run's locks, so it adds no lock
// order; a run's flushMu still keeps one batch of that run in flight at a
// time, so each run's events reach the store in seq order.
type committer struct {
	st Store

	mu      sync.Mutex
	leading bool       // a writer is committing a group
	waiting []*pending // the batches for the next group, oldest first
}

// pending is one run's batch: its events (in seq order) and the iteration
// rows they change. wake is closed when err is set, or earlier when it is
// this batch's writer's turn to lead (lead is then true).
type pending struct {
	evs  []event.Event
	rows []store.Iteration
	err  error
	lead bool
	wake chan struct{}
}

// write commits evs and rows (of one run, or of a window's runs: each
// run's events in seq order) with whatever other runs want written at the
// same time, and returns once they are in the store, or
// why they are not.
func (c *committer) write(evs []event.Event, rows []store.Iteration) error {
	p := &pending{evs: evs, rows: rows, wake: make(chan struct{})}
	c.mu.Lock()
	if c.leading {
		c.waiting = append(c.waiting, p)
		c.mu.Unlock()
		<-p.wake
		if !p.lead {
			return p.err
		}
		c.mu.Lock() // our turn: the group starts with p, still in waiting
	} else {
		c.leading = true
		c.waiting = append(c.waiting, p)
	}
	group := c.waiting
	c.waiting = nil
	c.mu.Unlock()

	c.commit(group)

	c.mu.Lock()
	if len(c.waiting) > 0 {
		next := c.waiting[0]
		next.lead = true
		close(next.wake)
	} else {
		c.leading = false
	}
	c.mu.Unlock()
	return p.err
}

// commit writes group in one transaction and sets each batch's error,
// waking its writer. If the store refuses the transaction for what one of
// its batches holds (refused), each is written again alone, so that one
// run's refused batch fails that run only.
func (c *committer) commit(group []*pending) {
	err := c.append(group)
	for _, p := range group {
		p.err = err
	}
	if refused(err) && len(group) > 1 {
		for _, p := range group {
			p.err = c.append([]*pending{p})
		}
	}
	for _, p := range group {
		if !p.lead { // a leader was woken already
			close(p.wake)
		}
	}
}

// refused says whether err is the store refusing a row (a seq already
// stored, a run that is not there): a fault of one batch, which the others
// should not share. Any other error (a busy or full disk) would meet each
// batch alone as well, so the group is not written again piece by piece.
func refused(err error) bool {
	return errors.Is(err, store.ErrDuplicate) || errors.Is(err, store.ErrNotFound)
}

// append commits the batches of group in one transaction.
func (c *committer) append(group []*pending) error {
	evs, rows := group[0].evs, group[0].rows
	if len(group) > 1 {
		evs, rows = nil, nil
		for _, p := range group {
			evs = append(evs, p.evs...)
			rows = append(rows, p.rows...)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), writeTimeout)
	defer cancel()
	return c.st.AppendEvents(ctx, evs, rows...)
}
