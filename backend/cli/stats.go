package cli

import (
	"fmt"
	"text/tabwriter"

	"github.com/loopforge/loopforge/backend/service"
	"github.com/spf13/cobra"
)

func (e *env) statsCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "stats",
		Short: "Statistics over the history: runs, successes, durations, iterations, tokens, cost per provider and model",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			svc, err := e.openService(cmd)
			if err != nil {
				return err
			}
			defer svc.Close()
			st, err := svc.Stats(cmd.Context())
			if err != nil {
				return err
			}
			if asJSON {
				return writeJSON(e.stdout, st)
			}
			if st.Total.Runs == 0 {
				fmt.Fprintln(e.stderr, "no finished runs yet: start one with `loopforge run \"your prompt\"`")
				return nil
			}
			tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
			// TESTS (passed/total over the runs that had tests) only when
			// some had.
			tests := st.Total.TestedRuns > 0
			head := "PROVIDER\tMODEL\tRUNS\tOK\tFAILED\tCANCELLED\tEXEC TIMEOUTS\tAVG\tMEDIAN\tITER TO OK\tTOKENS IN/OUT\tCOST"
			if tests {
				head += "\tTESTS"
			}
			fmt.Fprintln(tw, head)
			row := func(name, model string, g service.StatsGroup) {
				iters := "-"
				if g.Successes > 0 {
					iters = fmt.Sprintf("%.1f", g.AvgIterationsToSuccess)
				}
				fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%d\t%s\t%s\t%s\t%d/%d\t%s", name, dash(model), g.Runs, g.Successes,
					g.Failures, g.Cancelled, g.ExecTimeouts, ms(g.AvgMS), ms(g.MedianMS), iters, g.InputTokens, g.OutputTokens, cost(g.CostUSD))
				switch {
				case tests && g.TestedRuns > 0:
					fmt.Fprintf(tw, "\t%d/%d", g.TestsPassed, g.TestsTotal)
				case tests:
					fmt.Fprint(tw, "\t-")
				}
				fmt.Fprintln(tw)
			}
			for _, g := range st.Groups {
				row(g.Provider, g.Model, g)
			}
			row("all", "", st.Total)
			return tw.Flush()
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}
