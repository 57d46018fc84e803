package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/loopforge/loopforge/backend/event"
	"github.com/loopforge/loopforge/backend/service"
	"github.com/spf13/cobra"
)

func (e *env) compareCmd() *cobra.Command {
	var f runFlags
	var providers []string
	var rep repeatFlags
	cmd := &cobra.Command{
		Use:   "compare -p NAME -p NAME [flags] [PROMPT]",
		Short: "Run one prompt on several providers at once and compare them",
		Long: "Run the loop on every provider given with -p, concurrently (a slow or failing provider never\n" +
			"holds the others back), then print a comparison table: status, iterations to success, wall\n" +
			"time, time to first token, tokens, cost, lines of code, final exit code. Ctrl-C cancels all.\n" +
			"Exit code 0 when every provider succeeded, 1 otherwise.",
		RunE: func(cmd *cobra.Command, args []string) error {
			if cmd.Flags().Changed("repeat") || rep.reflectAB {
				return e.compareRepeat(cmd, f, rep, providers, args)
			}
			return e.compare(cmd, f, providers, args)
		},
	}
	fl := cmd.Flags()
	fl.StringArrayVarP(&providers, "provider", "p", nil, "provider profile (repeat: at least two)")
	fl.IntVar(&rep.n, "repeat", 1, "run the comparison N times (at most "+strconv.Itoa(service.MaxRepeat)+") and summarise per provider: pass^N, pass@1, iterations to green, time and cost with their spread")
	fl.BoolVar(&rep.reflectAB, "reflect-ab", false, "with --repeat: each round twice, reflection on and off, summarised apart")
	f.bind(fl, "model for every provider (default: each profile's)", "JSON Lines: every event, then a final {\"type\":\"comparison\"} line")
	return cmd
}

func (e *env) compare(cmd *cobra.Command, f runFlags, providers, args []string) error {
	ctx := cmd.Context()
	if len(providers) < 2 {
		return usagef("compare needs at least two providers: -p NAME -p NAME")
	}
	rr, workdir, err := e.request(cmd, f, args)
	if err != nil {
		return err
	}
	req := service.CompareRequest{Providers: providers, RunRequest: rr}
	svc, err := e.newService(ctx, workdir)
	if err != nil {
		return err
	}
	defer svc.Close()
	info, err := svc.StartCompare(ctx, req)
	if err != nil {
		return flagWords(err)
	}

	ids := make([]string, len(info.Runs))
	for i, r := range info.Runs {
		ids[i] = r.RunID
	}
	defer cancelOnInterrupt(svc, ids...)()

	if !f.json {
		fmt.Fprintf(e.stderr, "loopforge: comparing %d providers, %s, session %s\n", len(info.Runs), sandboxLabel(svc.Defaults(), rr.Mode == event.ModeWorkspace), info.SessionID)
	}
	// One follower per run; output lines are serialised so columns never mix
	// within a line.
	var mu sync.Mutex
	var wg sync.WaitGroup
	errs := make([]error, len(info.Runs))
	for i, r := range info.Runs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = svc.Follow(ctx, r.RunID, 0, func(ev event.Event) error {
				mu.Lock()
				defer mu.Unlock()
				if f.json {
					return writeLine(e.stdout, ev)
				}
				compareLine(e.stderr, r.Provider, ev)
				return nil
			})
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	rows, err := svc.Comparison(ctx, info.SessionID)
	if err != nil {
		return err
	}
	if f.json {
		if err := writeLine(e.stdout, map[string]any{"type": "comparison", "session_id": info.SessionID, "payload": rows}); err != nil {
			return err
		}
	} else {
		printComparison(e.stdout, rows)
	}
	for _, r := range rows {
		if r.Status != event.RunStatusSuccess {
			return &exitError{code: ExitFailed}
		}
	}
	return nil
}

func writeLine(w io.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}

