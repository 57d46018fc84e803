package store

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/loopforge/loopforge/backend/event"
)

func TestCreateGetSession(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)

	sess := &Session{Title: "Listas", Prompt: "Explique listas", Mode: "script", Workdir: "/tmp/w"}
	before := time.Now()
	if err := s.CreateSession(ctx, sess); err != nil {
		t.Fatal(err)
	}
	if sess.ID == "" || sess.CreatedAt.Before(before.Add(-time.Second)) || !sess.UpdatedAt.Equal(sess.CreatedAt) {
		t.Fatalf("CreateSession did not fill id and times: %+v", sess)
	}
	if err := s.CreateSession(ctx, &Session{ID: sess.ID}); !errors.Is(err, ErrDuplicate) {
		t.Errorf("duplicate id: err = %v, want ErrDuplicate", err)
	}

	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	// Created out of start order on purpose: GetSession orders by started_at.
	late := &Run{SessionID: sess.ID, Provider: "claude", StartedAt: t0.Add(time.Minute)}
	early := &Run{SessionID: sess.ID, Provider: "gemini-api", Model: "gemini-2.5-flash", StartedAt: t0,
		MaxIterations: 5, Reflect: true, Language: "python"}
	for _, r := range []*Run{late, early} {
		if err := s.CreateRun(ctx, r); err != nil {
			t.Fatal(err)
		}
	}

	got, err := s.GetSession(ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.ID != sess.ID || got.Title != sess.Title || got.Prompt != sess.Prompt || got.Mode != sess.Mode ||
		got.Workdir != sess.Workdir || !got.CreatedAt.Equal(sess.CreatedAt) {
		t.Errorf("GetSession = %+v, want %+v", got, sess)
	}
	if got.UpdatedAt.Before(sess.UpdatedAt) {
		t.Errorf("UpdatedAt went backwards: %v < %v", got.UpdatedAt, sess.UpdatedAt)
	}
	if len(got.Runs) != 2 || got.Runs[0].ID != early.ID || got.Runs[1].ID != late.ID {
		t.Fatalf("runs = %+v, want [early late]", got.Runs)
	}
	r := got.Runs[0]
	if r.Status != event.RunStatusRunning || r.Model != early.Model || r.MaxIterations != 5 || !r.Reflect ||
		r.Language != "python" || !r.StartedAt.Equal(t0) || r.FinishedAt != nil {
		t.Errorf("run = %+v", r)
	}

	runs, err := s.ListRuns(ctx, sess.ID)
	if err != nil || len(runs) != 2 || runs[0].ID != early.ID {
		t.Errorf("ListRuns = %+v, %v", runs, err)
	}
}

