package service

import (
	"context"
	"strings"

	"github.com/loopforge/loopforge/backend/store"
)

// Sessions lists stored sessions, most recent first.
func (s *Service) Sessions(ctx context.Context, query string, limit int) ([]store.SessionSummary, error) {
	return s.store.ListSessions(ctx, store.ListOptions{Query: query, Limit: limit})
}

// SessionDetail is a session with every run's iterations.
type SessionDetail struct {
	store.Session
	Iterations map[string][]store.Iteration `json:"iterations"` // by run id
}

// Session returns one session with its runs and their iterations.
func (s *Service) Session(ctx context.Context, id string) (*SessionDetail, error) {
	sess, err := s.store.GetSession(ctx, id)
	if err != nil {
		return nil, err
	}
	d := &SessionDetail{Session: *sess, Iterations: map[string][]store.Iteration{}}
	for _, r := range sess.Runs {
		its, err := s.store.ListIterations(ctx, r.ID)
		if err != nil {
			return nil, err
		}
		d.Iterations[r.ID] = its
	}
	return d, nil
}

// DeleteSession removes a session and everything in it.
func (s *Service) DeleteSession(ctx context.Context, id string) error {
	return s.store.DeleteSession(ctx, id)
}

// ProviderStatus says whether a profile can be used now, and if not, why.
type ProviderStatus struct {
	Name      string `json:"name"`
	Kind      string `json:"kind"`
	Model     string `json:"model"`
	BaseURL   string `json:"base_url,omitempty"`
	KeyEnv    string `json:"api_key_env,omitempty"`
	Default   bool   `json:"default"`
	Available bool   `json:"available"`
	Reason    string `json:"reason,omitempty"`
}

// Providers reports every configured profile. Building a provider makes no
// request, so this is instant and offline.
func (s *Service) Providers() []ProviderStatus {
	def, _ := s.cfg.DefaultProvider()
	var out []ProviderStatus
	for _, name := range s.cfg.Order {
		p := s.cfg.Profiles[name]
		st := ProviderStatus{Name: name, Kind: p.Kind, Model: p.Model, BaseURL: p.BaseURL, KeyEnv: p.APIKeyEnv, Default: name == def}
		if _, err := s.reg.New(p); err != nil {
			st.Reason = strings.TrimPrefix(err.Error(), name+": ")
		} else {
			st.Available = true
		}
		out = append(out, st)
	}
	return out
}
