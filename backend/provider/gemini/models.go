package gemini

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/loopforge/loopforge/backend/provider"
)

// modelsPage is how many models each models.list call asks for: the API's
// maximum (unasked, it gives 50 a page).
const modelsPage = "1000"

// modelList is the answer of models.list (GET /v1beta/models): a page of
// models, and nextPageToken while more follow.
type modelList struct {
	Models []struct {
		// Name is the resource name, "models/gemini-…".
		Name                       string   `json:"name"`
		DisplayName                string   `json:"displayName"`
		SupportedGenerationMethods []string `json:"supportedGenerationMethods"`
	} `json:"models"`
	NextPageToken string `json:"nextPageToken"`
}

// Models lists the models the profile's key can use to generate text:
// models.list, every page, keeping those whose supportedGenerationMethods
// include generateContent (the list also holds embedding and other
// models), by the ID a profile's model: takes (without "models/").
func (c *Client) Models(ctx context.Context) ([]provider.Model, error) {
	return provider.Pages(ctx, func(ctx context.Context, token string) ([]provider.Model, string, error) {
		q := url.Values{"pageSize": {modelsPage}}
		if token != "" {
			q.Set("pageToken", token)
		}
		var page modelList
		if err := c.call.GetJSON(ctx, c.root+"models?"+q.Encode(), c.header, &page); err != nil {
			return nil, "", c.failure(ctx, err)
		}
		out := make([]provider.Model, 0, len(page.Models))
		for _, m := range page.Models {
			if !slices.Contains(m.SupportedGenerationMethods, "generateContent") {
				continue
			}
			if id := strings.TrimPrefix(m.Name, "models/"); id != "" {
				out = append(out, provider.Model{ID: id, Name: m.DisplayName})
			}
		}
		return out, page.NextPageToken, nil
	})
}

// modelMissing reports the API's answer to a model that does not exist
// or does not generate content: HTTP 404 with status NOT_FOUND (the model
// is the only resource a generateContent URL names).
func modelMissing(status int, e *rpcStatus) bool {
	return status == http.StatusNotFound && e.Status == "NOT_FOUND"
}
