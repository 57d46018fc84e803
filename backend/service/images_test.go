package service

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/loopforge/loopforge/backend/event"
	"github.com/loopforge/loopforge/backend/export"
	"github.com/loopforge/loopforge/backend/store"
)

// svgPicture is what the programs below draw.
const svgPicture = `<svg xmlns="http://www.w3.org/2000/svg" width="8" height="8"><circle r="4" cx="4" cy="4"/></svg>`

// TestRunKeepsPictures: the pictures a program leaves are stored with its
// iteration before exec_finished names them; the session, the Image
// operation, the exports and an import all have them. A run that draws
// nothing has none.
func TestRunKeepsPictures(t *testing.T) {
	first := "open('attempt.svg', 'w').write('" + svgPicture + "')\nopen('fake.png', 'w').write('not a png')\nprint(1/0)"
	second := "open('final.svg', 'w').write('" + svgPicture + "')\nprint('drawn')"
	svc := newService(t, &echoModel{answers: []string{first, second}})
	ctx := context.Background()
	info, err := svc.StartRun(ctx, RunRequest{Prompt: "draw", Provider: "fake"})
	if err != nil {
		t.Fatal(err)
	}
	var execs []event.ExecPayload
	for _, e := range collect(t, svc, info.RunID, 0) {
		if e.Type != event.ExecFinished {
			continue
		}
		var p event.ExecPayload
		if err := e.Decode(&p); err != nil {
			t.Fatal(err)
		}
		execs = append(execs, p)
		// Stored before it was announced.
		for _, ref := range p.Images {
			if _, err := svc.Image(ctx, info.RunID, p.Iteration, ref.Name); err != nil {
				t.Errorf("exec_finished names %s, not in the store: %v", ref.Name, err)
			}
		}
	}
	if len(execs) != 2 {
		t.Fatalf("%d executions", len(execs))
	}
	want := event.ImageRef{Name: "attempt.svg", MIME: "image/svg+xml", Size: int64(len(svgPicture))}
	if len(execs[0].Images) != 1 || execs[0].Images[0] != want {
		t.Errorf("first execution's pictures %+v", execs[0].Images)
	}
	if len(execs[0].ImagesSkipped) != 1 || !strings.HasPrefix(execs[0].ImagesSkipped[0], "fake.png: not a PNG") {
		t.Errorf("skipped %q", execs[0].ImagesSkipped)
	}
	if len(execs[1].Images) != 1 || execs[1].Images[0].Name != "final.svg" {
		t.Errorf("second execution's pictures %+v", execs[1].Images)
	}

	im, err := svc.Image(ctx, info.RunID, 2, "final.svg")
	if err != nil || string(im.Data) != svgPicture || im.MIME != "image/svg+xml" {
		t.Fatalf("Image: %+v, %v", im, err)
	}
	if _, err := svc.Image(ctx, info.RunID, 1, "final.svg"); !errors.Is(err, store.ErrNotFound) || Classify(err) != ClassNotFound {
		t.Errorf("a picture of another iteration: %v", err)
	}
	if _, err := svc.Image(ctx, info.RunID, 0, ""); Classify(err) != ClassInvalid {
		t.Errorf("no iteration or name: %v", err)
	}

	d, err := svc.Session(ctx, info.SessionID)
	if err != nil {
		t.Fatal(err)
	}
	if imgs := d.Images[info.RunID]; len(imgs) != 2 || imgs[0].Name != "attempt.svg" || imgs[1].Iteration != 2 || imgs[1].Data != nil {
		t.Errorf("session pictures %+v", imgs)
	}

	_, zipData, err := svc.Export(ctx, info.SessionID, "zip", "", "", "")
	if err != nil {
		t.Fatal(err)
	}
	zr, err := zip.NewReader(bytes.NewReader(zipData), int64(len(zipData)))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range zr.File {
		names = append(names, f.Name)
	}
	if got := strings.Join(names, " "); !strings.Contains(got, "fake-final.svg") || strings.Contains(got, "attempt.svg") {
		t.Errorf("zip holds %s", got)
	}
	_, html, err := svc.Export(ctx, info.SessionID, "html", "", "", "")
	if err != nil || !bytes.Contains(html, []byte(`<img src="data:image/svg&#43;xml;base64,`)) {
		t.Errorf("handout without the pictures (%v)", err)
	}

	// The JSON export carries them to an import, under the new run id.
	_, js, err := svc.Export(ctx, info.SessionID, "json", "", "", "")
	if err != nil {
		t.Fatal(err)
	}
	b, err := export.ReadBundle(bytes.NewReader(js))
	if err != nil {
		t.Fatal(err)
	}
	sid, err := svc.Import(ctx, b)
	if err != nil {
		t.Fatal(err)
	}
	d2, err := svc.Session(ctx, sid)
	if err != nil {
		t.Fatal(err)
	}
	newRun := d2.Runs[0].ID
	if im, err := svc.Image(ctx, newRun, 2, "final.svg"); err != nil || string(im.Data) != svgPicture {
		t.Errorf("imported picture: %+v, %v", im, err)
	}

	// A program that draws nothing: nothing.
	svc = newService(t, &echoModel{answers: []string{"print('no pictures')"}})
	plain, err := svc.StartRun(ctx, RunRequest{Prompt: "print", Provider: "fake"})
	if err != nil {
		t.Fatal(err)
	}
	if p := finalExec(t, svc, plain.RunID); p.Images != nil || p.ImagesSkipped != nil {
		t.Errorf("pictures of a run that drew none: %+v", p.Images)
	}
}
