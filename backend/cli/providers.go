package cli

import (
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"
)

func (e *env) providersCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "providers",
		Short: "List provider profiles: kind, model, and whether each can be used now (and why not)",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			svc, err := e.openService(cmd)
			if err != nil {
				return err
			}
			defer svc.Close()
			list := svc.Providers()
			if asJSON {
				return writeJSON(e.stdout, list)
			}
			tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "NAME\tKIND\tMODEL\tVERSION\tSTATUS")
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
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", name, p.Kind, p.Model, version, status)
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			if f := svc.Config().File; f != "" {
				fmt.Fprintf(e.stderr, "config: %s   (* = default)\n", f)
			} else {
				fmt.Fprintf(e.stderr, "no loopforge.yml found (looked in the current directory and %s)   (* = default)\n", svc.Config().ConfigDir)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}
