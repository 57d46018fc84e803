package service

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/loopforge/loopforge/backend/export"
)

func TestExportImportRoundTrip(t *testing.T) {
	svc := newCompareService(t)
	ctx := context.Background()
	info, err := svc.StartCompare(ctx, CompareRequest{RunRequest: RunRequest{Prompt: "print things", MaxIterations: 2},
		Providers: []string{"fast", "fixer"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range info.Runs {
		_, _ = svc.Wait(ctx, r.RunID)
	}
	name, data, err := svc.Export(ctx, info.SessionID, "json", "", "", "")
	if err != nil || !strings.HasSuffix(name, ".loopforge.json") {
		t.Fatalf("%s %v", name, err)
	}
	b, err := export.ReadBundle(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	newID, err := svc.Import(ctx, b)
	if err != nil || newID == info.SessionID {
		t.Fatalf("%s %v", newID, err)
	}
	orig, _ := svc.Session(ctx, info.SessionID)
	got, err := svc.Session(ctx, newID)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Runs) != 2 || got.Prompt != orig.Prompt {
		t.Fatalf("imported %+v", got)
	}
	for i := range orig.Runs {
		o, g := orig.Runs[i], got.Runs[i]
		if g.Provider != o.Provider || g.Status != o.Status || g.FinalCode != o.FinalCode || g.Iterations != o.Iterations {
			t.Fatalf("run %d: %+v vs %+v", i, g, o)
		}
		if len(got.Iterations[g.ID]) != len(orig.Iterations[o.ID]) {
			t.Fatalf("iterations of run %d", i)
		}
		oe, _ := svc.store.EventsAfter(ctx, o.ID, 0, 0)
		ge, _ := svc.store.EventsAfter(ctx, g.ID, 0, 0)
		if len(ge) != len(oe) || ge[0].RunID != g.ID {
			t.Fatalf("events of run %d: %d vs %d", i, len(ge), len(oe))
		}
	}
	// The replay of an imported run works like any stored run.
	if evs := collect(t, svc, got.Runs[0].ID, 0); !evs[len(evs)-1].Terminal() {
		t.Fatal("imported run does not replay to its end")
	}
	// Other formats render from the same session.
	for _, f := range []string{"py", "md", "html", "ipynb", "zip"} {
		if _, data, err := svc.Export(ctx, newID, f, "", "", ""); err != nil || len(data) == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	if _, _, err := svc.Export(ctx, newID, "docx", "", "", ""); !errors.Is(err, ErrInvalidRequest) {
		t.Errorf("unknown format: %v", err)
	}
}
