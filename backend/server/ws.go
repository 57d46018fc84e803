package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"
	"github.com/loopforge/loopforge/backend/access"
	"github.com/loopforge/loopforge/backend/event"
	"github.com/loopforge/loopforge/backend/service"
	"github.com/loopforge/loopforge/backend/wire"
)

// Websocket protocol (one socket per client, any number of runs; the types
// are wire.StreamRequest and backend/event.Event):
//
//	client → server  {"op":"subscribe","run_id":"…","after":N}   events with seq > N
//	                 {"op":"unsubscribe","run_id":"…"}
//	                 {"op":"subscribe_class"}   the class stream (class mode; see wsclass.go)
//	server → client  event envelopes {type, run_id, seq, ts, payload}, in seq order per run;
//	                 {"type":"error","run_id":"…","payload":{"message":"…"}} for a bad subscription;
//	                 {"type":"class_state"|"wall","payload":…} on the class stream.
//
// A student's subscriptions are checked one by one: another student's run
// answers "error" exactly as a missing one does. A removed student's
// sockets are closed.
//
// A client that cannot keep up is disconnected (close code 1013); it
// reconnects and resubscribes from the last seq it saw, losing nothing.
//
// The server pings every Options.PingInterval (default 30 s); a pong or any
// message from the client extends the read deadline to two intervals from
// then, so a client that has gone away without closing (a sleeping laptop, a
// dropped network) is disconnected within about two intervals. Every write
// has a deadline too.

const (
	wsSendBuffer = 1024
	wsWriteWait  = 10 * time.Second
	wsPingEvery  = 30 * time.Second
	wsReadLimit  = 64 << 10
)

type wsConn struct {
	ws       *websocket.Conn
	send     chan []byte
	ctx      context.Context
	cancel   context.CancelFunc
	ping     time.Duration // how often the server pings
	readWait time.Duration // how long the client may stay silent: two pings
	mu       sync.Mutex
	// subs holds the subscriptions still streaming, by run id; each leaves
	// when its run ends, it fails or it is replaced or unsubscribed.
	subs    map[string]*wsSub
	open    *atomic.Int64 // the server's count of entries in all subs maps
	wg      sync.WaitGroup
	overrun sync.Once
}

// wsSub is one subscription; its identity tells a replaced subscription's
// goroutine that the map entry is no longer its own.
type wsSub struct {
	stop context.CancelFunc
}

func (s *Server) websocket(w http.ResponseWriter, r *http.Request) {
	up := websocket.Upgrader{
		ReadBufferSize:  4096,
		WriteBufferSize: 16 << 10,
		// ServeHTTP already refused foreign origins; check again so this
		// handler is safe on its own.
		CheckOrigin: s.originAllowed,
	}
	ws, err := up.Upgrade(w, r, nil)
	if err != nil {
		return // the upgrader has answered the client
	}
	// The socket outlives the upgrade request; its caller goes with it, and
	// every subscription is checked against it.
	caller := access.From(r.Context())
	ctx, cancel := context.WithCancel(access.With(context.Background(), caller))
	ping := s.opts.PingInterval
	if ping <= 0 {
		ping = wsPingEvery
	}
	c := &wsConn{ws: ws, send: make(chan []byte, wsSendBuffer), ctx: ctx, cancel: cancel,
		ping: ping, readWait: 2 * ping, subs: map[string]*wsSub{}, open: &s.wsSubs}
	ws.SetReadLimit(wsReadLimit)
	c.extendRead()
	ws.SetPongHandler(func(string) error { c.extendRead(); return nil })
	go c.writeLoop()
	if caller.IsStudent() {
		c.closeWhenGone(s.opts.Backend.StudentGone(caller.StudentID))
	}
	c.readLoop(s.opts.Backend)
	cancel()
	c.wg.Wait()
}

// extendRead gives the client two ping intervals more to say something (a
// pong counts).
func (c *wsConn) extendRead() {
	_ = c.ws.SetReadDeadline(time.Now().Add(c.readWait))
}

