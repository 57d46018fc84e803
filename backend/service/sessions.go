package service

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/loopforge/loopforge/backend/config"
	"github.com/loopforge/loopforge/backend/event"
	"github.com/loopforge/loopforge/backend/provider"
	"github.com/loopforge/loopforge/backend/store"
)

// Sessions lists stored sessions, most recent first.
func (s *Service) Sessions(ctx context.Context, query string, limit int) ([]store.SessionSummary, error) {
	s.recoverForView(ctx)
	o := store.ListOptions{Query: query, Limit: limit}
	listScope(ctx, &o)
	return s.store.ListSessions(ctx, o)
}

// SessionDetail is a session with every run's iterations.
// Fields are spelled out (not embedded) so the Wails binding generator
// emits every nested type.
type SessionDetail struct {
	ID         string                       `json:"id"`
	Title      string                       `json:"title"`
	Prompt     string                       `json:"prompt"`
	Mode       event.SessionMode            `json:"mode"`
	Kind       event.Mode                   `json:"kind"`
	Workdir    string                       `json:"workdir"`
	CreatedAt  time.Time                    `json:"created_at"`
	UpdatedAt  time.Time                    `json:"updated_at"`
	Runs       []store.Run                  `json:"runs"`
	Iterations map[string][]store.Iteration `json:"iterations"` // by run id
	// Images are the runs' pictures without their bytes, by run id.
	Images map[string][]store.Image `json:"images"`
}

// Session returns one session with its runs and their iterations.
func (s *Service) Session(ctx context.Context, id string) (*SessionDetail, error) {
	s.recoverForView(ctx)
	if err := s.checkSession(ctx, id); err != nil {
		return nil, err
	}
	sess, err := s.store.GetSession(ctx, id)
	if err != nil {
		return nil, err
	}
	d := &SessionDetail{ID: sess.ID, Title: sess.Title, Prompt: sess.Prompt, Mode: sess.Mode, Kind: sess.Kind, Workdir: sess.Workdir,
		CreatedAt: sess.CreatedAt, UpdatedAt: sess.UpdatedAt, Runs: studentRuns(ctx, sess.Runs), Iterations: map[string][]store.Iteration{},
		Images: map[string][]store.Image{}}
	if d.Runs == nil {
		d.Runs = []store.Run{}
	}
	for _, r := range sess.Runs {
		its, err := s.store.ListIterations(ctx, r.ID)
		if err != nil {
			return nil, err
		}
		d.Iterations[r.ID] = its
		if d.Images[r.ID], err = s.store.ListImages(ctx, r.ID, false); err != nil {
			return nil, err
		}
	}
	return d, nil
}

// recoverForView brings runs of loopforge processes that stopped since this
// one started to their interrupted end before the history is shown. A failure
// is logged, not returned: the history is still worth showing.
func (s *Service) recoverForView(ctx context.Context) {
	if err := s.recoverOrphans(ctx); err != nil {
		s.log.Warn("recovering runs of stopped processes", "err", err)
	}
}

// DeleteSession removes a session and everything in it.
func (s *Service) DeleteSession(ctx context.Context, id string) error {
	if err := s.checkSession(ctx, id); err != nil {
		return err
	}
	return s.store.DeleteSession(ctx, id)
}

// ProviderStatus says whether a profile can be used now, and if not, why.
type ProviderStatus struct {
	Name      string `json:"name"`
	Kind      string `json:"kind"`
	Model     string `json:"model"`
	BaseURL   string `json:"base_url,omitempty"`
	KeyEnv    string `json:"api_key_env,omitempty"`
	Version   string `json:"version,omitempty"` // coding CLIs: what `--version` printed
	Default   bool   `json:"default"`
	Available bool   `json:"available"`
	Reason    string `json:"reason,omitempty"`
	// ReasonCode and ReasonParams name Reason for a face that words it
	// itself (the error's Code, see Explain).
	ReasonCode   Code              `json:"reason_code,omitempty"`
	ReasonParams map[string]string `json:"reason_params,omitempty"`
	// Time limits of one call, in seconds: an HTTP profile has all three
	// (provider.Limits), a coding CLI only the overall one.
	FirstByteTimeoutSeconds float64 `json:"first_byte_timeout_seconds,omitempty"`
	IdleTimeoutSeconds      float64 `json:"idle_timeout_seconds,omitempty"`
	TimeoutSeconds          float64 `json:"timeout_seconds"`
	// KeyRejected: the provider's last call in this process was refused as
	// unauthorised, with the profile as configured now. It stays Available
	// (the user may retry) and clears when a later call succeeds.
	KeyRejected *KeyRejection `json:"key_rejected,omitempty"`
}

// notReady marks st unavailable because of err, in English and as a code.
func (st ProviderStatus) notReady(err error) ProviderStatus {
	p := Explain(err)
	st.Available, st.Reason = false, strings.TrimPrefix(err.Error(), st.Name+": ")
	st.ReasonCode, st.ReasonParams = p.Code, p.Params
	return st
}

// withLimits fills in the time limits of profile p.
func (st ProviderStatus) withLimits(p provider.Profile) ProviderStatus {
	if config.HTTPKind(p.Kind) {
		l := provider.LimitsOf(p)
		st.FirstByteTimeoutSeconds, st.IdleTimeoutSeconds = l.FirstByte.Seconds(), l.Idle.Seconds()
		st.TimeoutSeconds = l.Overall.Seconds()
		return st
	}
	st.TimeoutSeconds = provider.DefaultCallTimeout.Seconds()
	if p.Timeout > 0 {
		st.TimeoutSeconds = p.Timeout.Seconds()
	}
	return st
}

// checker is implemented by providers that can tell whether they are
// usable before a call: the coding CLIs find their executable and ask its
// version.
type checker interface {
	Check(ctx context.Context) (version string, err error)
}

// checkTimeout bounds one check (a node-based CLI answers --version in about
// a second).
const checkTimeout = 5 * time.Second

// Providers is ProvidersContext without a deadline of the caller's.
func (s *Service) Providers() []ProviderStatus {
	return s.ProvidersContext(context.Background())
}

// ProvidersContext reports every configured profile. Building a provider
// makes no request; coding CLIs are looked for and asked their version, in
// parallel, each within checkTimeout, and what a check found is reused for
// probeTTL (see probes). When ctx ends first, the profiles whose check has
// not finished are reported unavailable with ctx's error.
func (s *Service) ProvidersContext(ctx context.Context) []ProviderStatus {
	cfg := s.conf()
	def, _ := cfg.DefaultProvider()
	out := make([]ProviderStatus, len(cfg.Order))
	var wg sync.WaitGroup
	for i, name := range cfg.Order {
		p := cfg.Profiles[name]
		st := ProviderStatus{Name: name, Kind: p.Kind, Model: p.Model, BaseURL: p.BaseURL, KeyEnv: p.APIKeyEnv, Default: name == def}.withLimits(p)
		prov, err := s.reg.New(p)
		if err != nil {
			out[i] = st.notReady(err)
			continue
		}
		st.Available = true
		st.KeyRejected = s.keys.rejection(p)
		out[i] = st
		if c, ok := prov.(checker); ok {
			wg.Add(1)
			go func() {
				defer wg.Done()
				v, err := s.probes.check(ctx, p, c)
				out[i].Version = v
				if err != nil {
					out[i] = out[i].notReady(err)
				}
			}()
		}
	}
	wg.Wait()
	return out
}
