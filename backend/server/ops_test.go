package server

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/loopforge/loopforge/backend/api"
	"github.com/loopforge/loopforge/backend/service"
)

var routeParam = regexp.MustCompile(`\{[a-z_]+\}`)

// TestEveryOperationIsServedOverHTTP calls each operation of api.Ops through
// the real server and service, on a stored session, and checks the status
// the table promises and that the answer reads into the output type exactly
// (no field the type lacks). A class is open (its operations need one) with
// one student. DeleteSession and RemoveStudent go last.
func TestEveryOperationIsServedOverHTTP(t *testing.T) {
	// The program leaves a picture, for the Image operation.
	svc := newBackend(t, wordModel{program: "open('dot.svg', 'w').write('<svg xmlns=\"http://www.w3.org/2000/svg\"/>')\n"}, "fake2")
	ts, tok := apiServer(t, svc)
	class, err := svc.OpenClass(context.Background(), service.ClassOptions{Name: "A"})
	if err != nil {
		t.Fatal(err)
	}
	student, _, err := svc.Join(context.Background(), class.JoinCode, "Ana")
	if err != nil {
		t.Fatal(err)
	}
	info := startRun(t, ts, tok)
	if _, err := svc.Wait(context.Background(), info.RunID); err != nil {
		t.Fatal(err)
	}
	// Bodies that succeed; an operation not listed sends its input's zero
	// value, or no body when its input has no body fields.
	samples := map[string]string{
		"StartRun":     `{"prompt":"p","provider":"fake","max_iterations":1}`,
		"StartCompare": `{"prompt":"p","providers":["fake","fake2"],"max_iterations":1}`,
		"StartRepeat":  `{"prompt":"p","providers":["fake","fake2"],"max_iterations":1,"repeat":1}`,
		"SetWorkdir":   `{"path":` + quote(t.TempDir()) + `}`,
		"SetSpotlight": `{"run_id":` + quote(info.RunID) + `}`,
	}
	// Query parameters of operations that need them.
	queries := map[string]string{"Image": "?iteration=1&name=dot.svg", "Repeat": "?after=-1"}
	var repeatID string // StartRepeat's, for the operations after it
	ops := slices.Clone(api.Ops)
	for _, last := range []string{"DeleteSession", "RemoveStudent"} {
		i := slices.IndexFunc(ops, func(op api.Operation) bool { return op.Name() == last })
		ops = append(append(ops[:i:i], ops[i+1:]...), ops[i])
	}
	for _, op := range ops {
		t.Run(op.Name(), func(t *testing.T) {
			method, path, _ := strings.Cut(op.Route(), " ")
			id := info.SessionID
			switch {
			case strings.HasPrefix(path, "/api/runs/"):
				id = info.RunID
			case strings.HasPrefix(path, "/api/class/students/"):
				id = student.StudentID
			case strings.HasPrefix(path, "/api/classes/"):
				id = class.ID
			case strings.HasPrefix(path, "/api/providers/"):
				id = "fake"
			case strings.HasPrefix(path, "/api/repeats/"):
				id = repeatID
			}
			path = routeParam.ReplaceAllString(path, id) + queries[op.Name()]
			status, body := call(t, ts, tok, method, path, inputFor(op, samples))
			if status != op.Status() {
				t.Fatalf("%s %s: %d %s, want %d", method, path, status, body, op.Status())
			}
			dec := json.NewDecoder(bytes.NewReader(body))
			dec.DisallowUnknownFields()
			if err := dec.Decode(reflect.New(op.Out()).Interface()); err != nil {
				t.Fatalf("%s does not read as %s: %v", body, op.Out(), err)
			}
			if op.Name() == "StartRepeat" {
				var st struct{ ID string }
				_ = json.Unmarshal(body, &st)
				repeatID = st.ID
			}
		})
	}
}

func inputFor(op api.Operation, samples map[string]string) string {
	if s, ok := samples[op.Name()]; ok {
		return s
	}
	if !api.FieldsOf(op.In()).Body {
		return ""
	}
	b, _ := json.Marshal(reflect.New(op.In()).Interface())
	return string(b)
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestSpecialWebRoutesAreServed: every web route api.Specials lists reaches
// a handler (not the catch-all "no such API endpoint").
func TestSpecialWebRoutesAreServed(t *testing.T) {
	ts, tok := apiServer(t, newBackend(t, wordModel{}))
	for _, s := range api.Specials {
		if s.Route == "" {
			continue
		}
		method, path, _ := strings.Cut(s.Route, " ")
		req, _ := http.NewRequest(method, ts.URL+routeParam.ReplaceAllString(path, "x"), nil)
		req.Header.Set("Authorization", "Bearer "+tok)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if strings.Contains(string(body), "no such API endpoint") || resp.StatusCode == http.StatusMethodNotAllowed {
			t.Errorf("%s: not served: %d %s", s.Route, resp.StatusCode, body)
		}
	}
}
