package service

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/loopforge/loopforge/backend/access"
	"github.com/loopforge/loopforge/backend/config"
	"github.com/loopforge/loopforge/backend/store"
)

// What a student may see: its own sessions and runs. Someone else's reads
// as missing (the same error as an unknown id), so ids leak nothing.

// checkSession refuses a student a session that is not its own.
func (s *Service) checkSession(ctx context.Context, sessionID string) error {
	c := access.From(ctx)
	if !c.IsStudent() {
		return nil
	}
	o, err := s.store.SessionOwner(ctx, sessionID)
	if err != nil {
		return err
	}
	if o.StudentID != c.StudentID {
		return fmt.Errorf("store: get session %q: %w", sessionID, store.ErrNotFound)
	}
	return nil
}

// checkRun refuses a student a run that is not its own.
func (s *Service) checkRun(ctx context.Context, runID string) error {
	c := access.From(ctx)
	if !c.IsStudent() {
		return nil
	}
	o, err := s.store.RunOwner(ctx, runID)
	if err == nil && o.StudentID != c.StudentID {
		err = store.ErrNotFound
	}
	if errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("%w: %s", ErrRunNotFound, runID)
	}
	return err
}

// CancelRun is Cancel for the caller: a student stops only its own runs.
func (s *Service) CancelRun(ctx context.Context, runID string) error {
	if err := s.checkRun(ctx, runID); err != nil {
		return err
	}
	return s.Cancel(runID)
}

// listScope limits a history listing to the caller's own sessions.
func listScope(ctx context.Context, o *store.ListOptions) {
	if c := access.From(ctx); c.IsStudent() {
		o.StudentID = c.StudentID
	}
}

// studentLimits returns the open class's limits when the caller is a
// student of it.
func (s *Service) studentLimits(ctx context.Context) (ClassLimits, bool) {
	if !access.From(ctx).IsStudent() {
		return ClassLimits{}, false
	}
	cr := s.classOf()
	if cr == nil {
		return ClassLimits{}, true // no class: nothing is allowed
	}
	cr.mu.Lock()
	defer cr.mu.Unlock()
	return cr.limits, true
}

// ProvidersFor is ProvidersContext for the caller: a student sees only the
// providers the class offers, and nothing about their keys or endpoints.
// When the class names none (every configured one), it offers the ready
// ones: the instructor's profiles that are not set up are the
// instructor's business, and a student can do nothing about their notes.
func (s *Service) ProvidersFor(ctx context.Context) []ProviderStatus {
	l, student := s.studentLimits(ctx)
	all := s.ProvidersContext(ctx)
	if !student {
		return all
	}
	configured, _ := s.conf().DefaultProvider()
	def := l.defaultProvider(configured)
	out := []ProviderStatus{}
	for _, p := range all {
		offered := slices.Contains(l.Providers, p.Name) || len(l.Providers) == 0 && p.Available
		if !offered {
			continue
		}
		p.Default = p.Name == def
		p.BaseURL, p.KeyEnv, p.KeyRejected = "", "", nil
		if p.Reason != "" {
			p.Reason, p.ReasonCode, p.ReasonParams = "not available on the instructor's machine", CodeProviderElsewhere, nil
		}
		out = append(out, p)
	}
	return out
}

// DefaultsFor is Defaults for the caller: a student's are clamped to the
// class's limits.
func (s *Service) DefaultsFor(ctx context.Context) Defaults {
	d := s.Defaults()
	l, student := s.studentLimits(ctx)
	if !student {
		return d
	}
	d.MaxIterationsLimit = min(d.MaxIterationsLimit, l.iterationCap())
	d.MaxIterations = min(d.MaxIterations, d.MaxIterationsLimit)
	d.Provider = l.defaultProvider(d.Provider)
	return d
}

// defaultProvider is a student's default: the configured one, unless the
// class does not offer it (then the first it offers).
func (l ClassLimits) defaultProvider(configured string) string {
	if len(l.Providers) > 0 && !slices.Contains(l.Providers, configured) {
		return l.Providers[0]
	}
	return configured
}

// PresetsFor is Presets for the caller: a student sees the allowed ones,
// with their visible tests only.
func (s *Service) PresetsFor(ctx context.Context) []config.Preset {
	all := s.Presets()
	l, student := s.studentLimits(ctx)
	if !student {
		return all
	}
	for i, p := range all {
		if p.Suite() != nil {
			all[i].Tests = p.Suite().Visible().Cases
		}
	}
	if len(l.Presets) == 0 {
		return all
	}
	return slices.DeleteFunc(all, func(p config.Preset) bool { return !slices.Contains(l.Presets, p.ID) })
}
