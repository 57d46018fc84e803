// Command gen writes app_ops.go and frontend/src/api/gen/*.ts from
// backend/api and backend/wire. `go generate` runs it at the repository
// root (see app.go).
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/loopforge/loopforge/backend/api"
	"github.com/loopforge/loopforge/backend/api/gen"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func run() error {
	src, err := gen.AppMethods(api.Ops)
	if err != nil {
		return err
	}
	if err := os.WriteFile(gen.AppFile, src, 0o644); err != nil {
		return fmt.Errorf("gen: %w", err)
	}
	if err := gen.TypeScript(gen.TSDir); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(gen.TSDir, gen.TSOps), gen.OpsTS(api.Ops), 0o644); err != nil {
		return fmt.Errorf("gen: %w", err)
	}
	return nil
}
