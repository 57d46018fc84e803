package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// Image is one picture an iteration's program left (sandbox.Image as
// stored). Listings leave Data nil; Size is its length either way.
type Image struct {
	RunID     string `json:"run_id"`
	Iteration int    `json:"iteration"`
	// Name is the file's path in the run dir ("plot.png", "figure-1.png"),
	// unique within the iteration.
	Name   string `json:"name"`
	MIME   string `json:"mime"`
	Width  int    `json:"width"`
	Height int    `json:"height"`
	Size   int64  `json:"size"`
	Data   []byte `json:"-"`
}

// PutImages stores the pictures of one iteration, in order, replacing any
// it had: all or none.
func (s *Store) PutImages(ctx context.Context, runID string, iteration int, imgs []Image) error {
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM images WHERE run_id = ? AND iteration = ?`, runID, iteration); err != nil {
			return err
		}
		for i, im := range imgs {
			data := im.Data
			if data == nil {
				data = []byte{} // NOT NULL: an empty blob, not NULL
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO images (run_id, iteration, position, name, mime, width, height, data)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, runID, iteration, i, im.Name, im.MIME, im.Width, im.Height, data); err != nil {
				return constraintErr(err)
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("store: put images of iteration %d of run %q: %w", iteration, runID, err)
	}
	return nil
}

// ListImages returns a run's pictures by iteration and order, with their
// bytes when withData (exports), without them otherwise (views).
func (s *Store) ListImages(ctx context.Context, runID string, withData bool) ([]Image, error) {
	var imgs []Image
	err := s.readTx(ctx, func(tx *sql.Tx) error {
		var err error
		imgs, err = listImages(ctx, tx, runID, withData)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("store: list images of run %q: %w", runID, err)
	}
	return imgs, nil
}

func listImages(ctx context.Context, q querier, runID string, withData bool) ([]Image, error) {
	data := "NULL"
	if withData {
		data = "data"
	}
	rows, err := q.QueryContext(ctx, `SELECT run_id, iteration, name, mime, width, height, length(data), `+data+`
		FROM images WHERE run_id = ? ORDER BY iteration, position`, runID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var imgs []Image
	for rows.Next() {
		var im Image
		if err := rows.Scan(&im.RunID, &im.Iteration, &im.Name, &im.MIME, &im.Width, &im.Height, &im.Size, &im.Data); err != nil {
			return nil, err
		}
		imgs = append(imgs, im)
	}
	return imgs, rows.Err()
}

// GetImage returns one picture with its bytes; ErrNotFound when the run's
// iteration has none of that name.
func (s *Store) GetImage(ctx context.Context, runID string, iteration int, name string) (*Image, error) {
	im := Image{RunID: runID, Iteration: iteration, Name: name}
	err := s.r.QueryRowContext(ctx, `SELECT mime, width, height, length(data), data FROM images
		WHERE run_id = ? AND iteration = ? AND name = ?`, runID, iteration, name).Scan(&im.MIME, &im.Width, &im.Height, &im.Size, &im.Data)
	if errors.Is(err, sql.ErrNoRows) {
		err = ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("store: image %q of iteration %d of run %q: %w", name, iteration, runID, err)
	}
	return &im, nil
}
