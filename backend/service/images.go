package service

import (
	"context"
	"fmt"

	"github.com/loopforge/loopforge/backend/sandbox"
	"github.com/loopforge/loopforge/backend/store"
)

// runImages keeps one script-mode run's pictures in the store
// (loop.ImageStore).
type runImages struct {
	store *store.Store
	runID string
}

func (r runImages) SaveImages(ctx context.Context, iteration int, imgs []sandbox.Image) error {
	rows := make([]store.Image, 0, len(imgs))
	for _, im := range imgs {
		rows = append(rows, store.Image{Name: im.Name, MIME: im.MIME, Width: im.Width, Height: im.Height, Data: im.Data})
	}
	return r.store.PutImages(ctx, r.runID, iteration, rows)
}

// Image returns one picture of a run's iteration with its bytes, as the
// exec_finished event (or the stored iteration) named it.
func (s *Service) Image(ctx context.Context, runID string, iteration int, name string) (*store.Image, error) {
	// A student learns nothing of another's run, not even that the request
	// was malformed: ownership first.
	if err := s.checkRun(ctx, runID); err != nil {
		return nil, err
	}
	if runID == "" || iteration < 1 || name == "" {
		return nil, fmt.Errorf("%w: a picture is named by its run, iteration (from 1) and name", ErrInvalidRequest)
	}
	return s.store.GetImage(ctx, runID, iteration, name)
}
