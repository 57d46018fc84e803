package procgroup

import (
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"
)

// HeadTail is the capped buffer behind a child's output streams: it keeps
// the first head bytes and the last tail bytes written to it and counts the
// rest. The tail matters as much as the head: a program that floods
// warnings and then dies puts the traceback at the end. It is safe for
// concurrent writers (the stdout and stderr copiers of one command may
// share one), and Write never fails: refusing bytes would make os/exec
// close the pipe and the child die of SIGPIPE, hiding the real outcome.
type HeadTail struct {
	headMax  int
	overflow int64  // OnOverflow's limit; 0 = none
	onOver   func() // called once when total passes overflow

	mu      sync.Mutex
	head    []byte
	ring    []byte // the last len(ring) bytes after the head, circular
	ringPos int    // next write position in ring
	ringLen int    // valid bytes in ring
	total   int64
	over    bool
}

// NewHeadTail returns a buffer that keeps the first head and the last tail
// bytes written to it (tail 0: the head only).
func NewHeadTail(head, tail int) *HeadTail {
	return &HeadTail{
		headMax: head,
		head:    make([]byte, 0, min(head, 64<<10)),
		ring:    make([]byte, tail),
	}
}

// OnOverflow makes Write call f once, after the write that takes the total
// past limit (the sandbox kills a run that floods its output). Set it before
// the first Write. It returns b.
func (b *HeadTail) OnOverflow(limit int64, f func()) *HeadTail {
	b.overflow, b.onOver = limit, f
	return b
}

// Write keeps what fits in the head and the tail; it never fails.
func (b *HeadTail) Write(p []byte) (int, error) {
	n := len(p)
	b.mu.Lock()
	b.total += int64(n)
	if room := b.headMax - len(b.head); room > 0 {
		k := min(room, len(p))
		b.head = append(b.head, p[:k]...)
		p = p[k:]
	}
	b.writeRing(p)
	hit := !b.over && b.overflow > 0 && b.total > b.overflow
	if hit {
		b.over = true
	}
	b.mu.Unlock()
	if hit && b.onOver != nil {
		b.onOver()
	}
	return n, nil
}

func (b *HeadTail) writeRing(p []byte) {
	size := len(b.ring)
	if size == 0 || len(p) == 0 {
		return
	}
	if len(p) >= size {
		copy(b.ring, p[len(p)-size:])
		b.ringPos, b.ringLen = 0, size
		return
	}
	k := copy(b.ring[b.ringPos:], p)
	copy(b.ring, p[k:])
	b.ringPos = (b.ringPos + len(p)) % size
	b.ringLen = min(b.ringLen+len(p), size)
}

// Parts returns copies of the kept head and tail and the number of bytes
// dropped between them.
func (b *HeadTail) Parts() (head, tail []byte, dropped int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	head = append([]byte(nil), b.head...)
	tail = make([]byte, 0, b.ringLen)
	if b.ringLen < len(b.ring) {
		tail = append(tail, b.ring[:b.ringLen]...)
	} else {
		tail = append(append(tail, b.ring[b.ringPos:]...), b.ring[:b.ringPos]...)
	}
	return head, tail, b.total - int64(len(head)) - int64(len(tail))
}

// Head returns a copy of the kept head.
func (b *HeadTail) Head() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]byte(nil), b.head...)
}

// Total is the number of bytes written, kept or not.
func (b *HeadTail) Total() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.total
}

// Dropped is the number of bytes written but not kept.
func (b *HeadTail) Dropped() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.total - int64(len(b.head)) - int64(b.ringLen)
}

// OmittedMark is what String puts between the head and the tail when bytes
// were dropped; %d is their number.
const OmittedMark = "\n…[%d bytes omitted]…\n"

// String is Text(OmittedMark).
func (b *HeadTail) String() string { return b.Text(OmittedMark) }

// Text is the kept text as valid UTF-8 (invalid bytes become U+FFFD): the
// head and the tail, and between them, when bytes were dropped, mark
// formatted with their number. A rune split by a cut is dropped (and
// counted as omitted) rather than turned into two replacement marks.
func (b *HeadTail) Text(mark string) string {
	head, tail, omitted := b.Parts()
	if omitted <= 0 {
		return validUTF8(string(head) + string(tail))
	}
	h := cutIncompleteEnd(head)
	t := cutContinuationStart(tail)
	omitted += int64(len(head)-len(h)) + int64(len(tail)-len(t))
	var s strings.Builder
	s.Grow(len(h) + len(t) + len(mark) + 20)
	s.Write(h)
	fmt.Fprintf(&s, mark, omitted)
	s.Write(t)
	return validUTF8(s.String())
}

func validUTF8(s string) string {
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
