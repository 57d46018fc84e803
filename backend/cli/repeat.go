package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"text/tabwriter"

	"github.com/loopforge/loopforge/backend/service"
	"github.com/spf13/cobra"
)

type repeatFlags struct {
	n         int
	reflectAB bool
}

// compareRepeat runs the comparison rep.n times (twice a round with
// --reflect-ab: reflection on, then off) through service.Repeat, one round
// after the other, and prints the summary per provider and reflection
// (service.SummarizeRepeats). Exit 0 when every group passed every repeat
// (pass^N), 1 otherwise.
func (e *env) compareRepeat(cmd *cobra.Command, f runFlags, rep repeatFlags, providers, args []string) error {
	switch {
	case len(providers) < 2:
		return usagef("compare needs at least two providers: -p NAME -p NAME")
	case rep.n < 1 || rep.n > service.MaxRepeat:
		return usagef("--repeat: between 1 and %d (got %d)", service.MaxRepeat, rep.n)
	case rep.reflectAB && f.noReflect:
		return usagef("--reflect-ab runs with reflection on and off: leave out --no-reflect")
	}
	rr, workdir, err := e.request(cmd, f, args)
	if err != nil {
		return err
	}
	svc, err := e.newService(cmd.Context(), workdir)
	if err != nil {
		return err
	}
	defer svc.Close()
	// Ctrl-C cancels the round's runs and starts no other.
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	req := service.RepeatRequest{CompareRequest: service.CompareRequest{Providers: providers, RunRequest: rr}, Repeat: rep.n, ReflectAB: rep.reflectAB}
	perRound := req.Rounds() / rep.n // comparisons a round: 2 with --reflect-ab
	samples, err := svc.Repeat(ctx, req, service.RepeatObserver{
		Ended: func(r service.RepeatRound, rows []service.ComparisonRow) {
			if f.json {
				return
			}
			for _, row := range rows {
				fmt.Fprintf(e.stderr, "[round %d/%d, reflection %s] %s: %s after %d iteration%s%s\n", (r.Round-1)/perRound+1, rep.n,
					onOff(r.Reflect), row.Provider, row.Status, row.Iterations, plural(row.Iterations), testsOf(row))
			}
		},
	})
	switch {
	case errors.Is(err, service.ErrCancelled):
		return &exitError{code: ExitInterrupted}
	case err != nil:
		return flagWords(err)
	}
	groups := service.SummarizeRepeats(samples)
	if f.json {
		if err := writeLine(e.stdout, map[string]any{"type": "repeat", "repeat": rep.n, "payload": groups}); err != nil {
			return err
		}
	} else {
		printRepeat(e.stdout, rep.n, groups)
	}
	for _, g := range groups {
		if !g.PassAll {
			return &exitError{code: ExitFailed}
		}
	}
	return nil
}

func onOff(on bool) string {
	if on {
		return "on"
	}
	return "off"
}

func testsOf(r service.ComparisonRow) string {
	if r.TestsTotal == 0 {
		return ""
	}
	return fmt.Sprintf(", %d/%d tests", r.TestsPassed, r.TestsTotal)
}

// printRepeat writes the summary: one line per provider and reflection.
func printRepeat(w io.Writer, n int, groups []service.RepeatGroup) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "PROVIDER\tREFLECT\tPASS^%d\tPASS@1\tITER TO GREEN\tWALL\tCOST\tTESTS\n", n)
	for _, g := range groups {
		passAll := "no"
		if g.PassAll {
			passAll = "yes"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d/%d\t%s\t%s\t%s\t%s\n", g.Provider, onOff(g.Reflect), passAll, g.Successes, g.Runs,
			spreadOf(g.IterationsToGreen, "%.1f"), spreadOf(scaled(g.WallMS, 1e-3), "%.1fs"), spreadOf(g.CostUSD, "$%.4f"),
			spreadOf(scaled(g.TestsPassed, 100), "%.0f%%"))
	}
	_ = tw.Flush()
}

// spreadOf is "mean ± sd" in format, "-" when no run had a value.
func spreadOf(s service.Spread, format string) string {
	if s.N == 0 {
		return "-"
	}
	return fmt.Sprintf(format+" ± "+format, s.Mean, s.SD)
}

func scaled(s service.Spread, k float64) service.Spread {
	s.Mean, s.SD = s.Mean*k, s.SD*k
	return s
}
