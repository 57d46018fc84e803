package cli

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/loopforge/loopforge/backend/event"
	"github.com/loopforge/loopforge/backend/service"
	"github.com/spf13/cobra"
)

// maxRepeat bounds --repeat: each round is a whole comparison.
const maxRepeat = 20

type repeatFlags struct {
	n         int
	reflectAB bool
}

// compareRepeat runs the comparison rep.n times (twice a round with
// --reflect-ab: reflection on, then off), one round after the other so the
// rounds do not compete for the machine, and prints the summary per
// provider and reflection (service.SummarizeRepeats). Exit 0 when every
// group passed every repeat (pass^N), 1 otherwise.
func (e *env) compareRepeat(cmd *cobra.Command, f runFlags, rep repeatFlags, providers, args []string) error {
	ctx := cmd.Context()
	switch {
	case len(providers) < 2:
		return usagef("compare needs at least two providers: -p NAME -p NAME")
	case rep.n < 1 || rep.n > maxRepeat:
		return usagef("--repeat: between 1 and %d (got %d)", maxRepeat, rep.n)
	case rep.reflectAB && f.noReflect:
		return usagef("--reflect-ab runs with reflection on and off: leave out --no-reflect")
	}
	rr, workdir, err := e.request(cmd, f, args)
	if err != nil {
		return err
	}
	svc, err := e.newService(ctx, workdir)
	if err != nil {
		return err
	}
	defer svc.Close()
	configured := svc.Defaults().Reflect // or --no-reflect
	if rr.Reflect != nil {
		configured = *rr.Reflect
	}
	settings := []bool{configured}
	if rep.reflectAB {
		settings = []bool{true, false}
	}
	var samples []service.RepeatSample
	for round := 1; round <= rep.n; round++ {
		for _, reflect := range settings {
			req := service.CompareRequest{Providers: providers, RunRequest: rr}
			req.Reflect = &reflect
			info, err := svc.StartCompare(ctx, req)
			if err != nil {
				return flagWords(err)
			}
			ids := make([]string, len(info.Runs))
			for i, r := range info.Runs {
				ids[i] = r.RunID
			}
			stop := cancelOnInterrupt(svc, ids...)
			for _, id := range ids {
				if _, err := svc.Wait(ctx, id); err != nil && ctx.Err() != nil {
					stop()
					return ctx.Err()
				}
			}
			stop()
			rows, err := svc.Comparison(ctx, info.SessionID)
			if err != nil {
				return err
			}
			for _, r := range rows {
				samples = append(samples, service.RepeatSample{Row: r, Reflect: reflect})
				if !f.json {
					fmt.Fprintf(e.stderr, "[round %d/%d, reflection %s] %s: %s after %d iteration%s%s\n", round, rep.n, onOff(reflect),
						r.Provider, r.Status, r.Iterations, plural(r.Iterations), testsOf(r))
				}
				if r.Status == event.RunStatusCancelled || r.Status == event.RunStatusInterrupted {
					return &exitError{code: ExitInterrupted}
				}
			}
		}
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
