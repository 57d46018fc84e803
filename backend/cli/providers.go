package cli

import (
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/loopforge/loopforge/backend/provider"
)

func (e *env) providersCmd() *cobra.Command {
	var (
		asJSON, models bool
		only           []string
	)
	cmd := &cobra.Command{
		Use:   "providers",
		Short: "List provider profiles: kind, model, and whether each can be used now (and why not)",
		Long: "List provider profiles: kind, model, and whether each can be used now (and why not).\n\n" +
			"With --models, ask each profile's API which models its key can use (one request per profile, " +
			"at most " + provider.ModelsTimeout.String() + " each); the profile's own model is marked with *.",
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			svc, err := e.openService(cmd)
			if err != nil {
				return err
			}
			defer svc.Close()
			for _, name := range only {
				if _, err := svc.Config().Profile(name); err != nil {
					return err
				}
			}
			if models {
				return e.printModels(cmd.Context(), svc, only, asJSON)
			}
			if len(only) > 0 {
				return usagef("--provider goes with --models")
			}
			list := svc.ProvidersContext(cmd.Context())
			if asJSON {
				return writeJSON(e.stdout, list)
			}
			tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "NAME\tKIND\tMODEL\tVERSION\tTIMEOUTS\tSTATUS")
			for _, p := range list {
				name := p.Name
				if p.Default {
					name += " *"
				}
				status := "ready"
				switch {
				case !p.Available:
					status = "unavailable: " + p.Reason
				case p.KeyRejected != nil:
					status = fmt.Sprintf("key rejected at %s: %s", p.KeyRejected.At.Local().Format("15:04:05"), p.KeyRejected.Message)
				}
				version := p.Version
				if version == "" {
					version = "-"
				}
				timeouts := shortSeconds(p.FirstByteTimeoutSeconds) + "/" + shortSeconds(p.IdleTimeoutSeconds) + "/" +
					shortSeconds(p.TimeoutSeconds)
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", name, p.Kind, p.Model, version, timeouts, status)
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			const legend = "(* = default; TIMEOUTS = first byte/idle/overall, set by first_byte_timeout, idle_timeout, timeout; " +
				"--models lists the models each key can use)"
			if f := svc.Config().File; f != "" {
				fmt.Fprintf(e.stderr, "config: %s   %s\n", f, legend)
			} else {
				fmt.Fprintf(e.stderr, "no loopforge.yml found (looked in the current directory and %s)   %s\n", svc.Config().ConfigDir, legend)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.Flags().BoolVar(&models, "models", false, "list the models each profile's key can use (asks each API)")
	cmd.Flags().StringSliceVarP(&only, "provider", "p", nil, "with --models: only these profiles")
	return cmd
}

// shortSeconds prints a limit compactly ("2m", "90s" as "1m30s", "1h"), or
// "-" for none.
func shortSeconds(sec float64) string {
	if sec <= 0 {
		return "-"
	}
	s := time.Duration(sec * float64(time.Second)).Round(time.Second).String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}
