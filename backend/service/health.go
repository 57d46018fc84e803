package service

import (
	"context"
	"crypto/sha256"
	"errors"
	"iter"
	"strings"
	"sync"
	"time"

	"github.com/loopforge/loopforge/backend/provider"
)

// KeyRejection says that a provider's last call was refused as unauthorised
// (HTTP 401, or a coding CLI that is not logged in) with the profile as it is
// configured now: the key is probably wrong or revoked.
type KeyRejection struct {
	At      time.Time `json:"at"`
	Message string    `json:"message"` // the error's English text, without the profile name
	// Code and Params name the error for a face that words it itself (see
	// Explain): a Portuguese UI must not show Message's English.
	Code   Code              `json:"code"`
	Params map[string]string `json:"params,omitempty"`
}

// keyHealth remembers, per profile, the last call refused as unauthorised
// until a later call of that profile succeeds. A rejection holds only while
// the profile's endpoint and key are the ones refused (see keyPrint): a
// changed configuration, or a run that overrode the endpoint, tells nothing
// about the configured key.
type keyHealth struct {
	mu       sync.Mutex
	rejected map[string]keyRejection // by profile name
}

type keyRejection struct {
	KeyRejection
	print [sha256.Size]byte
}

// keyPrint identifies what a 401 is about: the kind, the endpoint and the
// key (hashed, so no copy of the key is kept).
func keyPrint(p provider.Profile) [sha256.Size]byte {
	return sha256.Sum256([]byte(p.Kind + "\x00" + p.BaseURL + "\x00" + p.APIKey))
}

func (h *keyHealth) reject(p provider.Profile, err error, at time.Time) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.rejected == nil {
		h.rejected = map[string]keyRejection{}
	}
	line, _, _ := strings.Cut(strings.TrimSpace(err.Error()), "\n")
	msg := strings.TrimPrefix(line, p.Name+": ")
	why := Explain(err)
	h.rejected[p.Name] = keyRejection{KeyRejection: KeyRejection{At: at.UTC(), Message: msg, Code: why.Code, Params: why.Params},
		print: keyPrint(p)}
}

func (h *keyHealth) accept(p provider.Profile) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if r, ok := h.rejected[p.Name]; ok && r.print == keyPrint(p) {
		delete(h.rejected, p.Name)
	}
}

// rejection returns the rejection recorded for the profile as configured
// now, nil when there is none.
func (h *keyHealth) rejection(p provider.Profile) *KeyRejection {
	h.mu.Lock()
	defer h.mu.Unlock()
	r, ok := h.rejected[p.Name]
	if !ok || r.print != keyPrint(p) {
		return nil
	}
	out := r.KeyRejection
	return &out
}

// watched is a provider whose calls report to keyHealth: an unauthorised
// error records a rejection, a completed answer clears it.
type watched struct {
	provider.Provider
	prof   provider.Profile
	health *keyHealth
	probes *probes // a rejection drops the profile's cached check
}

// watch wraps a provider built from prof for keyHealth. Only Stream is
// observed; optional interfaces (checker) are used before wrapping.
func (s *Service) watch(prof provider.Profile, m provider.Provider) provider.Provider {
	return watched{Provider: m, prof: prof, health: &s.keys, probes: &s.probes}
}

func (w watched) Stream(ctx context.Context, req provider.Request) iter.Seq2[provider.Delta, error] {
	return func(yield func(provider.Delta, error) bool) {
		for d, err := range w.Provider.Stream(ctx, req) {
			switch {
			case err != nil && errors.Is(err, provider.ErrAuth):
				w.health.reject(w.prof, err, time.Now())
				w.probes.forget(w.prof.Name)
			case err == nil && d.Done != nil:
				w.health.accept(w.prof)
			}
			if !yield(d, err) {
				return
			}
		}
	}
}
