package cli

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/loopforge/loopforge/backend/config"
	"github.com/loopforge/loopforge/backend/service"
)

// lockedBuffer is a bytes.Buffer safe to write from serve's goroutine and read from the test.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// holdPort listens on a free loopback port for the rest of the test and returns its address.
func holdPort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	return ln.Addr().String()
}

// tempService opens a real service whose configuration and history live in a temp folder.
func tempService(t *testing.T) func(context.Context, string) (*service.Service, error) {
	home := t.TempDir()
	return func(ctx context.Context, _ string) (*service.Service, error) {
		cfg, err := config.Load(config.Options{Workdir: home, LookupEnv: func(k string) (string, bool) {
			if k == "LOOPFORGE_HOME" {
				return home, true
			}
			return "", false
		}})
		if err != nil {
			return nil, err
		}
		return service.New(ctx, service.Options{Config: cfg})
	}
}

var servingURL = regexp.MustCompile(`http://(127\.0\.0\.1:\d+)/\?token=[0-9a-f]+`)

func TestServeFallsBackToAFreePortWhenTheDefaultOneIsTaken(t *testing.T) {
	busy := holdPort(t)
	outR, outW := io.Pipe()
	var errb lockedBuffer
	e := &env{stdin: strings.NewReader(""), stdout: outW, stderr: &errb, newService: tempService(t), serveAddr: busy}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan int, 1)
	go func() {
		code := e.main(ctx, []string{"serve"}) // no --addr: the default, which is taken
		outW.Close()
		done <- code
	}()

	// The URL line; the pipe ends if serve returns without one.
	var url []string
	for sc := bufio.NewScanner(outR); url == nil && sc.Scan(); {
		url = servingURL.FindStringSubmatch(sc.Text())
	}
	if url == nil {
		t.Fatalf("serve printed no URL (exit %d); stderr:\n%s", <-done, errb.String())
	}
	_, busyPort, _ := net.SplitHostPort(busy)
	if url[1] == busy {
		t.Fatalf("serving on the taken address %s", busy)
	}
	want := fmt.Sprintf("port %s is in use; serving on %s instead", busyPort, url[1])
	if !strings.Contains(errb.String(), want) {
		t.Errorf("stderr does not say %q:\n%s", want, errb.String())
	}
	// It does serve there.
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Get(url[0])
	if err != nil {
		t.Fatalf("GET %s: %v", url[0], err)
	}
	resp.Body.Close()

	cancel()
	go io.Copy(io.Discard, outR) // nothing more is expected on stdout; never block serve on it
	if code := <-done; code != ExitOK {
		t.Errorf("exit %d after stopping, want 0; stderr:\n%s", code, errb.String())
	}
}

func TestServeOnATakenAddrGivenByTheUserFailsWithExit2(t *testing.T) {
	busy := holdPort(t)
	var out, errb lockedBuffer
	e := &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb,
		newService: func(context.Context, string) (*service.Service, error) {
			t.Error("the backend was opened although serve cannot listen")
			return nil, fmt.Errorf("not opened")
		}}
	code := e.main(context.Background(), []string{"serve", "--addr", busy})
	if code != ExitUsage {
		t.Errorf("exit %d, want %d (usage); stderr:\n%s", code, ExitUsage, errb.String())
	}
	msg := errb.String()
	if !strings.Contains(msg, busy) || !strings.Contains(msg, "already in use") || !strings.Contains(msg, "--addr 127.0.0.1:0") {
		t.Errorf("stderr does not say that %s is in use and what to do:\n%s", busy, msg)
	}
	if strings.Contains(out.String(), "serving at") {
		t.Errorf("printed a URL although it serves nowhere: %s", out.String())
	}
}
