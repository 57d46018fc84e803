package server

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/gorilla/websocket"
	"github.com/loopforge/loopforge/backend/api"
	"github.com/loopforge/loopforge/backend/event"
	"github.com/loopforge/loopforge/backend/service"
	"github.com/loopforge/loopforge/backend/wire"
)

// classroom is a class server for tests: an instructor token, and the
// cookies of the students who joined over HTTP.
type classroom struct {
	svc   *service.Service
	ts    *httptest.Server
	tok   string
	class service.ClassView
}

func newClassroom(t *testing.T, m wordModel) *classroom {
	t.Helper()
	svc := newBackend(t, m, "fake2")
	ts, tok := apiServer(t, svc)
	v, err := svc.OpenClass(context.Background(), service.ClassOptions{Name: "Turma A", JoinURL: ts.URL + "/join"})
	if err != nil {
		t.Fatal(err)
	}
	return &classroom{svc: svc, ts: ts, tok: tok, class: v}
}

// student is one joined student: its cookie's token and id.
type student struct{ token, id, name string }

func (c *classroom) join(t *testing.T, name string) student {
	t.Helper()
	resp := c.do(t, "", "POST", "/api/class/join", `{"code":`+quote(c.class.JoinCode)+`,"name":`+quote(name)+`}`)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("join %s: %d %s", name, resp.StatusCode, body)
	}
	var me wire.Me
	if err := json.Unmarshal(body, &me); err != nil || me.Role != wire.RoleStudent || me.Class == nil || me.Class.JoinCode != "" {
		t.Fatalf("join answer %s: %v", body, err)
	}
	for _, ck := range resp.Cookies() {
		if ck.Name == StudentCookie {
			if !ck.HttpOnly || ck.SameSite != http.SameSiteStrictMode || ck.Path != "/" {
				t.Errorf("student cookie %+v: want HttpOnly, SameSite=Strict, Path=/", ck)
			}
			return student{token: ck.Value, id: me.StudentID, name: me.Name}
		}
	}
	t.Fatalf("join %s set no cookie", name)
	return student{}
}

