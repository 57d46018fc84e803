package sandbox

import (
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"
)

// capture is the io.Writer behind one output stream. It keeps the first
// head bytes and the last tail bytes, counts everything, and calls onCap once
// when the total passes hardCap. The tail matters as much as the head: a
// program that floods warnings and then dies puts the traceback at the end.
//
// It never returns an error: refusing bytes would make os/exec close the pipe
// and the child die of SIGPIPE, hiding the real outcome.
type capture struct {
	headMax int
	hardCap int64
	onCap   func()

	mu      sync.Mutex // os/exec writes from its copy goroutine; Run reads after Wait
	head    []byte
	ring    []byte // last len(ring) bytes after the head, circular
	ringPos int    // next write position in ring
	ringLen int    // valid bytes in ring
	total   int64
	capHit  bool
}

func newCapture(head, tail int, hardCap int64, onCap func()) *capture {
	return &capture{
		headMax: head,
		hardCap: hardCap,
		onCap:   onCap,
		head:    make([]byte, 0, min(head, 64*kib)),
		ring:    make([]byte, tail),
	}
}

func (c *capture) Write(p []byte) (int, error) {
	n := len(p)
	c.mu.Lock()
	c.total += int64(n)
	if room := c.headMax - len(c.head); room > 0 {
		k := min(room, len(p))
		c.head = append(c.head, p[:k]...)
		p = p[k:]
	}
	c.writeRing(p)
	hit := !c.capHit && c.hardCap > 0 && c.total > c.hardCap
	if hit {
		c.capHit = true
	}
	c.mu.Unlock()
	if hit && c.onCap != nil {
		c.onCap()
	}
	return n, nil
}

func (c *capture) writeRing(p []byte) {
	size := len(c.ring)
	if size == 0 || len(p) == 0 {
		return
	}
	if len(p) >= size {
		copy(c.ring, p[len(p)-size:])
		c.ringPos, c.ringLen = 0, size
		return
	}
	k := copy(c.ring[c.ringPos:], p)
	copy(c.ring, p[k:])
	c.ringPos = (c.ringPos + len(p)) % size
	c.ringLen = min(c.ringLen+len(p), size)
}

// tailBytes returns the ring contents in order.
func (c *capture) tailBytes() []byte {
	out := make([]byte, 0, c.ringLen)
	if c.ringLen < len(c.ring) {
		return append(out, c.ring[:c.ringLen]...)
	}
	out = append(out, c.ring[c.ringPos:]...)
	return append(out, c.ring[:c.ringPos]...)
}

// result returns the kept text, the total byte count and whether bytes were
// dropped. Invalid UTF-8 becomes U+FFFD; a rune split by the cut is dropped
// (and counted as omitted) rather than turned into two replacement marks.
func (c *capture) result() (text string, total int64, truncated bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	head, tail := c.head, c.tailBytes()
	omitted := c.total - int64(len(head)) - int64(len(tail))
	if omitted <= 0 {
		return sanitize(string(head) + string(tail)), c.total, false
	}
	h := cutIncompleteEnd(head)
	t := cutContinuationStart(tail)
	omitted += int64(len(head)-len(h)) + int64(len(tail)-len(t))
	var b strings.Builder
	b.Grow(len(h) + len(t) + 40)
	b.Write(h)
	fmt.Fprintf(&b, "\n…[%d bytes omitted]…\n", omitted)
	b.Write(t)
	return sanitize(b.String()), c.total, true
}

func sanitize(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}

// cutIncompleteEnd drops a multi-byte sequence that the head cut in half.
func cutIncompleteEnd(b []byte) []byte {
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				return b[:i]
			}
			return b
		}
	}
	return b
}

// cutContinuationStart drops the continuation bytes of a rune whose start
// fell into the omitted part.
func cutContinuationStart(b []byte) []byte {
	i := 0
	for i < len(b) && i < utf8.UTFMax-1 && !utf8.RuneStart(b[i]) {
		i++
	}
	return b[i:]
}