// compareLine prints the few events worth a line in a comparison.
func compareLine(w io.Writer, name string, ev event.Event) {
	switch ev.Type {
	case event.IterationDone:
		var d event.IterationDonePayload
		_ = ev.Decode(&d)
		if d.Status == event.IterationStatusSuccess {
			fmt.Fprintf(w, "[%s] iteration %d: success\n", name, d.Iteration)
		} else {
			fmt.Fprintf(w, "[%s] iteration %d: error: %s\n", name, d.Iteration, oneLine(d.Summary))
		}
	case event.Tested:
		var t event.TestsPayload
		_ = ev.Decode(&t)
		fmt.Fprintf(w, "[%s] iteration %d: tests %d/%d passed\n", name, t.Iteration, t.Passed, t.Total)
	case event.RunFinished:
		var p event.RunFinishedPayload
		_ = ev.Decode(&p)
		msg := string(p.Status)
		if p.Error != "" {
			msg += ": " + oneLine(p.Error)
		}
		fmt.Fprintf(w, "[%s] finished: %s\n", name, msg)
	case event.Validated:
		var v event.ValidatePayload
		_ = ev.Decode(&v)
		verdict := "passed"
		if !v.Passed {
			verdict = fmt.Sprintf("failed (exit %d)", v.ExitCode)
		}
		fmt.Fprintf(w, "[%s] iteration %d: `%s` %s\n", name, v.Iteration, v.Command, verdict)
	case event.Git:
		var g event.GitPayload
		_ = ev.Decode(&g)
		switch g.Action {
		case "worktree":
			fmt.Fprintf(w, "[%s] working in %s on branch %s\n", name, g.Path, g.Branch)
		case "commit":
			fmt.Fprintf(w, "[%s] committed %.12s on %s\n", name, g.Commit, g.Branch)
		}
	case event.Log:
		var l event.LogPayload
		_ = ev.Decode(&l)
		fmt.Fprintf(w, "[%s] note: %s\n", name, l.Message)
	}
}

// printComparison writes the table; a TESTS column (passed/total) is there
// when the comparison had tests.
func printComparison(w io.Writer, rows []service.ComparisonRow) {
	tests := slices.ContainsFunc(rows, func(r service.ComparisonRow) bool { return r.TestsTotal > 0 })
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	head := "PROVIDER\tMODEL\tSTATUS\tITER\tTO SUCCESS\tWALL\tFIRST TOKEN\tTOKENS IN/OUT\tCOST\tLINES\tEXIT"
	if tests {
		head += "\tTESTS"
	}
	fmt.Fprintln(tw, head)
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\t%s\t%d/%d\t%s\t%d\t%s",
			r.Provider, dash(r.Model), r.Status, r.Iterations, optInt(r.IterationsToSuccess),
			ms(r.WallMS), optMS(r.FirstTokenMS), r.InputTokens, r.OutputTokens, cost(r.CostUSD), r.LinesOfCode, optInt(r.FinalExitCode))
		if tests {
			fmt.Fprintf(tw, "\t%d/%d", r.TestsPassed, r.TestsTotal)
		}
		fmt.Fprintln(tw)
	}
	_ = tw.Flush()
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func optInt(p *int) string {
	if p == nil {
		return "-"
	}
	return strconv.Itoa(*p)
}

func ms(v int64) string {
	return (time.Duration(v) * time.Millisecond).Round(100 * time.Millisecond).String()
}

func optMS(p *int64) string {
	if p == nil {
		return "-"
	}
	return ms(*p)
}

func cost(c float64) string {
	if c == 0 {
		return "-"
	}
	return fmt.Sprintf("$%.4f", c)
}

// resolveWorkdir returns dir, or the current directory when dir is "".
func resolveWorkdir(dir string) (string, error) {
	if dir == "" {
		wd, _ := os.Getwd()
		return wd, nil
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return "", usagef("--workdir %s is not a directory", dir)
	}
	return dir, nil
}
