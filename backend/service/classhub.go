package service

import (
	"context"
	"sync"

	"github.com/loopforge/loopforge/backend/access"
)

// classHub tells the class's sockets what changed. It never blocks and
// never renders: each subscription keeps a set of what is stale (the class
// view, students' wall lines) and a one-slot signal; its reader takes the
// set and renders the current state itself. A busy reader therefore sees
// several changes as one, and the run that caused them never waits.
type classHub struct {
	mu   sync.Mutex
	subs map[*ClassSub]struct{}
}

func newClassHub() *classHub { return &classHub{subs: map[*ClassSub]struct{}{}} }

// ClassSub is one socket's subscription to the class stream.
type ClassSub struct {
	caller access.Caller
	signal chan struct{}
	mu     sync.Mutex
	state  bool
	wall   map[string]bool
}

// C receives when something is stale; Take then says what.
func (c *ClassSub) C() <-chan struct{} { return c.signal }

// Take returns what changed since the last Take and clears it: whether the
// class view is stale, and which students' wall lines (instructor only).
func (c *ClassSub) Take() (state bool, wall []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	state, c.state = c.state, false
	for id := range c.wall {
		wall = append(wall, id)
	}
	clear(c.wall)
	return state, wall
}

func (c *ClassSub) mark(state bool, student string) {
	c.mu.Lock()
	c.state = c.state || state
	if student != "" {
		c.wall[student] = true
	}
	c.mu.Unlock()
	select {
	case c.signal <- struct{}{}:
	default:
	}
}

// classChanged: every member's class view is stale.
func (h *classHub) classChanged() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for sub := range h.subs {
		sub.mark(true, "")
	}
}

// studentChanged: a student's line (and usage) changed: the instructor's
// wall line and class view (the class's usage), the student's own view.
func (h *classHub) studentChanged(id string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for sub := range h.subs {
		switch {
		case !sub.caller.IsStudent():
			sub.mark(true, id)
		case sub.caller.StudentID == id:
			sub.mark(true, "")
		}
	}
}

// SubscribeClass follows the open class for the caller until ctx ends.
// Everything is stale at first: the class view, and for the instructor
// every student's line.
func (s *Service) SubscribeClass(ctx context.Context) (*ClassSub, error) {
	cr := s.classOf()
	if cr == nil {
		return nil, ErrNoClass
	}
	sub := &ClassSub{caller: access.From(ctx), signal: make(chan struct{}, 1), wall: map[string]bool{}, state: true}
	if !sub.caller.IsStudent() {
		cr.mu.Lock()
		for _, id := range cr.order {
			sub.wall[id] = true
		}
		cr.mu.Unlock()
	}
	sub.signal <- struct{}{}
	cr.hub.mu.Lock()
	cr.hub.subs[sub] = struct{}{}
	cr.hub.mu.Unlock()
	go func() {
		select {
		case <-ctx.Done():
		case <-s.closing:
		}
		cr.hub.mu.Lock()
		delete(cr.hub.subs, sub)
		cr.hub.mu.Unlock()
	}()
	return sub, nil
}
