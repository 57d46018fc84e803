package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/loopforge/loopforge/backend/wire"
)

var (
	classInstructor = regexp.MustCompile(`instructor: (http://127\.0\.0\.1:\d+)/\?token=([0-9a-f]{32})`)
	classStudents   = regexp.MustCompile(`students: +(http://\S+/join) +code: ([2-9A-HJKMNP-Z]{3}-[2-9A-HJKMNP-Z]{3})$`)
	classLimits     = regexp.MustCompile(`^  limits: +(.+?) +\(change them in the Class tab\)$`)
)

// TestClassCommand: `loopforge class` prints the class, the instructor's
// URL and the students' link and code; the instructor is in class mode,
// a student joins with the printed code; Ctrl-C ends it with exit 0.
func TestClassCommand(t *testing.T) {
	outR, outW := io.Pipe()
	var errb lockedBuffer
	e := &env{stdin: strings.NewReader(""), stdout: outW, stderr: &errb, newService: tempService(t)}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan int, 1)
	go func() {
		code := e.main(ctx, []string{"class", "--name", "Turma A", "--listen", "127.0.0.1:0"})
		outW.Close()
		done <- code
	}()
	var lines []string
	var inst, stud, lim []string
	for sc := bufio.NewScanner(outR); lim == nil && sc.Scan(); {
		lines = append(lines, sc.Text())
		if m := classInstructor.FindStringSubmatch(sc.Text()); m != nil {
			inst = m
		}
		if m := classStudents.FindStringSubmatch(sc.Text()); m != nil {
			stud = m
		}
		lim = classLimits.FindStringSubmatch(sc.Text())
	}
	go io.Copy(io.Discard, outR)
	if inst == nil || stud == nil || !strings.HasPrefix(lines[0], `class "Turma A" (id c_`) {
		t.Fatalf("printed:\n%s\nstderr:\n%s", strings.Join(lines, "\n"), errb.String())
	}
	// A new class's limits, under the code, before anyone joins.
	const want = "5 iterations a run, 2 runs at a time, 20 runs an hour, 5 student tests a run, 150,000 tokens a student, 3,000,000 tokens for the class"
	if lim == nil || lim[1] != want || !strings.Contains(lines[len(lines)-2], stud[0]) {
		t.Errorf("the limits line: %q\nprinted:\n%s", lim, strings.Join(lines, "\n"))
	}
	if stud[1] != inst[1]+"/join" {
		t.Errorf("the students' link %s is not on %s", stud[1], inst[1])
	}
	req, _ := http.NewRequest("GET", inst[1]+"/api/me", nil)
	req.Header.Set("Authorization", "Bearer "+inst[2])
	var me wire.Me
	meResp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer meResp.Body.Close()
	if err := json.NewDecoder(meResp.Body).Decode(&me); err != nil || me.Class == nil || me.Class.JoinCode != stud[2] {
		t.Fatalf("the instructor's Me: %+v, %v", me, err)
	}
	resp, err := http.Post(inst[1]+"/api/class/join", "application/json", strings.NewReader(`{"code":"`+strings.ToLower(stud[2])+`","name":"Ana"}`))
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("join with the printed code: %v %v", resp, err)
	}
	resp.Body.Close()
	cancel()
	if code := <-done; code != ExitOK {
		t.Errorf("exit %d, want 0; stderr:\n%s", code, errb.String())
	}
}

func TestClassListenNeedsAnAddress(t *testing.T) {
	var out, errb lockedBuffer
	e := &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, newService: tempService(t)}
	if code := e.main(context.Background(), []string{"class", "--listen", "lab-pc:8765"}); code != ExitUsage {
		t.Errorf("exit %d, want %d; stderr:\n%s", code, ExitUsage, errb.String())
	}
}
