package server

import (
	"encoding/json"
	"time"

	"github.com/gorilla/websocket"
	"github.com/loopforge/loopforge/backend/service"
	"github.com/loopforge/loopforge/backend/wire"
)

// classEnvelope is a message of the class stream.
type classEnvelope struct {
	Type    string `json:"type"`
	Payload any    `json:"payload"`
}

// subscribeClass streams the class to this socket: the class view now and
// on every change, and to the instructor every student's wall line now and
// on every change of it. What changed while the socket was busy arrives
// once, as it is by then (see service.ClassSub).
func (c *wsConn) subscribeClass(b *service.Service) {
	sub, err := b.SubscribeClass(c.ctx)
	if err != nil {
		c.fail("", wire.ErrorOf(err))
		return
	}
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		for {
			select {
			case <-c.ctx.Done():
				return
			case <-sub.C():
			}
			state, students := sub.Take()
			if state {
				v, err := b.ClassView(c.ctx)
				if err != nil || !c.pushJSON(classEnvelope{Type: wire.ClassStateType, Payload: wire.FromClassView(v)}) {
					return
				}
			}
			if len(students) > 0 && !c.pushWall(b, students) {
				return
			}
		}
	}()
}

// pushWall sends the lines of the given students, in join order.
func (c *wsConn) pushWall(b *service.Service, students []string) bool {
	want := map[string]bool{}
	for _, id := range students {
		want[id] = true
	}
	wall, err := b.Wall(c.ctx)
	if err != nil {
		return true // a student's socket: no wall
	}
	for _, e := range wall {
		if want[e.StudentID] && !c.pushJSON(classEnvelope{Type: wire.WallType, Payload: wire.FromWallEntry(e)}) {
			return false
		}
	}
	return true
}

func (c *wsConn) pushJSON(v any) bool {
	b, err := json.Marshal(v)
	if err != nil {
		return false
	}
	return c.pushBytes(b)
}

// closeWhenGone closes the socket when gone is closed (a removed student).
func (c *wsConn) closeWhenGone(gone <-chan struct{}) {
	if gone == nil {
		return
	}
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		select {
		case <-gone:
			_ = c.ws.WriteControl(websocket.CloseMessage,
				websocket.FormatCloseMessage(websocket.ClosePolicyViolation, "removed from the class"), time.Now().Add(time.Second))
			c.cancel()
			_ = c.ws.Close()
		case <-c.ctx.Done():
		}
	}()
}