// readLoop handles client requests until the socket closes or the client
// stays silent past the read deadline.
func (c *wsConn) readLoop(b *service.Service) {
	for {
		var req wire.StreamRequest
		if err := c.ws.ReadJSON(&req); err != nil {
			return
		}
		c.extendRead()
		switch req.Op {
		case wire.StreamOpSubscribe:
			c.subscribe(b, req.RunID, req.After)
		case wire.StreamOpSubscribeClass:
			c.subscribeClass(b)
		case wire.StreamOpUnsubscribe:
			c.mu.Lock()
			if sub := c.subs[req.RunID]; sub != nil {
				sub.stop()
				c.remove(req.RunID, sub)
			}
			c.mu.Unlock()
		default:
			c.fail(req.RunID, coded(service.CodeBadInput, fmt.Sprintf("unknown op %q", req.Op), "detail", fmt.Sprintf("unknown op %q", req.Op)))
		}
	}
}

// remove deletes runID's entry if it is still sub; c.mu is held.
func (c *wsConn) remove(runID string, sub *wsSub) {
	if c.subs[runID] == sub {
		delete(c.subs, runID)
		c.open.Add(-1)
	}
}

func (c *wsConn) subscribe(b *service.Service, runID string, after int64) {
	ctx, stop := context.WithCancel(c.ctx)
	sub := &wsSub{stop: stop}
	c.mu.Lock()
	if old := c.subs[runID]; old != nil {
		old.stop() // a resubscribe replaces the old one
		c.remove(runID, old)
	}
	c.subs[runID] = sub
	c.open.Add(1)
	c.mu.Unlock()

	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		defer func() {
			// A finished subscription leaves the map (unless a resubscribe
			// has replaced it already).
			stop()
			c.mu.Lock()
			c.remove(runID, sub)
			c.mu.Unlock()
		}()
		last := after
		for {
			sub, err := b.Subscribe(ctx, runID, last)
			if err != nil {
				c.fail(runID, wire.ErrorOf(err))
				return
			}
			for e := range sub.C {
				last = e.Seq
				if !c.push(e) {
					return
				}
				if e.Terminal() {
					return
				}
			}
			// Fell behind the run: catch up from the store.
			if !errors.Is(sub.Err(), service.ErrDropped) || ctx.Err() != nil {
				return
			}
		}
	}()
}

// push queues one event; a full queue means the client is too slow, and it
// is disconnected rather than allowed to hold the run back.
func (c *wsConn) push(e event.Event) bool {
	b, err := json.Marshal(e)
	if err != nil {
		return false
	}
	return c.pushBytes(b)
}

// pushBytes queues one message (see push).
func (c *wsConn) pushBytes(b []byte) bool {
	select {
	case c.send <- b:
		return true
	case <-c.ctx.Done():
		return false
	default:
		c.overrun.Do(func() {
			deadline := time.Now().Add(time.Second)
			_ = c.ws.WriteControl(websocket.CloseMessage,
				websocket.FormatCloseMessage(websocket.CloseTryAgainLater, "client too slow; resubscribe from the last seq"), deadline)
			c.cancel()
			_ = c.ws.Close()
		})
		return false
	}
}

// fail reports a subscription the server cannot serve.
func (c *wsConn) fail(runID string, e wire.ErrorBody) {
	payload, _ := json.Marshal(wire.StreamErrorPayload{Message: e.Error, Code: e.Code, Params: e.Params})
	c.push(event.Event{Type: wire.StreamErrorType, RunID: runID, Payload: payload})
}

// writeLoop is the only writer of the socket (gorilla allows one).
func (c *wsConn) writeLoop() {
	ping := time.NewTicker(c.ping)
	defer ping.Stop()
	defer c.ws.Close()
	for {
		select {
		case b := <-c.send:
			_ = c.ws.SetWriteDeadline(time.Now().Add(wsWriteWait))
			if err := c.ws.WriteMessage(websocket.TextMessage, b); err != nil {
				c.cancel()
				return
			}
		case <-ping.C:
			if err := c.ws.WriteControl(websocket.PingMessage, nil, time.Now().Add(wsWriteWait)); err != nil {
				c.cancel()
				return
			}
		case <-c.ctx.Done():
			return
		}
	}
}
