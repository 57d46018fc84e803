package openai

import (
	"context"
	"net/http"
	"net/url"

	"github.com/loopforge/loopforge/backend/provider"
)

// modelList is the answer of GET {base}/models: OpenAI's is one page
// ({"object":"list","data":[…]}); servers that page it follow OpenAI's
// cursor convention (has_more, last_id, ?after=). OpenRouter adds a
// display name.
type modelList struct {
	Data []struct {
		ID   string `json:"id"`
		Name string `json:"name"`
	} `json:"data"`
	HasMore bool   `json:"has_more"`
	LastID  string `json:"last_id"`
}

// Models lists the models the profile's key can use: GET {base_url}/models,
// every page. The list is not filtered: OpenAI's names no capabilities, so
// it holds embedding, audio and image models too.
func (c *Client) Models(ctx context.Context) ([]provider.Model, error) {
	return provider.Pages(ctx, func(ctx context.Context, after string) ([]provider.Model, string, error) {
		u := c.baseURL + "/models"
		if after != "" {
			u += "?after=" + url.QueryEscape(after)
		}
		var page modelList
		if err := c.call.GetJSON(ctx, u, c.auth, &page); err != nil {
			return nil, "", c.errs.Failure(ctx, err, nil)
		}
		out := make([]provider.Model, 0, len(page.Data))
		for _, m := range page.Data {
			if m.ID != "" {
				out = append(out, provider.Model{ID: m.ID, Name: m.Name})
			}
		}
		next := ""
		if page.HasMore && len(page.Data) > 0 {
			next = page.LastID
			if next == "" {
				next = page.Data[len(page.Data)-1].ID
			}
		}
		return out, next, nil
	})
}

// modelMissing reports OpenAI's answer to a model that does not exist or
// is not open to the key: 404 with error.code "model_not_found". Other
// compatible servers word it their own way and stay bad requests.
func modelMissing(status int, body streamError) bool {
	return status == http.StatusNotFound && body.Code == "model_not_found"
}
