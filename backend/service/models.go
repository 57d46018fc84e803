package service

import (
	"context"

	"github.com/loopforge/loopforge/backend/provider"
)

// ProviderModels lists the models the named profile's key can use, from
// its API's models list (see provider.ListModels: bounded by
// provider.ModelsTimeout, sorted). A profile that cannot be built (no key)
// fails as a run would; a coding CLI's kind, which has no list, with
// provider.ErrNoModelList.
func (s *Service) ProviderModels(ctx context.Context, name string) ([]provider.Model, error) {
	p, err := s.conf().Profile(name)
	if err != nil {
		return nil, err
	}
	prov, err := s.reg.New(p)
	if err != nil {
		return nil, err
	}
	return provider.ListModels(ctx, prov)
}