// do sends a request as cred: the instructor's token ("instructor"), a
// student's cookie token, or nothing ("").
func (c *classroom) do(t *testing.T, cred, method, path, body string) *http.Response {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, _ := http.NewRequest(method, c.ts.URL+path, rd)
	switch cred {
	case "":
	case "instructor":
		req.Header.Set("Authorization", "Bearer "+c.tok)
	default:
		req.AddCookie(&http.Cookie{Name: StudentCookie, Value: cred})
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

func (c *classroom) call(t *testing.T, cred, method, path, body string) (int, []byte) {
	t.Helper()
	resp := c.do(t, cred, method, path, body)
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

// run starts a finished run as cred and waits for its end.
func (c *classroom) run(t *testing.T, cred string) service.RunInfo {
	t.Helper()
	status, body := c.call(t, cred, "POST", "/api/runs", `{"prompt":"p","provider":"fake","max_iterations":1}`)
	if status != http.StatusCreated {
		t.Fatalf("start run: %d %s", status, body)
	}
	var info service.RunInfo
	if err := json.Unmarshal(body, &info); err != nil {
		t.Fatal(err)
	}
	if _, err := c.svc.Wait(context.Background(), info.RunID); err != nil {
		t.Fatal(err)
	}
	return info
}

// expect is one operation's answer for each caller: the instructor, the
// student who owns the session or run named, another student, no
// credential.
type expect struct{ instructor, owner, other, none int }

const (
	ok      = http.StatusOK
	created = http.StatusCreated
	denied  = http.StatusForbidden
	missing = http.StatusNotFound
	noAuth  = http.StatusUnauthorized
	bad     = http.StatusBadRequest
)

// accessTable is the centre of the classroom's access rules, written out
// by hand (not derived from api.Ops' roles, so a role changed by mistake
// fails here). Every operation of api.Ops must have a row.
var accessTable = map[string]expect{
	"Providers":    {ok, ok, ok, noAuth},
	"Defaults":     {ok, ok, ok, noAuth},
	"Presets":      {ok, ok, ok, noAuth},
	"Setup":        {ok, denied, denied, noAuth},
	"ReloadConfig": {ok, denied, denied, noAuth},
	"StartRun":     {created, created, created, noAuth},
	"StartCompare": {created, created, created, noAuth},
	"Comparison":   {ok, ok, missing, noAuth},
	"CancelRun":    {ok, ok, missing, noAuth},
	// The instructor's alone (a repeat is many runs, past a class's
	// per-run limits); the id asked is a session's, no repeat's.
	"StartRepeat":  {created, denied, denied, noAuth},
	"Repeat":       {missing, denied, denied, noAuth},
	"CancelRepeat": {missing, denied, denied, noAuth},
	"Sessions":     {ok, ok, ok, noAuth},
	"Session":      {ok, ok, missing, noAuth},
	// Asked without an iteration: the owner hears the request is malformed,
	// another student only that there is no such run.
	"Image":         {bad, bad, missing, noAuth},
	"DeleteSession": {ok, ok, missing, noAuth},
	"Workdir":       {ok, denied, denied, noAuth},
	"SetWorkdir":    {ok, denied, denied, noAuth},
	"Folders":       {ok, denied, denied, noAuth},
	"Stats":         {ok, denied, denied, noAuth},
	"Me":            {ok, ok, ok, noAuth},
	"ClassSettings": {ok, denied, denied, noAuth},
	"Assign":        {ok, denied, denied, noAuth},
	"PauseClass":    {ok, denied, denied, noAuth},
	"SetSpotlight":  {ok, denied, denied, noAuth},
	"Wall":          {ok, denied, denied, noAuth},
	// Ana's path: refused to Bo, and to Ana herself (the instructor's view).
	"LearningPath":  {ok, denied, denied, noAuth},
	"RemoveStudent": {ok, denied, denied, noAuth},
	"Classes":       {ok, denied, denied, noAuth},
	"ClassDetail":   {ok, denied, denied, noAuth},
	// Specials (web routes that are not operations).
	"Export":      {ok, ok, missing, noAuth},
	"ClassExport": {ok, denied, denied, noAuth},

	// A student may not choose the model, so is not shown the lists.
	"ProviderModels": {ok, denied, denied, noAuth},
}

// TestClassAccessTable calls every operation (and the special routes with
// a caller) as the instructor, the owning student, another student and no
// one, on a session and run of Ana's (a fresh one for each deletion, a
// fresh student for each removal), and checks the status accessTable says.
func TestClassAccessTable(t *testing.T) {
	c := newClassroom(t, wordModel{})
	ana, bo := c.join(t, "Ana"), c.join(t, "Bo")
	samples := map[string]string{
		"StartRun":     `{"prompt":"p","provider":"fake","max_iterations":1}`,
		"StartCompare": `{"prompt":"p","providers":["fake","fake2"],"max_iterations":1}`,
		"StartRepeat":  `{"prompt":"p","providers":["fake","fake2"],"max_iterations":1,"repeat":1}`,
		"SetWorkdir":   `{"path":` + quote(t.TempDir()) + `}`,
	}
	type route struct{ name, method, path string }
	var routes []route
	for _, op := range api.Ops {
		method, path, _ := strings.Cut(op.Route(), " ")
		routes = append(routes, route{op.Name(), method, path})
	}
	routes = append(routes, route{"Export", "GET", "/api/sessions/{id}/export?format=json"},
		route{"ClassExport", "GET", "/api/class/export?format=csv"})
	for _, rt := range routes {
		if _, listed := accessTable[rt.name]; !listed {
			t.Errorf("%s has no row in accessTable", rt.name)
		}
	}
	shared := c.run(t, ana.token)
	for _, rt := range routes {
		want := accessTable[rt.name]
		for _, who := range []struct {
			name, cred string
			want       int
		}{{"none", "", want.none}, {"other", bo.token, want.other}, {"owner", ana.token, want.owner}, {"instructor", "instructor", want.instructor}} {
			t.Run(rt.name+"/"+who.name, func(t *testing.T) {
				// Ana's session and run (a fresh one to delete), and a
				// fresh student to remove.
				info := shared
				if rt.name == "DeleteSession" {
					info = c.run(t, ana.token)
				}
				path := rt.path
				switch {
				case strings.HasPrefix(path, "/api/runs/"):
					path = strings.Replace(strings.Replace(path, "{id}", info.RunID, 1), "{run_id}", info.RunID, 1)
				case strings.HasSuffix(path, "/path"):
					path = strings.Replace(path, "{id}", ana.id, 1)
				case strings.HasPrefix(path, "/api/class/students/"):
					path = strings.Replace(path, "{id}", c.join(t, "Cy").id, 1)
				case strings.HasPrefix(path, "/api/classes/"):
					path = strings.Replace(path, "{id}", c.class.ID, 1)
				case strings.HasPrefix(path, "/api/providers/"):
					path = strings.Replace(path, "{name}", "fake", 1)
				default:
					path = strings.Replace(path, "{id}", info.SessionID, 1)
				}
				body := samples[rt.name]
				if rt.name == "SetSpotlight" {
					body = `{"run_id":` + quote(info.RunID) + `}`
				} else if op := opNamed(rt.name); body == "" && op != nil {
					body = inputFor(op, samples)
				}
				status, answer := c.call(t, who.cred, rt.method, path, body)
				if status != who.want {
					t.Fatalf("%s %s as %s: %d %s, want %d", rt.method, path, who.name, status, answer, who.want)
				}
				if status >= 400 && !strings.Contains(string(answer), `"error"`) {
					t.Errorf("refusal without an error message: %s", answer)
				}
				waitIdle(t, c.svc)
			})
		}
	}
}

func opNamed(name string) api.Operation {
	i := slices.IndexFunc(api.Ops, func(op api.Operation) bool { return op.Name() == name })
	if i < 0 {
		return nil
	}
	return api.Ops[i]
}

// waitIdle waits for the runs a case started to end, so the next case's
// quotas and cleanup see a quiet class.
func waitIdle(t *testing.T, svc *service.Service) {
	t.Helper()
	wall, err := svc.Wall(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range wall {
		if e.Current != nil && e.Current.EndedAt == nil {
			if _, err := svc.Wait(context.Background(), e.Current.RunID); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestStudentScoping: a student's history lists only its own sessions;
// the instructor's lists every one, class sessions labelled with the
// student's name.
func TestStudentScoping(t *testing.T) {
	c := newClassroom(t, wordModel{})
	ana, bo := c.join(t, "Ana"), c.join(t, "Bo")
	mine := c.run(t, ana.token)
	c.run(t, bo.token)
	c.run(t, "instructor")
	var list []wire.SessionSummary
	_, body := c.call(t, ana.token, "GET", "/api/sessions", "")
	if err := json.Unmarshal(body, &list); err != nil || len(list) != 1 || list[0].ID != mine.SessionID || list[0].StudentName != "Ana" {
		t.Fatalf("Ana's history: %s", body)
	}
	_, body = c.call(t, "instructor", "GET", "/api/sessions", "")
	list = nil // a fresh slice: Unmarshal would keep fields the JSON omits
	if err := json.Unmarshal(body, &list); err != nil || len(list) != 3 {
		t.Fatalf("the instructor's history: %s", body)
	}
	names := map[string]int{}
	for _, s := range list {
		names[s.StudentName]++
	}
	if names["Ana"] != 1 || names["Bo"] != 1 || names[""] != 1 {
		t.Errorf("labels in the instructor's history: %v", names)
	}
	// Continuing another's session is refused as if it did not exist.
	status, body := c.call(t, bo.token, "POST", "/api/runs", `{"prompt":"p","session_id":`+quote(mine.SessionID)+`}`)
	if status != http.StatusNotFound {
		t.Errorf("Bo continuing Ana's session: %d %s", status, body)
	}
}

// TestStudentRequestsAreLimited: what only the instructor may ask for is
// refused to a student (403), and the iteration limit is clamped.
func TestStudentRequestsAreLimited(t *testing.T) {
	c := newClassroom(t, wordModel{})
	ana := c.join(t, "Ana")
	if status, body := c.call(t, "instructor", "PUT", "/api/class/limits", `{"providers":["fake"],"presets":[],"max_iterations":2}`); status != ok {
		t.Fatalf("limits: %d %s", status, body)
	}
	for _, body := range []string{
		`{"prompt":"p","provider":"fake2"}`,
		`{"prompt":"p","provider":"fake","model":"other"}`,
		`{"prompt":"p","provider":"fake","base_url":"http://127.0.0.1:1/v1"}`,
		`{"prompt":"p","provider":"fake","allow_network":true}`,
		`{"prompt":"p","provider":"fake","mode":"workspace","workdir":"/"}`,
	} {
		if status, answer := c.call(t, ana.token, "POST", "/api/runs", body); status != denied {
			t.Errorf("%s: %d %s, want 403", body, status, answer)
		}
	}
	status, body := c.call(t, ana.token, "POST", "/api/runs", `{"prompt":"p","max_iterations":9}`)
	if status != created {
		t.Fatalf("an allowed run: %d %s", status, body)
	}
	var info service.RunInfo
	_ = json.Unmarshal(body, &info)
	r, err := c.svc.Wait(context.Background(), info.RunID)
	if err != nil || r.MaxIterations != 2 || r.Provider != "fake" {
		t.Errorf("the student's run: %+v, %v; want 2 iterations at most, provider fake", r, err)
	}
	var ps []wire.ProviderStatus
	_, body = c.call(t, ana.token, "GET", "/api/providers", "")
	if err := json.Unmarshal(body, &ps); err != nil || len(ps) != 1 || ps[0].Name != "fake" {
		t.Errorf("a student's providers: %s", body)
	}
	var d wire.Defaults
	_, body = c.call(t, ana.token, "GET", "/api/defaults", "")
	if err := json.Unmarshal(body, &d); err != nil || d.MaxIterations != 2 {
		t.Errorf("a student's defaults: %s", body)
	}
}

// TestJoin: the code is read without case, dashes or spaces; a name taken
// gets " (2)"; a bad name is 400; a wrong code 403.
func TestJoin(t *testing.T) {
	c := newClassroom(t, wordModel{})
	code := strings.ToLower(strings.ReplaceAll(c.class.JoinCode, "-", " "))
	for i, want := range []string{"Ana", "Ana (2)"} {
		status, body := c.call(t, "", "POST", "/api/class/join", `{"code":`+quote(code)+`,"name":"  Ana "}`)
		var me wire.Me
		if status != ok || json.Unmarshal(body, &me) != nil || me.Name != want {
			t.Errorf("join %d: %d %s, want name %q", i, status, body, want)
		}
	}
	for _, name := range []string{"", "   ", strings.Repeat("x", 41), "a\x00b"} {
		if status, body := c.call(t, "", "POST", "/api/class/join", `{"code":`+quote(code)+`,"name":`+quote(name)+`}`); status != http.StatusBadRequest {
			t.Errorf("name %q: %d %s", name, status, body)
		}
	}
	status, body := c.call(t, "", "POST", "/api/class/join", `{"code":"AAAAAA","name":"Eve"}`)
	if status != denied || !strings.Contains(string(body), "wrong class code") {
		t.Errorf("wrong code: %d %s", status, body)
	}
}

// TestJoinRateLimit: five wrong codes from one address, then even the
// right one is 429 with Retry-After; another address still joins.
func TestJoinRateLimit(t *testing.T) {
	c := newClassroom(t, wordModel{})
	h := New(Options{Token: c.tok, Backend: c.svc})
	try := func(ip, code string) *httptest.ResponseRecorder {
		req := httptest.NewRequest("POST", "/api/class/join", strings.NewReader(`{"code":`+quote(code)+`,"name":"Eve"}`))
		req.RemoteAddr = ip + ":40000"
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		return w
	}
	for i := range joinPerIP {
		if w := try("10.0.0.7", "ZZZZZZ"); w.Code != denied {
			t.Fatalf("wrong code %d: %d %s", i, w.Code, w.Body)
		}
	}
	w := try("10.0.0.7", c.class.JoinCode)
	if w.Code != http.StatusTooManyRequests || w.Header().Get("Retry-After") == "" {
		t.Fatalf("after %d wrong codes: %d %s (Retry-After %q)", joinPerIP, w.Code, w.Body, w.Header().Get("Retry-After"))
	}
	if w := try("10.0.0.8", c.class.JoinCode); w.Code != ok {
		t.Errorf("another address: %d %s", w.Code, w.Body)
	}
}

// TestJoinLimiterFloodAndWindow: wrong codes from many addresses never
// block a fresh address; the joinOverall-th one within the window is a
// flood, reported once, and the count starts again.
func TestJoinLimiterFloodAndWindow(t *testing.T) {
	var l joinLimiter
	t0 := time.Now()
	floods := 0
	for i := range 2*joinOverall - 1 {
		if l.failed(fmt.Sprintf("10.1.%d.%d", i/200, i%200), t0) {
			floods++
		}
	}
	if floods != 1 {
		t.Errorf("%d wrong codes in a window reported %d floods, want 1", 2*joinOverall-1, floods)
	}
	if _, blocked := l.blocked("10.9.9.9", t0); blocked {
		t.Error("a fresh address is blocked by other addresses' wrong codes")
	}
	// Failures spread over more than a window are no flood.
	var slow joinLimiter
	for i := range 2 * joinOverall {
		if slow.failed(fmt.Sprintf("10.2.0.%d", i), t0.Add(time.Duration(i)*joinWindow/joinOverall*2)) {
			t.Fatalf("failure %d, at half the flood rate, reported a flood", i)
		}
	}
	// One address still waits after joinPerIP, until they leave the window.
	var one joinLimiter
	for range joinPerIP {
		one.failed("10.3.0.1", t0)
	}
	if _, blocked := one.blocked("10.3.0.1", t0); !blocked {
		t.Error("an address with joinPerIP wrong codes is let through")
	}
	if _, blocked := one.blocked("10.3.0.1", t0.Add(joinWindow)); blocked {
		t.Error("still blocked once its failures left the window")
	}
}

// TestJoinLimiterBoundsMemory: a flood from more addresses than
// joinMaxTracked does not keep them all.
func TestJoinLimiterBoundsMemory(t *testing.T) {
	var l joinLimiter
	t0 := time.Now()
	for i := range 3 * joinMaxTracked {
		l.failed(fmt.Sprintf("10.%d.%d.%d", i>>16&255, i>>8&255, i&255), t0)
	}
	if n := len(l.perIP); n > joinMaxTracked {
		t.Errorf("%d addresses tracked, want at most %d", n, joinMaxTracked)
	}
}

// TestJoinFloodRotatesCode: wrong codes from many addresses at once, while
// students with the right code join from fresh addresses. No right code is
// ever answered 429; the flood rotates the code, the instructor's socket
// shows the new one, and the old one stops working.
func TestJoinFloodRotatesCode(t *testing.T) {
	c := newClassroom(t, wordModel{})
	h := New(Options{Token: c.tok, Backend: c.svc})
	teacher := c.dialAs(t, "instructor")
	_ = teacher.WriteJSON(wire.StreamRequest{Op: wire.StreamOpSubscribeClass})
	readClass(t, teacher, func(typ string, _ json.RawMessage) bool { return typ == wire.ClassStateType })
	try := func(addr, code, name string) *httptest.ResponseRecorder {
		req := httptest.NewRequest("POST", "/api/class/join", strings.NewReader(`{"code":`+quote(code)+`,"name":`+quote(name)+`}`))
		req.RemoteAddr = addr
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		return w
	}
	current := func() string {
		v, err := c.svc.ClassView(context.Background())
		if err != nil {
			t.Error(err)
		}
		return v.JoinCode
	}
	old := c.class.JoinCode
	const attackers, each, students = 40, 3, 8 // 120 wrong codes: two floods' worth
	var wg sync.WaitGroup
	start := make(chan struct{})
	for a := range attackers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			for i := range each {
				if w := try(fmt.Sprintf("10.66.%d.%d:5000", a, i), "ZZZZZZ", "Eve"); w.Code != denied {
					t.Errorf("wrong code from attacker %d: %d %s", a, w.Code, w.Body)
				}
			}
		}()
	}
	for n := range students {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			addr := fmt.Sprintf("192.168.7.%d:6000", n+1)
			// A student whose code was rotated away while typing asks
			// again, as one would in class; never 429.
			for try1 := 0; ; try1++ {
				w := try(addr, current(), fmt.Sprintf("Student %d", n))
				if w.Code == ok {
					return
				}
				if w.Code != denied || try1 == joinPerIP-1 {
					t.Errorf("student %d with the right code: %d %s", n, w.Code, w.Body)
					return
				}
			}
		}()
	}
	close(start)
	wg.Wait()
	now := current()
	if now == old {
		t.Fatalf("the code is still %s after %d wrong codes from %d addresses", old, attackers*each, attackers*each)
	}
	var v wire.ClassView
	readClass(t, teacher, func(typ string, p json.RawMessage) bool {
		return typ == wire.ClassStateType && json.Unmarshal(p, &v) == nil && v.JoinCode == now
	})
	if w := try("192.168.8.1:7000", old, "Late"); w.Code != denied || !strings.Contains(w.Body.String(), "wrong class code") {
		t.Errorf("the old code after rotation: %d %s", w.Code, w.Body)
	}
	if w := try("192.168.8.2:7000", now, "Late"); w.Code != ok {
		t.Errorf("the new code from a fresh address: %d %s", w.Code, w.Body)
	}
	wall, _ := c.svc.Wall(context.Background())
	if len(wall) != students+1 {
		t.Errorf("%d students joined, want %d", len(wall), students+1)
	}
}

// TestForeignOriginOnJoinAndSocket: a page elsewhere can neither join nor
// open the socket with a student's cookie.
func TestForeignOriginOnJoinAndSocket(t *testing.T) {
	c := newClassroom(t, wordModel{})
	ana := c.join(t, "Ana")
	req, _ := http.NewRequest("POST", c.ts.URL+"/api/class/join", strings.NewReader(`{"code":`+quote(c.class.JoinCode)+`,"name":"Eve"}`))
	req.Header.Set("Origin", "http://evil.example")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != denied {
		t.Errorf("join from a foreign origin: %d", resp.StatusCode)
	}
	h := http.Header{"Origin": {"http://evil.example"}, "Cookie": {StudentCookie + "=" + ana.token}}
	if _, resp, err := websocket.DefaultDialer.Dial(wsURL(c.ts), h); err == nil || resp.StatusCode != denied {
		t.Errorf("socket from a foreign origin: %v", err)
	}
}

func wsURL(ts *httptest.Server) string { return "ws" + strings.TrimPrefix(ts.URL, "http") + "/api/ws" }

// dialAs opens the socket as a student (its cookie) or the instructor.
func (c *classroom) dialAs(t *testing.T, cred string) *websocket.Conn {
	t.Helper()
	h := http.Header{}
	if cred == "instructor" {
		h.Set("Authorization", "Bearer "+c.tok)
	} else {
		h.Set("Cookie", StudentCookie+"="+cred)
	}
	ws, _, err := websocket.DefaultDialer.Dial(wsURL(c.ts), h)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	return ws
}

// TestSocketRefusesAnotherStudentsRun: a student subscribing to another's
// run gets the answer of a missing run and none of its events; its own run
// streams.
func TestSocketRefusesAnotherStudentsRun(t *testing.T) {
	c := newClassroom(t, wordModel{})
	ana, bo := c.join(t, "Ana"), c.join(t, "Bo")
	anas := c.run(t, ana.token)
	ws := c.dialAs(t, bo.token)
	read := func(req wire.StreamRequest) event.Event {
		_ = ws.WriteJSON(req)
		_ = ws.SetReadDeadline(time.Now().Add(30 * time.Second))
		var e event.Event
		if err := ws.ReadJSON(&e); err != nil {
			t.Fatal(err)
		}
		return e
	}
	other := read(wire.StreamRequest{Op: wire.StreamOpSubscribe, RunID: anas.RunID})
	none := read(wire.StreamRequest{Op: wire.StreamOpSubscribe, RunID: "r-nope"})
	if other.Type != wire.StreamErrorType || none.Type != wire.StreamErrorType ||
		strings.ReplaceAll(string(other.Payload), anas.RunID, "ID") != strings.ReplaceAll(string(none.Payload), "r-nope", "ID") {
		t.Fatalf("another's run: %s %s; a missing run: %s %s", other.Type, other.Payload, none.Type, none.Payload)
	}
	bos := c.run(t, bo.token)
	if e := read(wire.StreamRequest{Op: wire.StreamOpSubscribe, RunID: bos.RunID}); e.RunID != bos.RunID || e.Type != event.RunStarted {
		t.Fatalf("own run: %+v", e)
	}
}

// classMsg reads class stream messages until one matches.
func readClass(t *testing.T, ws *websocket.Conn, match func(typ string, payload json.RawMessage) bool) json.RawMessage {
	t.Helper()
	_ = ws.SetReadDeadline(time.Now().Add(time.Minute))
	for {
		var m struct {
			Type    string          `json:"type"`
			Payload json.RawMessage `json:"payload"`
		}
		if err := ws.ReadJSON(&m); err != nil {
			t.Fatalf("reading the class stream: %v", err)
		}
		if match(m.Type, m.Payload) {
			return m.Payload
		}
	}
}

// TestClassStream: the instructor gets the class (with its code) and every
// student's line at once, then each change; a student gets the class
// without the code, and a pushed assignment.
func TestClassStream(t *testing.T) {
	c := newClassroom(t, wordModel{})
	ana := c.join(t, "Ana")
	teacher := c.dialAs(t, "instructor")
	pupil := c.dialAs(t, ana.token)
	for _, ws := range []*websocket.Conn{teacher, pupil} {
		_ = ws.WriteJSON(wire.StreamRequest{Op: wire.StreamOpSubscribeClass})
	}
	var v wire.ClassView
	_ = json.Unmarshal(readClass(t, teacher, func(typ string, _ json.RawMessage) bool { return typ == wire.ClassStateType }), &v)
	if v.JoinCode != c.class.JoinCode || v.Name != "Turma A" {
		t.Errorf("the instructor's class view: %+v", v)
	}
	readClass(t, teacher, func(typ string, p json.RawMessage) bool {
		var e wire.WallEntry
		return typ == wire.WallType && json.Unmarshal(p, &e) == nil && e.Name == "Ana"
	})
	var pv wire.ClassView
	_ = json.Unmarshal(readClass(t, pupil, func(typ string, _ json.RawMessage) bool { return typ == wire.ClassStateType }), &pv)
	if pv.JoinCode != "" || pv.JoinURL != "" || pv.Name != "Turma A" {
		t.Errorf("a student's class view: %+v", pv)
	}

	// A new student, a run, an assignment: each reaches who it concerns.
	bo := c.join(t, "Bo")
	readClass(t, teacher, func(typ string, p json.RawMessage) bool {
		var e wire.WallEntry
		return typ == wire.WallType && json.Unmarshal(p, &e) == nil && e.Name == "Bo"
	})
	info := c.run(t, bo.token)
	readClass(t, teacher, func(typ string, p json.RawMessage) bool {
		var e wire.WallEntry
		return typ == wire.WallType && json.Unmarshal(p, &e) == nil && e.Current != nil &&
			e.Current.RunID == info.RunID && e.Current.Status == "success" && e.Usage.Runs == 1
	})
	if status, body := c.call(t, "instructor", "PUT", "/api/class/assignment", `{"prompt":"Sort a list","max_iterations":3}`); status != ok {
		t.Fatalf("assign: %d %s", status, body)
	}
	readClass(t, pupil, func(typ string, p json.RawMessage) bool {
		var v wire.ClassView
		return typ == wire.ClassStateType && json.Unmarshal(p, &v) == nil && v.Assignment != nil && v.Assignment.Prompt == "Sort a list"
	})
}

// TestRemovedStudent: the instructor removes a student: its cookie is
// refused, its socket closed, its running run cancelled; the wall keeps it,
// greyed.
func TestRemovedStudent(t *testing.T) {
	gate := make(chan struct{})
	c := newClassroom(t, wordModel{gate: gate})
	ana := c.join(t, "Ana")
	ws := c.dialAs(t, ana.token)
	status, body := c.call(t, ana.token, "POST", "/api/runs", `{"prompt":"p","provider":"fake","max_iterations":1}`)
	if status != created {
		t.Fatalf("start: %d %s", status, body)
	}
	var info service.RunInfo
	_ = json.Unmarshal(body, &info)
	if status, body := c.call(t, "instructor", "DELETE", "/api/class/students/"+ana.id, ""); status != ok {
		t.Fatalf("remove: %d %s", status, body)
	}
	if r, _ := c.svc.Wait(context.Background(), info.RunID); r == nil || r.Status != event.RunStatusCancelled {
		t.Errorf("the removed student's run: %+v", r)
	}
	if status, _ := c.call(t, ana.token, "GET", "/api/me", ""); status != noAuth {
		t.Errorf("a removed student's cookie: %d", status)
	}
	_ = ws.SetReadDeadline(time.Now().Add(30 * time.Second))
	for {
		if _, _, err := ws.ReadMessage(); err != nil {
			if !websocket.IsCloseError(err, websocket.ClosePolicyViolation) {
				t.Errorf("the socket ended with %v, want close 1008", err)
			}
			break
		}
	}
	wall, _ := c.svc.Wall(context.Background())
	if len(wall) != 1 || !wall[0].Removed {
		t.Errorf("the wall after the removal: %+v", wall)
	}
}

// TestOutsideClassMode: class operations answer 409, Me says instructor
// without a class, and the join route needs the token like everything else.
func TestOutsideClassMode(t *testing.T) {
	ts, tok := apiServer(t, newBackend(t, wordModel{}))
	status, body := call(t, ts, tok, "GET", "/api/me", "")
	var me wire.Me
	if status != ok || json.Unmarshal(body, &me) != nil || me.Role != wire.RoleInstructor || me.Class != nil {
		t.Errorf("Me: %d %s", status, body)
	}
	for _, r := range []string{"GET /api/class/wall", "PUT /api/class/pause"} {
		method, path, _ := strings.Cut(r, " ")
		if status, body := call(t, ts, tok, method, path, `{"paused":true}`); status != http.StatusConflict {
			t.Errorf("%s: %d %s", r, status, body)
		}
	}
	if status, _ := call(t, ts, "", "POST", "/api/class/join", `{"code":"x","name":"y"}`); status != noAuth {
		t.Errorf("join outside class mode without a token: %d", status)
	}
}

// TestClassModePublicPaths: without any credential, / leads to the join
// page, the page and its files are served, and the API stays closed.
func TestClassModePublicPaths(t *testing.T) {
	c := newClassroom(t, wordModel{})
	assets := fstestAssets()
	c.ts.Config.Handler = New(Options{Token: c.tok, Backend: c.svc, Assets: assets})
	resp := c.do(t, "", "GET", "/", "")
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/join" {
		t.Errorf("/ without a credential: %d → %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	for path, want := range map[string]string{"/join": "<div id=root>", "/assets/app.js": "app()"} {
		if status, body := c.call(t, "", "GET", path, ""); status != ok || !strings.Contains(string(body), want) {
			t.Errorf("%s: %d %s", path, status, body)
		}
	}
	for _, path := range []string{"/api/sessions", "/api/me", "/secret.txt"} {
		if status, _ := c.call(t, "", "GET", path, ""); status != noAuth {
			t.Errorf("%s without a credential: %d", path, status)
		}
	}
}

func fstestAssets() fstest.MapFS {
	return fstest.MapFS{
		"index.html":    {Data: []byte("<!doctype html><div id=root></div>")},
		"assets/app.js": {Data: []byte("app()")},
		"secret.txt":    {Data: []byte("no")},
	}
}
