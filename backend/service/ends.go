package service

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/loopforge/loopforge/backend/event"
	"github.com/loopforge/loopforge/backend/store"
)

// A run's end is written to the history when it ends. When that write fails
// (a full disk) the run_finished event still reaches the faces, but the
// history would keep the run as running, and the next start would say the
// process was stopped. So each run reserves a small file beside the history
// when it starts, while there is space, and its end is written over that
// reservation when the history cannot take it: overwriting blocks already
// allocated needs no free space. The next start's recovery (recoverOrphans)
// ends the run as recorded there. A run whose end was stored removes its file.

// endReserve is the size of a reservation: enough for the reason and its
// parameters (a longer reason is cut).
const endReserve = 2048

// endsDir is where the reservations are, next to the history.
func (s *Service) endsDir() string { return filepath.Join(filepath.Dir(s.conf().DBPath), "ends") }

func (s *Service) endPath(runID string) string { return filepath.Join(s.endsDir(), runID+".json") }

// reserveEnd makes runID's reservation. A failure is logged: the run goes
// on, and only the reason a later failure would record is at stake.
func (s *Service) reserveEnd(runID string) {
	err := os.MkdirAll(s.endsDir(), 0o700)
	if err == nil {
		err = os.WriteFile(s.endPath(runID), bytes.Repeat([]byte{' '}, endReserve), 0o600)
	}
	if err != nil {
		s.log.Warn("reserving room for a run's end beside the history", "run", runID, "err", err)
		_ = os.Remove(s.endPath(runID))
	}
}

// recordEnd writes end over runID's reservation, without growing it.
func (s *Service) recordEnd(runID string, end store.Ending) error {
	b, err := fitEnd(end)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(s.endPath(runID), os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	_, err = f.WriteAt(b, 0)
	return errors.Join(err, f.Sync(), f.Close())
}

// fitEnd encodes end padded with spaces to endReserve bytes, cutting its
// reason if needed (JSON allows the trailing spaces).
func fitEnd(end store.Ending) ([]byte, error) {
	for {
		b, err := json.Marshal(end)
		if err != nil {
			return nil, err
		}
		if len(b) <= endReserve {
			return append(b, bytes.Repeat([]byte{' '}, endReserve-len(b))...), nil
		}
		if end.Error == "" {
			end.ErrorParams = nil // nothing else can be cut
			continue
		}
		cut := max(0, len(end.Error)-(len(b)-endReserve)-3)
		for cut > 0 && !utf8.RuneStart(end.Error[cut]) {
			cut--
		}
		end.Error = end.Error[:cut]
		if end.Error != "" {
			end.Error += "…"
		}
	}
}

// dropEnd removes runID's reservation (its end is in the history).
func (s *Service) dropEnd(runID string) {
	if err := os.Remove(s.endPath(runID)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		s.log.Warn("removing a run's reservation beside the history", "run", runID, "err", err)
	}
}

// recordedEnds reads the ends written over reservations, by run ID; the
// reservations still blank are left out.
func (s *Service) recordedEnds() map[string]store.Ending {
	entries, err := os.ReadDir(s.endsDir())
	if err != nil {
		return nil
	}
	ends := map[string]store.Ending{}
	for _, en := range entries {
		id, ok := strings.CutSuffix(en.Name(), ".json")
		if !ok {
			continue
		}
		b, err := os.ReadFile(filepath.Join(s.endsDir(), en.Name()))
		if err != nil || len(bytes.TrimSpace(b)) == 0 {
			continue
		}
		var end store.Ending
		if err := json.Unmarshal(b, &end); err != nil {
			s.log.Warn("a run's recorded end beside the history does not read", "file", en.Name(), "err", err)
			continue
		}
		ends[id] = end
	}
	return ends
}

// dropEndsOfEnded removes the reservations of runs no longer running (ended
// by recoverOrphans, or whose process was killed before it could remove its
// own).
func (s *Service) dropEndsOfEnded(ctx context.Context) {
	entries, err := os.ReadDir(s.endsDir())
	if err != nil {
		return
	}
	for _, en := range entries {
		id, ok := strings.CutSuffix(en.Name(), ".json")
		if !ok {
			continue
		}
		r, err := s.store.GetRun(ctx, id)
		if errors.Is(err, store.ErrNotFound) || (err == nil && r.Status != event.RunStatusRunning) {
			s.dropEnd(id)
		}
	}
}

// storeEnds stores the ends of this process's runs that the history could
// not take when they ended, now that a write has worked; they stay kept
// (in memory and beside the history) if it still fails.
func (s *Service) storeEnds(ctx context.Context) {
	s.mu.Lock()
	ends := maps.Clone(s.unstored)
	s.mu.Unlock()
	if len(ends) == 0 {
		return
	}
	if _, err := s.store.StoreEnds(ctx, ends); err != nil {
		s.log.Warn("storing the ends of runs the history could not take then", "runs", len(ends), "err", err)
		return
	}
	s.mu.Lock()
	for id := range ends {
		delete(s.unstored, id)
	}
	s.mu.Unlock()
	for id := range ends {
		s.dropEnd(id)
	}
}
