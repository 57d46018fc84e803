package cliproc

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/loopforge/loopforge/backend/procgroup"
	"github.com/loopforge/loopforge/backend/provider"
)

func TestEnv(t *testing.T) {
	t.Setenv("PATH", "/bin")
	t.Setenv("LC_ALL", "C")
	t.Setenv("MYCLI_KEY", "k")
	t.Setenv("MYCLI_HOME", "/h")
	t.Setenv("OTHER_API_KEY", "must-not-leak")
	for _, kv := range os.Environ() { // keep the test independent of the host
		k, _, _ := strings.Cut(kv, "=")
		if k != "PATH" && k != "LC_ALL" && !strings.HasPrefix(k, "MYCLI_") {
			t.Setenv(k, "")
			if err := os.Unsetenv(k); err != nil {
				t.Fatal(err)
			}
		}
	}
	got := Env([]string{"MYCLI_*"}, map[string]string{"MYCLI_HOME": "/set", "FIXED": "1"}, map[string]string{"FIXED": "2", "X": "y"})
	want := []string{"FIXED=2", "LC_ALL=C", "MYCLI_HOME=/set", "MYCLI_KEY=k", "PATH=/bin", "X=y"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

func TestPrompt(t *testing.T) {
	u := func(s string) provider.Message { return provider.Message{Role: provider.RoleUser, Content: s} }
	a := func(s string) provider.Message { return provider.Message{Role: provider.RoleAssistant, Content: s} }
	for _, tc := range []struct {
		name string
		req  provider.Request
		want string
	}{
		{"alone", provider.Request{Messages: []provider.Message{u("hi")}}, "hi"},
		{"system", provider.Request{System: "Be brief.\n", Messages: []provider.Message{u("hi")}}, "Be brief.\n\nhi"},
		{"transcript", provider.Request{Messages: []provider.Message{u("q1"), a("a1\n"), u("q2")}},
			"Conversation so far (oldest first):\n\n[user]\nq1\n\n[assistant]\na1\n\nReply to this latest user message:\n\n[user]\nq2"},
		{"resume", provider.Request{System: "S", SessionID: "x", Messages: []provider.Message{u("q1"), a("a1"), u("q2")}}, "q2"},
	} {
		got, err := Prompt("p", tc.req)
		if err != nil || got != tc.want {
			t.Errorf("%s: got %q, %v\nwant %q", tc.name, got, err, tc.want)
		}
	}
	for _, msgs := range [][]provider.Message{nil, {u("q"), a("a")}, {{Role: "system", Content: "x"}}} {
		if _, err := Prompt("p", provider.Request{Messages: msgs}); !errors.Is(err, provider.ErrBadRequest) {
			t.Errorf("%v: err = %v", msgs, err)
		}
	}
	if PromptArg("-x") != " -x" || PromptArg("x-") != "x-" {
		t.Error("PromptArg")
	}
}

func TestHTTPStatus(t *testing.T) {
	for msg, want := range map[string]int{
		"unexpected status 401 Unauthorized: Incorrect API key provided": 401,
		`[API Error: {"error":{"code":403,"message":"denied"}}]`:         403,
		"request failed with status code: 429":                           429,
		"stream disconnected":                                            0,
		"status 200":                                                     0,
	} {
		if got := HTTPStatus(msg); got != want {
			t.Errorf("%q: %d, want %d", msg, got, want)
		}
	}
}

func TestStderrText(t *testing.T) {
	h := procgroup.NewHeadTail(stderrHead, stderrTail)
	h.Write([]byte("\x1b[31merror: first\x1b[0m\n"))
	for range 2000 {
		h.Write([]byte("noise line\n"))
	}
	h.Write([]byte("last complaint\n"))
	s := stderrText(h)
	if !strings.HasPrefix(s, "error: first\n") || !strings.HasSuffix(s, "last complaint") || !strings.Contains(s, "\n…\nnoise line\n") ||
		len(s) > stderrHead+stderrTail+10 {
		t.Errorf("kept %d bytes: %q…%q", len(s), s[:40], s[len(s)-40:])
	}
}

func TestPrepareWorkdir(t *testing.T) {
	w, err := PrepareWorkdir("", "x", "sess/../1")
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Base(w.Path) != "x-sess_.._1" {
		t.Errorf("path %s", w.Path)
	}
	fi, err := os.Stat(filepath.Dir(w.Path))
	// Windows has no mode bits: the parent's owner is checked instead
	// (ownedByUser), in the user's own temp directory.
	if err != nil || (fi.Mode().Perm() != 0o700 && runtime.GOOS != "windows") {
		t.Errorf("parent %v %v", fi, err)
	}
	w2, err := PrepareWorkdir("", "x", "sess/../1") // same session, same path
	if err != nil || w2.Path != w.Path {
		t.Errorf("%v %v", w2, err)
	}
	w.Close()
	if _, err := os.Stat(w.Path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("not removed: %v", err)
	}
	own := t.TempDir()
	w3, err := PrepareWorkdir(own, "x", "")
	if err != nil || w3.Path != own {
		t.Fatal(w3, err)
	}
	w3.Close()
	if _, err := os.Stat(own); err != nil {
		t.Errorf("the caller's workdir was removed")
	}
	if _, err := PrepareWorkdir(filepath.Join(own, "nope"), "x", ""); err == nil {
		t.Error("a missing workdir was accepted")
	}
}

func TestSecrets(t *testing.T) {
	got := Secrets([]string{"ANTHROPIC_API_KEY=a", "GH_TOKEN=b", "PATH=/bin", "EMPTY_KEY="}, "c", "")
	if !reflect.DeepEqual(got, []string{"a", "b", "c"}) {
		t.Errorf("%q", got)
	}
	if redact("key sk-0123456789 and abc", []string{"sk-0123456789", "abc"}) != "key [redacted] and abc" {
		t.Error("redact")
	}
}

func runSh(t *testing.T, script string, p Parser) ([]string, *provider.Response, error) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the stand-in CLI is a POSIX sh script")
	}
	s := Spec{Provider: "sh", Binary: "/bin/sh", Args: []string{"-c", script}, Dir: t.TempDir(), Env: []string{"PATH=/usr/bin:/bin"}}
	var deltas []string
	for d, err := range Run(t.Context(), s, p) {
		if err != nil {
			return deltas, nil, err
		}
		if d.Text != "" {
			deltas = append(deltas, d.Text)
		}
		if d.Done != nil {
			return deltas, d.Done, nil
		}
	}
	t.Fatal("the stream ended without Done or an error")
	return nil, nil, nil
}

