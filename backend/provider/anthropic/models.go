package anthropic

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"

	"github.com/loopforge/loopforge/backend/provider"
)

// modelsPage is how many models each GET /v1/models asks for: the API's
// maximum (its default, 20, would take several pages).
const modelsPage = 1000

// modelList is the answer of GET /v1/models: a page, newest first, with
// has_more and last_id to ask for the next (?after_id=).
type modelList struct {
	Data []struct {
		ID          string `json:"id"`
		DisplayName string `json:"display_name"`
	} `json:"data"`
	HasMore bool   `json:"has_more"`
	LastID  string `json:"last_id"`
}

// Models lists the models the profile's key can use: GET /v1/models
// (x-api-key, anthropic-version), every page.
func (c *Client) Models(ctx context.Context) ([]provider.Model, error) {
	return provider.Pages(ctx, func(ctx context.Context, after string) ([]provider.Model, string, error) {
		q := url.Values{"limit": {strconv.Itoa(modelsPage)}}
		if after != "" {
			q.Set("after_id", after)
		}
		var page modelList
		if err := c.call.GetJSON(ctx, c.modelsURL+"?"+q.Encode(), c.header, &page); err != nil {
			return nil, "", c.errs.Failure(ctx, err, nil)
		}
		out := make([]provider.Model, 0, len(page.Data))
		for _, m := range page.Data {
			if m.ID != "" {
				out = append(out, provider.Model{ID: m.ID, Name: m.DisplayName})
			}
		}
		next := ""
		if page.HasMore {
			next = page.LastID
		}
		return out, next, nil
	})
}

// modelMissing reports the API's answer to a model that does not exist
// (or was retired): 404 with error type not_found_error. Its message is
// not stable ("model: x", or only "Not found"), its type is.
func modelMissing(se *provider.HTTPStatusError) (bool, string) {
	if se.Status != http.StatusNotFound {
		return false, ""
	}
	var ev errorEvent
	if json.Unmarshal(se.Body, &ev) != nil || ev.Error.Type != "not_found_error" {
		return false, ""
	}
	return true, ev.Error.Message
}
