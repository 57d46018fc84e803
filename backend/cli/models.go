package cli

import (
	"context"
	"fmt"
	"io"
	"slices"
	"sync"
	"text/tabwriter"

	"github.com/loopforge/loopforge/backend/provider"
	"github.com/loopforge/loopforge/backend/service"
)

// profileModels is one profile's models list as `providers --models` shows
// it: the models, or why there are none (the error's code and parameters,
// as the web API sends them).
type profileModels struct {
	Provider    string            `json:"provider"`
	Kind        string            `json:"kind"`
	Model       string            `json:"model"` // the profile's model
	Models      []provider.Model  `json:"models"`
	Error       string            `json:"error,omitempty"`
	ErrorCode   string            `json:"error_code,omitempty"`
	ErrorParams map[string]string `json:"error_params,omitempty"`
}

// listModels asks every profile named (all configured ones when names is
// empty) for its models, in parallel; each listing is bounded by
// provider.ModelsTimeout, and a failure is that profile's line, not the
// command's.
func listModels(ctx context.Context, svc *service.Service, names []string) []profileModels {
	cfg := svc.Config()
	if len(names) == 0 {
		names = cfg.Order
	}
	out := make([]profileModels, len(names))
	var wg sync.WaitGroup
	for i, name := range names {
		p := cfg.Profiles[name]
		out[i] = profileModels{Provider: name, Kind: p.Kind, Model: p.Model, Models: []provider.Model{}}
		wg.Go(func() {
			ms, err := svc.ProviderModels(ctx, name)
			if err != nil {
				pr := service.Explain(err)
				out[i].Error, out[i].ErrorCode, out[i].ErrorParams = pr.Message, string(pr.Code), pr.Params
				return
			}
			out[i].Models = ms
		})
	}
	wg.Wait()
	return out
}

// printModels lists the models of the profiles named (of all when none),
// as text or JSON. A profile named with --provider whose listing failed
// makes the command exit 3 (a provider error) once everything is printed;
// listing them all never fails for one profile.
func (e *env) printModels(ctx context.Context, svc *service.Service, only []string, asJSON bool) error {
	list := listModels(ctx, svc, only)
	var err error
	if asJSON {
		err = writeJSON(e.stdout, list)
	} else {
		err = writeModels(e.stdout, list)
	}
	if err != nil || len(only) == 0 {
		return err
	}
	for _, pm := range list {
		if pm.Error != "" && pm.ErrorCode != string(service.CodeNoModelList) {
			return &exitError{code: ExitProvider}
		}
	}
	return nil
}

// writeModels writes each profile's models, one a line, the profile's own
// model marked with *, or the reason there is no list.
func writeModels(w io.Writer, list []profileModels) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for i, pm := range list {
		if i > 0 {
			fmt.Fprintln(tw)
		}
		head := pm.Provider
		if pm.Model != "" {
			head += " (model: " + pm.Model + ")"
		}
		switch {
		case pm.ErrorCode == string(service.CodeNoModelList):
			fmt.Fprintf(tw, "%s: a coding CLI; it chooses among its own models (no list to ask)\n", head)
			continue
		case pm.Error != "":
			fmt.Fprintf(tw, "%s: cannot list its models: %s\n", head, pm.Error)
			continue
		}
		fmt.Fprintf(tw, "%s: %d models this key can use\n", head, len(pm.Models))
		for _, m := range pm.Models {
			mark := " "
			if m.ID == pm.Model {
				mark = "*"
			}
			if m.Name == "" {
				fmt.Fprintf(tw, "  %s %s\n", mark, m.ID)
				continue
			}
			fmt.Fprintf(tw, "  %s %s\t%s\n", mark, m.ID, m.Name)
		}
		if pm.Model != "" && len(pm.Models) > 0 && !slices.ContainsFunc(pm.Models, func(m provider.Model) bool { return m.ID == pm.Model }) {
			// Aliases (claude-sonnet-5 for a dated id) are not listed: not
			// being in the list does not prove a model is gone.
			fmt.Fprintf(tw, "  (%s is not in this list: if runs say it does not exist, pick one above)\n", pm.Model)
		}
	}
	return tw.Flush()
}
