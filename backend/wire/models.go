package wire

import "github.com/loopforge/loopforge/backend/provider"

// ProviderRef names one provider profile (a path parameter on the web).
type ProviderRef struct {
	Name string `json:"name" path:"name"`
}

// ProviderModel is one model a profile's key can use.
type ProviderModel struct {
	ID string `json:"id"`
	// Name is the API's display name, when it gives one.
	Name string `json:"name,omitempty"`
}

// ProviderModels is what a profile's API lists as the models its key can
// use, sorted by ID.
type ProviderModels struct {
	Provider string          `json:"provider"`
	Models   []ProviderModel `json:"models"`
}

// FromModels converts one profile's models list.
func FromModels(name string, ms []provider.Model) ProviderModels {
	return ProviderModels{Provider: name, Models: each(ms, func(m provider.Model) ProviderModel {
		return ProviderModel{ID: m.ID, Name: m.Name}
	})}
}
