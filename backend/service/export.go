package service

import (
	"context"
	"fmt"
	"github.com/loopforge/loopforge/backend/access"
	"github.com/loopforge/loopforge/backend/judge"
	"time"

	"github.com/loopforge/loopforge/backend/event"
	"github.com/loopforge/loopforge/backend/export"
	"github.com/loopforge/loopforge/backend/store"
)

// studentRuns is runs as the caller may see them: a student's runs keep
// their visible tests only.
func studentRuns(ctx context.Context, runs []store.Run) []store.Run {
	if !access.From(ctx).IsStudent() {
		return runs
	}
	out := make([]store.Run, len(runs))
	for i, r := range runs {
		if r.Tests != "" {
			if suite, err := judge.Parse([]byte(r.Tests)); err == nil {
				r.Tests = suite.Visible().YAML()
			} else {
				r.Tests = ""
			}
		}
		out[i] = r
	}
	return out
}

// Bundle gathers everything about a session for export.
func (s *Service) Bundle(ctx context.Context, sessionID string) (*export.Bundle, error) {
	sess, err := s.store.GetSession(ctx, sessionID)
	if err != nil {
		return nil, err
	}
	b := &export.Bundle{Format: export.FormatName, Version: export.Version, Exported: time.Now().UTC(),
		Session: *sess, Runs: studentRuns(ctx, sess.Runs),
		Iterations: map[string][]store.Iteration{}, Messages: map[string][]store.Message{}, Events: map[string][]event.Event{}}
	for _, r := range sess.Runs {
		if b.Iterations[r.ID], err = s.store.ListIterations(ctx, r.ID); err != nil {
			return nil, err
		}
		if b.Messages[r.ID], err = s.store.ListMessages(ctx, r.ID); err != nil {
			return nil, err
		}
		if b.Events[r.ID], err = s.store.EventsAfter(ctx, r.ID, 0, 0); err != nil {
			return nil, err
		}
		if access.From(ctx).IsStudent() {
			// A student's export, like its live view, has hidden tests'
			// verdicts only.
			for i, e := range b.Events[r.ID] {
				b.Events[r.ID][i] = event.ForStudent(e)
			}
		}
		imgs, err := s.store.ListImages(ctx, r.ID, true)
		if err != nil {
			return nil, err
		}
		if len(imgs) > 0 {
			if b.Images == nil {
				b.Images = map[string][]store.Image{}
			}
			b.Images[r.ID] = imgs
		}
	}
	return b, nil
}

// Export renders a session in one format (see export.Formats) with its own
// words in lang (export.ParseLang: "" is English) and its dates in the IANA
// time zone tz (export.ParseZone: "" is this machine's); runID "" picks the
// best run for single-run formats.
func (s *Service) Export(ctx context.Context, sessionID, format, runID, lang, tz string) (name string, data []byte, err error) {
	f, err := export.ParseFormat(format)
	if err != nil {
		return "", nil, &Error{Code: CodeExportFormat, Params: map[string]string{"format": format}, Err: fmt.Errorf("%w: %w", ErrInvalidRequest, err)}
	}
	loc, err := exportLocale(lang, tz)
	if err != nil {
		return "", nil, err
	}
	if err := s.checkSession(ctx, sessionID); err != nil {
		return "", nil, err
	}
	b, err := s.Bundle(ctx, sessionID)
	if err != nil {
		return "", nil, err
	}
	return export.RenderLocale(b, f, runID, loc)
}

// exportLocale reads an export's language (export.ParseLang: "" is English)
// and IANA time zone (export.ParseZone: "" is this machine's).
func exportLocale(lang, tz string) (export.Locale, error) {
	l, err := export.ParseLang(lang)
	if err != nil {
		return export.Locale{}, &Error{Code: CodeExportLang, Params: map[string]string{"lang": lang}, Err: fmt.Errorf("%w: %w", ErrInvalidRequest, err)}
	}
	zone, err := export.ParseZone(tz)
	if err != nil {
		return export.Locale{}, &Error{Code: CodeExportZone, Params: map[string]string{"tz": tz}, Err: fmt.Errorf("%w: %w", ErrInvalidRequest, err)}
	}
	return export.Locale{Lang: l, Zone: zone}, nil
}

// Import stores a bundle read by export.ReadBundle as a new session (fresh
// ids, so importing twice gives two sessions). A run still marked running in
// the bundle becomes interrupted. On failure nothing is left behind.
func (s *Service) Import(ctx context.Context, b *export.Bundle) (sessionID string, err error) {
	sess := b.Session
	sess.ID, sess.Runs = "", nil
	if err := s.store.CreateSession(ctx, &sess); err != nil {
		return "", err
	}
	defer func() {
		if err != nil {
			_ = s.store.DeleteSession(context.Background(), sess.ID)
		}
	}()
	for _, r := range b.Runs {
		old := r.ID
		r.ID, r.SessionID = "", sess.ID
		if r.Status == event.RunStatusRunning {
			r.Status = event.RunStatusInterrupted
		}
		if err := s.store.CreateRun(ctx, &r); err != nil {
			return "", err
		}
		for _, it := range b.Iterations[old] {
			it.RunID = r.ID
			if err := s.store.PutIteration(ctx, it); err != nil {
				return "", err
			}
		}
		for _, m := range b.Messages[old] {
			m.RunID = r.ID
			if err := s.store.AppendMessage(ctx, m); err != nil {
				return "", err
			}
		}
		evs := make([]event.Event, 0, len(b.Events[old]))
		for _, e := range b.Events[old] {
			e.RunID = r.ID
			evs = append(evs, e)
		}
		if len(evs) > 0 {
			if err := s.store.AppendEvents(ctx, evs); err != nil {
				return "", err
			}
		}
		if err := s.importImages(ctx, r.ID, b.Images[old]); err != nil {
			return "", err
		}
	}
	return sess.ID, nil
}

// importImages stores a run's pictures from a bundle, iteration by
// iteration in their order (the events name them by iteration and name,
// so they still match under the new run id).
func (s *Service) importImages(ctx context.Context, runID string, imgs []store.Image) error {
	byIter := map[int][]store.Image{}
	var order []int
	for _, im := range imgs {
		if _, ok := byIter[im.Iteration]; !ok {
			order = append(order, im.Iteration)
		}
		byIter[im.Iteration] = append(byIter[im.Iteration], im)
	}
	for _, n := range order {
		if err := s.store.PutImages(ctx, runID, n, byIter[n]); err != nil {
			return err
		}
	}
	return nil
}
