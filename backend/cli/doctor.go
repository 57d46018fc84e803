package cli

import (
	"fmt"

	"github.com/loopforge/loopforge/backend/config"
	"github.com/loopforge/loopforge/backend/sandbox"
	"github.com/spf13/cobra"
)

func (e *env) doctorCmd() *cobra.Command {
	var asJSON, fresh bool
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Show how generated code is isolated on this machine, and how to get more",
		Long: "doctor probes this machine for the sandbox layers loopforge uses for generated code\n" +
			"(seccomp, Landlock, namespaces with bubblewrap, cgroups), shows which protections a run gets\n" +
			"(files, network, processes, memory, signals) and what to install or change for the missing ones.\n" +
			"The probe is kept until the next boot or a new loopforge binary; --fresh probes again.",
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			dir, err := config.CacheDir(nil)
			if err != nil {
				return err
			}
			rep := sandbox.DoctorCached(sandbox.ProbeOptions{CacheDir: dir, Fresh: fresh})
			if asJSON {
				return writeJSON(e.stdout, rep)
			}
			_, err = fmt.Fprint(e.stdout, rep.Text())
			return err
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.Flags().BoolVar(&fresh, "fresh", false, "probe again instead of using the cached probe (after installing bubblewrap, say)")
	return cmd
}
