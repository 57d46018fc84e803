package procgroup

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"
)

func TestHeadTail(t *testing.T) {
	tests := []struct {
		name       string
		head, tail int
		writes     []string
		wantHead   string
		wantTail   string
		want       string // String()
	}{
		{"empty", 4, 4, nil, "", "", ""},
		{"fits in head", 4, 4, []string{"abc"}, "abc", "", "abc"},
		{"fits in head and tail", 4, 4, []string{"abcd", "efgh"}, "abcd", "efgh", "abcdefgh"},
		{"small writes wrap the ring", 2, 3, []string{"a", "b", "c", "d", "e", "f", "g"}, "ab", "efg", "ab\n…[2 bytes omitted]…\nefg"},
		{"one big write", 2, 3, []string{"abcdefghij"}, "ab", "hij", "ab\n…[5 bytes omitted]…\nhij"},
		{"no tail", 3, 0, []string{"abcdef"}, "abc", "", "abc\n…[3 bytes omitted]…\n"},
		{"no head", 0, 3, []string{"abcdef"}, "", "def", "\n…[3 bytes omitted]…\ndef"},
		// "é" is 2 bytes and "€" 3: cuts inside them drop the partial rune
		// and count it as omitted instead of printing replacement marks.
		{"rune split at both cuts", 2, 2, []string{"aé", "xxxx", "€"}, "a\xc3", "\x82\xac", "a\n…[9 bytes omitted]…\n"},
		{"invalid bytes replaced", 8, 8, []string{"a\xffb"}, "a\xffb", "", "a\uFFFDb"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := NewHeadTail(tc.head, tc.tail)
			var n int64
			for _, w := range tc.writes {
				if got, err := b.Write([]byte(w)); got != len(w) || err != nil {
					t.Fatalf("Write = %d, %v", got, err)
				}
				n += int64(len(w))
			}
			head, tail, dropped := b.Parts()
			wantDropped := n - int64(len(tc.wantHead)+len(tc.wantTail))
			if string(head) != tc.wantHead || string(tail) != tc.wantTail || dropped != wantDropped {
				t.Errorf("Parts = %q, %q, %d; want %q, %q, %d", head, tail, dropped, tc.wantHead, tc.wantTail, wantDropped)
			}
			if b.Total() != n || b.Dropped() != wantDropped || string(b.Head()) != tc.wantHead {
				t.Errorf("Total %d, Dropped %d, Head %q", b.Total(), b.Dropped(), b.Head())
			}
			got := b.String()
			if got != tc.want {
				t.Errorf("String = %q, want %q", got, tc.want)
			}
			if !utf8.ValidString(got) {
				t.Errorf("String %q is not valid UTF-8", got)
			}
		})
	}
}

func TestHeadTailText(t *testing.T) {
	b := NewHeadTail(2, 2)
	b.Write([]byte("abcdefg"))
	if got := b.Text(" [%d] "); got != "ab [3] fg" {
		t.Errorf("Text = %q", got)
	}
}

func TestHeadTailOnOverflowOnce(t *testing.T) {
	calls := 0
	b := NewHeadTail(4, 4).OnOverflow(10, func() { calls++ })
	for range 2 {
		b.Write([]byte("abcd"))
	}
	if calls != 0 {
		t.Errorf("onOverflow called at 8 bytes of 10")
	}
	for range 3 {
		b.Write([]byte("abcd"))
	}
	if calls != 1 {
		t.Errorf("onOverflow called %d times, want 1", calls)
	}
	if b.Total() != 20 {
		t.Errorf("total %d, want every byte counted", b.Total())
	}
}

// Writers in parallel (a command's stdout and stderr copiers sharing a
// buffer): every byte is counted, and each kept write is whole, as each
// Write holds the lock throughout. Run with -race.
func TestHeadTailConcurrentWriters(t *testing.T) {
	const writers, writes = 4, 500
	b := NewHeadTail(64, 64)
	var wg sync.WaitGroup
	for w := range writers {
		line := bytes.Repeat([]byte{byte('a' + w)}, 7)
		line = append(line, '\n')
		wg.Go(func() {
			for range writes {
				b.Write(line)
			}
		})
	}
	wg.Wait()
	head, tail, dropped := b.Parts()
	if total := int64(writers * writes * 8); b.Total() != total || dropped != total-128 {
		t.Errorf("total %d, dropped %d", b.Total(), dropped)
	}
	for _, part := range [][]byte{head, tail} {
		for line := range strings.Lines(string(part)) {
			if len(line) == 8 && strings.Count(line, line[:1]) != 7 {
				t.Errorf("interleaved write %q", line)
			}
		}
	}
}
