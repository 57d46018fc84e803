package store

import (
	"bytes"
	"context"
	"errors"
	"testing"
)

func TestImages(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	sess, run := seed(t, s)
	for n := 1; n <= 2; n++ {
		if err := s.PutIteration(ctx, Iteration{RunID: run.ID, N: n, Code: "draw()"}); err != nil {
			t.Fatal(err)
		}
	}
	png := []byte("\x89PNG fake bytes")
	svg := []byte("<svg/>")
	if err := s.PutImages(ctx, run.ID, 1, []Image{{Name: "old.png", MIME: "image/png", Data: png}}); err != nil {
		t.Fatal(err)
	}
	// A second save of the iteration replaces its pictures, in order.
	if err := s.PutImages(ctx, run.ID, 1, []Image{
		{Name: "z-first.png", MIME: "image/png", Width: 640, Height: 480, Data: png},
		{Name: "a-second.svg", MIME: "image/svg+xml", Data: svg},
	}); err != nil {
		t.Fatal(err)
	}
	if err := s.PutImages(ctx, run.ID, 2, []Image{{Name: "figure-1.png", MIME: "image/png", Data: png}}); err != nil {
		t.Fatal(err)
	}

	listed, err := s.ListImages(ctx, run.ID, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(listed) != 3 {
		t.Fatalf("listed %+v", listed)
	}
	first := listed[0]
	if first.Name != "z-first.png" || first.MIME != "image/png" || first.Width != 640 || first.Height != 480 ||
		first.Size != int64(len(png)) || first.Data != nil || first.Iteration != 1 || first.RunID != run.ID {
		t.Errorf("listed %+v", first)
	}
	if listed[1].Name != "a-second.svg" || listed[2].Name != "figure-1.png" || listed[2].Iteration != 2 {
		t.Errorf("order: %+v", listed)
	}

	all, err := s.ListImages(ctx, run.ID, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 3 || !bytes.Equal(all[1].Data, svg) || all[2].Iteration != 2 {
		t.Errorf("with data: %+v", all)
	}
	im, err := s.GetImage(ctx, run.ID, 1, "a-second.svg")
	if err != nil || im.MIME != "image/svg+xml" || !bytes.Equal(im.Data, svg) || im.Size != int64(len(svg)) {
		t.Errorf("GetImage: %+v, %v", im, err)
	}
	for _, c := range []struct {
		it   int
		name string
	}{{1, "old.png"}, {2, "z-first.png"}, {3, "figure-1.png"}} {
		if _, err := s.GetImage(ctx, run.ID, c.it, c.name); !errors.Is(err, ErrNotFound) {
			t.Errorf("GetImage(%d, %s): %v, want ErrNotFound", c.it, c.name, err)
		}
	}
	if err := s.PutImages(ctx, "no-such-run", 1, []Image{{Name: "x.png", MIME: "image/png", Data: png}}); !errors.Is(err, ErrNotFound) {
		t.Errorf("images of a missing run: %v", err)
	}

	if err := s.DeleteSession(ctx, sess.ID); err != nil {
		t.Fatal(err)
	}
	if n := count(t, s, `SELECT count(*) FROM images`); n != 0 {
		t.Errorf("%d images left after DeleteSession", n)
	}
}
