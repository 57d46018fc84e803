package cli

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/loopforge/loopforge/backend/export"
	"github.com/spf13/cobra"
)

func (e *env) exportCmd() *cobra.Command {
	var format, runID, out, lang, tz string
	var formats []string
	for _, f := range export.Formats() {
		formats = append(formats, string(f))
	}
	cmd := &cobra.Command{
		Use:   "export SESSION --format " + strings.Join(formats, "|") + " [--out PATH]",
		Short: "Export a session: the final script, a zip of every provider's script, a handout, a notebook or JSON",
		Long: "Export a session. py: the final script with a provenance header; zip: every run's final script and a\n" +
			"comparison summary; md / html: a handout (prompt, each iteration's code, error and reflection, final\n" +
			"code and output); ipynb: a Jupyter notebook; json: the whole session, which `loopforge import` reads.\n" +
			"--out is a directory (default: the current one) or a file path. Existing files are never overwritten\n" +
			"unless --out names that exact file.",
		Args: exactArgs(1, "a session id (see `loopforge sessions`)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if format == "" {
				return usagef("--format is required: one of %s", strings.Join(formats, ", "))
			}
			if _, err := export.ParseFormat(format); err != nil {
				return usagef("%v", err)
			}
			if _, err := export.ParseLang(lang); err != nil {
				return usagef("%v", err)
			}
			if _, err := export.ParseZone(tz); err != nil {
				return usagef("%v", err)
			}
			svc, err := e.openService(cmd)
			if err != nil {
				return err
			}
			defer svc.Close()
			name, data, err := svc.Export(cmd.Context(), args[0], format, runID, lang, tz)
			if err != nil {
				return err
			}
			dest := out
			if dest == "" {
				dest, _ = os.Getwd()
			}
			path, err := export.WriteFile(dest, name, data)
			if errors.Is(err, export.ErrExists) {
				return usagef("%v (give the file path with --out to replace it)", err)
			}
			if err != nil {
				return err
			}
			fmt.Fprintln(e.stdout, path)
			return nil
		},
	}
	cmd.Flags().StringVarP(&format, "format", "f", "", "output format: "+strings.Join(formats, ", "))
	cmd.Flags().StringVar(&runID, "run", "", "the run to export (py, ipynb, md, html); default: the first success, else the latest")
	cmd.Flags().StringVarP(&out, "out", "o", "", "destination directory or file (default: the current directory)")
	cmd.Flags().StringVar(&lang, "lang", "en", "language of the export's own headings, labels and dates: en or pt")
	cmd.Flags().StringVar(&tz, "tz", "", "time zone of the export's dates, an IANA name such as America/Sao_Paulo (default: this machine's)")
	return cmd
}

func (e *env) importCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "import FILE",
		Short: "Import a session exported with --format json (as a new session)",
		Args:  exactArgs(1, "a .loopforge.json file"),
		RunE: func(cmd *cobra.Command, args []string) error {
			f, err := os.Open(args[0])
			if errors.Is(err, os.ErrNotExist) {
				return usagef("%s does not exist", args[0])
			}
			if err != nil {
				return err
			}
			defer f.Close()
			b, err := export.ReadBundle(f)
			if err != nil {
				return usagef("%s: %v", args[0], err)
			}
			svc, err := e.openService(cmd)
			if err != nil {
				return err
			}
			defer svc.Close()
			id, err := svc.Import(cmd.Context(), b)
			if err != nil {
				return err
			}
			fmt.Fprintf(e.stderr, "imported %s as session %s (%d run%s)\n", args[0], id, len(b.Runs), plural(len(b.Runs)))
			fmt.Fprintln(e.stdout, id)
			return nil
		},
	}
}