func TestUpdateRun(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	old := time.Now().Add(-time.Hour).UTC()
	sess := &Session{Title: "x", CreatedAt: old}
	if err := s.CreateSession(ctx, sess); err != nil {
		t.Fatal(err)
	}
	run := &Run{SessionID: sess.ID, Provider: "fake", Model: "m1", Stdin: "Ada\n36\n"}
	if err := s.CreateRun(ctx, run); err != nil {
		t.Fatal(err)
	}

	fin := run.StartedAt.Add(1500 * time.Millisecond)
	run.Status = "success"
	run.Iterations = 2
	run.FinalCode = "print('ok')\n"
	run.Error = ""
	run.InputTokens, run.OutputTokens = 120, 340
	run.CostUSD = 0.0123
	run.FinishedAt = &fin
	run.DurationMS = 1500
	run.Model = "m1-fallback" // the model that answered
	run.Stdin = "changed"     // not updatable
	if err := s.UpdateRun(ctx, run); err != nil {
		t.Fatal(err)
	}

	got, err := s.GetRun(ctx, run.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != "success" || got.Iterations != 2 || got.FinalCode != run.FinalCode ||
		got.InputTokens != 120 || got.OutputTokens != 340 || got.CostUSD != 0.0123 ||
		got.FinishedAt == nil || !got.FinishedAt.Equal(fin) || got.DurationMS != 1500 {
		t.Errorf("GetRun = %+v", got)
	}
	if got.Model != "m1-fallback" || got.Stdin != "Ada\n36\n" {
		t.Errorf("UpdateRun changed model to %q, stdin to %q", got.Model, got.Stdin)
	}

	gs, err := s.GetSession(ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !gs.UpdatedAt.After(old.Add(30 * time.Minute)) {
		t.Errorf("session updated_at = %v, not touched by UpdateRun", gs.UpdatedAt)
	}
}

func TestListSessionsOrderAndPaging(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

	// Sub-second differences on purpose: the stored text must still sort by
	// time (…:00.5Z vs …:00Z).
	var ids []string
	for _, d := range []time.Duration{0, 500 * time.Millisecond, time.Second, 1500 * time.Millisecond} {
		sess := &Session{Title: "s", Prompt: "p", CreatedAt: base.Add(d)}
		if err := s.CreateSession(ctx, sess); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, sess.ID)
	}
	want := slices.Clone(ids)
	slices.Reverse(want) // newest first

	all, err := s.ListSessions(ctx, ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := summaryIDs(all); !slices.Equal(got, want) {
		t.Fatalf("order = %v, want %v", got, want)
	}
	for _, sum := range all {
		if sum.Runs == nil {
			t.Errorf("session %s: Runs is nil, want empty", sum.ID)
		}
	}

	page, err := s.ListSessions(ctx, ListOptions{Limit: 2, Offset: 1})
	if err != nil {
		t.Fatal(err)
	}
	if got := summaryIDs(page); !slices.Equal(got, want[1:3]) {
		t.Errorf("page = %v, want %v", got, want[1:3])
	}

	// A new run moves the oldest session to the top, with its runs listed.
	oldest := ids[0]
	r1 := &Run{SessionID: oldest, Provider: "gemini-api", StartedAt: base}
	r2 := &Run{SessionID: oldest, Provider: "claude", StartedAt: base.Add(time.Second)}
	for _, r := range []*Run{r2, r1} {
		if err := s.CreateRun(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	r1.Status, r1.Iterations = "success", 3
	if err := s.UpdateRun(ctx, r1); err != nil {
		t.Fatal(err)
	}
	top, err := s.ListSessions(ctx, ListOptions{Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(top) != 1 || top[0].ID != oldest {
		t.Fatalf("top = %v, want %s", summaryIDs(top), oldest)
	}
	wantRuns := []RunBrief{
		{ID: r1.ID, Provider: "gemini-api", Status: "success", Iterations: 3},
		{ID: r2.ID, Provider: "claude", Status: event.RunStatusRunning},
	}
	if !slices.Equal(top[0].Runs, wantRuns) {
		t.Errorf("runs = %+v, want %+v", top[0].Runs, wantRuns)
	}
}

func TestListSessionsSearch(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	mk := func(i int, title, prompt string) string {
		sess := &Session{Title: title, Prompt: prompt, CreatedAt: base.Add(time.Duration(i) * time.Minute)}
		if err := s.CreateSession(ctx, sess); err != nil {
			t.Fatal(err)
		}
		return sess.ID
	}
	lists := mk(0, "Estruturas de Dados", "Desenvolva um script didático em Python")
	acao := mk(1, "AÇÃO", "100% de cobertura")
	trees := mk(2, "Árvores", "implement a binary TREE in python [v2]*")
	_ = mk(3, "other", "nothing here")

	for _, c := range []struct {
		q    string
		want []string
	}{
		{"", nil},                               // nil: every session
		{"  ", nil},                             // blank is no filter
		{"dados", []string{lists}},              // title, case-insensitive
		{"PYTHON", []string{trees, lists}},      // prompt, newest first
		{"ação", []string{acao}},                // non-ASCII case folding
		{"ÁRV", []string{trees}},                // and the other way round
		{"%", []string{acao}},                   // literal, not a LIKE wildcard
		{"_", []string{}},                       // likewise
		{"*", []string{trees}},                  // literal, not a GLOB wildcard
		{"[v2]", []string{trees}},               // brackets too
		{"py", []string{trees, lists}},          // shorter than a trigram
		{"zzz-not-there", []string{}},           // no match: empty, not an error
		{"didático em python", []string{lists}}, // spaces inside
	} {
		got, err := s.ListSessions(ctx, ListOptions{Query: c.q})
		if err != nil {
			t.Fatalf("query %q: %v", c.q, err)
		}
		if c.want == nil {
			if len(got) != 4 {
				t.Errorf("query %q: %d sessions, want all 4", c.q, len(got))
			}
			continue
		}
		if ids := summaryIDs(got); !slices.Equal(ids, c.want) {
			t.Errorf("query %q = %v, want %v", c.q, ids, c.want)
		}
	}

	// Search rows go with their session.
	if err := s.DeleteSession(ctx, lists); err != nil {
		t.Fatal(err)
	}
	got, err := s.ListSessions(ctx, ListOptions{Query: "dados"})
	if err != nil || len(got) != 0 {
		t.Errorf("after delete: %v, %v", summaryIDs(got), err)
	}
}

func summaryIDs(ss []SessionSummary) []string {
	ids := []string{}
	for _, s := range ss {
		ids = append(ids, s.ID)
	}
	return ids
}

func TestMarkInterrupted(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	_, running1 := seed(t, s) // recorded before owners existed: owner ""
	gone := seedOwned(t, s, "gone-1")
	live := seedOwned(t, s, "live-1")
	_, done := seed(t, s)
	fin := done.StartedAt.Add(time.Second)
	done.Status, done.FinishedAt = "success", &fin
	if err := s.UpdateRun(ctx, done); err != nil {
		t.Fatal(err)
	}
	owners, err := s.RunningOwners(ctx)
	slices.Sort(owners)
	if err != nil || !slices.Equal(owners, []string{"", "gone-1", "live-1"}) {
		t.Fatalf("RunningOwners = %q, %v", owners, err)
	}
	running2 := gone

	n, err := s.MarkInterrupted(ctx, []string{"", "gone-1"}, nil)
	if err != nil || n != 2 {
		t.Fatalf("MarkInterrupted = %d, %v; want 2", n, err)
	}
	for _, id := range []string{running1.ID, running2.ID} {
		r, err := s.GetRun(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != event.RunStatusInterrupted || r.FinishedAt == nil || r.Error == "" {
			t.Errorf("run %s: status %q finished %v error %q", id, r.Status, r.FinishedAt, r.Error)
		}
		// The run's events end with a run_finished saying so.
		evs, err := s.EventsAfter(ctx, id, 0, 0)
		if err != nil || len(evs) == 0 {
			t.Fatalf("events of %s: %d, %v", id, len(evs), err)
		}
		last, before := evs[len(evs)-1], int64(0)
		if len(evs) > 1 {
			before = evs[len(evs)-2].Seq
		}
		// Numbered past the gap: the dead process may have shown seqs
		// the history never got.
		var p event.RunFinishedPayload
		if !last.Terminal() || last.Seq != before+SeqGap+1 || last.Decode(&p) != nil || p.Status != event.RunStatusInterrupted {
			t.Errorf("run %s: last event %s #%d (after #%d) %+v", id, last.Type, last.Seq, before, p)
		}
	}
	r, err := s.GetRun(ctx, done.ID)
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != "success" || !r.FinishedAt.Equal(fin) {
		t.Errorf("finished run changed: %+v", r)
	}
	// Another live process's run is left alone, events and all.
	if r, err := s.GetRun(ctx, live.ID); err != nil || r.Status != event.RunStatusRunning || r.FinishedAt != nil {
		t.Errorf("a live owner's run was touched: %+v, %v", r, err)
	}
	if n := count(t, s, `SELECT count(*) FROM events WHERE run_id = ?`, live.ID); n != 0 {
		t.Errorf("a live owner's run got %d events", n)
	}

	if n, err := s.MarkInterrupted(ctx, []string{"", "gone-1"}, nil); err != nil || n != 0 {
		t.Errorf("second MarkInterrupted = %d, %v; want 0", n, err)
	}
}

func seedOwned(t *testing.T, s *Store, owner string) *Run {
	t.Helper()
	sess := &Session{Title: "t", Prompt: "p", Mode: "script"}
	if err := s.CreateSession(context.Background(), sess); err != nil {
		t.Fatal(err)
	}
	r := &Run{SessionID: sess.ID, Provider: "fake", Owner: owner}
	if err := s.CreateRun(context.Background(), r); err != nil {
		t.Fatal(err)
	}
	return r
}
