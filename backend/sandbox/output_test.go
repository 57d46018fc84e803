//go:build linux

package sandbox

import (
	"bytes"
	"sync"
	"testing"
	"time"
)

// TestOutputAfterAStarvedEmptyRead: the copy read an empty pipe, then (as
// under load) did not run again until the program's last output had come
// and the drain's stop time had passed. That output must still be read.
func TestOutputAfterAStarvedEmptyRead(t *testing.T) {
	o, err := newOutputPipe()
	if err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	testHookEmptyRead = func(p *outputPipe) {
		if p != o {
			return
		}
		once.Do(func() {
			if _, err := o.w.Write([]byte("RESULT=42\n")); err != nil {
				t.Error(err)
			}
			// drain's stop time: after the empty read began, and
			// already past when the copy looks at it.
			p.stop.Store(time.Now().UnixNano())
		})
	}
	t.Cleanup(func() { testHookEmptyRead = nil })
	var got bytes.Buffer
	o.start(&got) // the writer stays open: no EOF, the stop time ends the copy
	<-o.done
	if got.String() != "RESULT=42\n" {
		t.Errorf("copied %q, want the output written before the copy stopped", got.String())
	}
	o.close()
}