// textParser: {"t": text} adds text, {"done": true} is the final event.
var textParser = ParserFunc(func(line []byte, r *Result) error {
	var e struct {
		T    string `json:"t"`
		Done bool   `json:"done"`
	}
	if err := json.Unmarshal(line, &e); err != nil {
		return err
	}
	r.Text(e.T)
	if e.Done {
		r.Succeed("")
	}
	return nil
})

// Lines far beyond bufio's default 64 KB are read whole.
func TestLongLine(t *testing.T) {
	script := `printf '{"t":"'; head -c 3000000 /dev/zero | tr '\0' x; printf '"}\n{"done":true}\n'`
	deltas, done, err := runSh(t, script, textParser)
	if err != nil {
		t.Fatal(err)
	}
	if len(deltas) != 1 || len(done.Content) != 3000000 {
		t.Errorf("%d deltas, %d bytes", len(deltas), len(done.Content))
	}
}

// A line over MaxLine stops the CLI: a parse error, partial.
func TestLineOverLimit(t *testing.T) {
	script := `printf '{"t":"a"}\n{"t":"'; head -c 17000000 /dev/zero | tr '\0' x; printf '"}\n{"done":true}\n'`
	deltas, _, err := runSh(t, script, textParser)
	var pe *provider.ParseError
	if !errors.As(err, &pe) || pe.Line != 2 {
		t.Fatalf("err = %v", err)
	}
	if part := provider.PartialOf(err); part.Status != provider.StatusPartial || part.Content != "a" || len(deltas) != 1 {
		t.Errorf("partial %q %q", part.Status, part.Content)
	}
}

// The exit code does not decide: success after exit 3 is success (with a
// warning); exit 0 without the final event is not.
func TestFinalEventDecides(t *testing.T) {
	_, done, err := runSh(t, `echo '{"t":"x"}'; echo '{"done":true}'; exit 3`, textParser)
	if err != nil || done.Status != provider.StatusSuccess || len(done.Warnings) != 1 || !strings.Contains(done.Warnings[0], "code 3") {
		t.Errorf("done %+v, err %v", done, err)
	}
	_, _, err = runSh(t, `echo '{"t":"x"}'`, textParser)
	if !errors.Is(err, provider.ErrIncomplete) || provider.PartialOf(err).Status != provider.StatusPartial {
		t.Errorf("err = %v", err)
	}
}

func TestCannotStart(t *testing.T) {
	s := Spec{Provider: "x", Binary: "/nonexistent/cli", Dir: t.TempDir()}
	for _, err := range Run(t.Context(), s, textParser) {
		var ee *provider.ExecutionError
		if !errors.As(err, &ee) || ee.ExitCode != -1 || provider.PartialOf(err) != nil {
			t.Errorf("err = %v", err)
		}
	}
}
