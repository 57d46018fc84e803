package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/loopforge/loopforge/backend/event"
)

func (e *env) sessionsCmd() *cobra.Command {
	var asJSON bool
	var query string
	var limit int
	cmd := &cobra.Command{
		Use:   "sessions",
		Short: "List stored sessions (most recent first)",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			svc, err := e.openService(cmd)
			if err != nil {
				return err
			}
			defer svc.Close()
			list, err := svc.Sessions(cmd.Context(), query, limit)
			if err != nil {
				return err
			}
			if asJSON {
				return writeJSON(e.stdout, list)
			}
			if len(list) == 0 {
				fmt.Fprintln(e.stderr, "no sessions yet: start one with `loopforge run \"your prompt\"`")
				return nil
			}
			tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tUPDATED\tRUNS\tTITLE")
			for _, s := range list {
				var runs []string
				for _, r := range s.Runs {
					runs = append(runs, fmt.Sprintf("%s:%s(%d)", r.Provider, r.Status, r.Iterations))
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", s.ID, s.UpdatedAt.Local().Format("2006-01-02 15:04"), strings.Join(runs, " "), s.Title)
			}
			return tw.Flush()
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.Flags().StringVarP(&query, "query", "q", "", "only sessions whose title or prompt contains this text")
	cmd.Flags().IntVar(&limit, "limit", 50, "at most this many sessions")
	cmd.AddCommand(e.sessionsShowCmd(), e.sessionsDeleteCmd())
	return cmd
}

func (e *env) sessionsShowCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "show ID",
		Short: "Print one session with its runs and iterations",
		Args:  exactArgs(1, "a session id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			svc, err := e.openService(cmd)
			if err != nil {
				return err
			}
			defer svc.Close()
			d, err := svc.Session(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			if asJSON {
				return writeJSON(e.stdout, d)
			}
			w := e.stdout
			fmt.Fprintf(w, "session %s  (%s)\n", d.ID, d.CreatedAt.Local().Format(time.DateTime))
			fmt.Fprintf(w, "prompt:\n%s\n", indent(d.Prompt))
			for _, r := range d.Runs {
				fmt.Fprintf(w, "\nrun %s: %s %s: %s after %d iteration%s", r.ID, r.Provider, r.Model, r.Status, r.Iterations, plural(r.Iterations))
				if r.DurationMS > 0 {
					fmt.Fprintf(w, " (%s, %d tokens in / %d out)", (time.Duration(r.DurationMS) * time.Millisecond).Round(100*time.Millisecond), r.InputTokens, r.OutputTokens)
				}
				fmt.Fprintln(w)
				if r.Error != "" {
					fmt.Fprintf(w, "  error: %s\n", oneLine(r.Error))
				}
				for _, it := range d.Iterations[r.ID] {
					fmt.Fprintf(w, "  iteration %d: %s", it.N, it.Status)
					if it.Summary != "" && it.Status != event.IterationStatusSuccess {
						fmt.Fprintf(w, ": %s", oneLine(it.Summary))
					}
					fmt.Fprintln(w)
					if it.Reflection != "" {
						fmt.Fprintf(w, "    reflection: %s\n", oneLine(it.Reflection))
					}
				}
				if r.FinalCode != "" {
					fmt.Fprintf(w, "  final code:\n%s", indent(r.FinalCode))
					if !strings.HasSuffix(r.FinalCode, "\n") {
						fmt.Fprintln(w)
					}
				}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func (e *env) sessionsDeleteCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "delete ID",
		Short: "Delete a session and everything in it",
		Args:  exactArgs(1, "a session id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			svc, err := e.openService(cmd)
			if err != nil {
				return err
			}
			defer svc.Close()
			if err := svc.DeleteSession(cmd.Context(), args[0]); err != nil {
				return err
			}
			fmt.Fprintf(e.stderr, "deleted session %s\n", args[0])
			return nil
		},
	}
}

func indent(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = "    " + l
	}
	return strings.Join(lines, "\n") + "\n"
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func noArgs(_ *cobra.Command, args []string) error {
	if len(args) > 0 {
		return usagef("unexpected argument %q", args[0])
	}
	return nil
}

func exactArgs(n int, what string) cobra.PositionalArgs {
	return func(_ *cobra.Command, args []string) error {
		if len(args) != n {
			return usagef("expected %s", what)
		}
		return nil
	}
}
