package gen

import (
	"bytes"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/loopforge/loopforge/backend/api"
)

// root is the repository root, seen from this package.
const root = "../../.."

const stale = "; run `go generate` at the repository root and commit the result"

func TestAppMethodsAreCurrent(t *testing.T) {
	want, err := AppMethods(api.Ops)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(root, AppFile))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s differs from what backend/api.Ops generates%s", AppFile, stale)
	}
}

// TestTypeScriptIsCurrent regenerates the frontend's types into a temporary
// folder: the committed ones must be the same, and nothing else may sit
// beside them.
func TestTypeScriptIsCurrent(t *testing.T) {
	if testing.Short() {
		t.Skip("loads packages with go list")
	}
	tmp := t.TempDir()
	if err := TypeScript(tmp); err != nil {
		t.Fatal(err)
	}
	committed := filepath.Join(root, TSDir)
	for _, name := range TSPackages {
		want, err := os.ReadFile(filepath.Join(tmp, name))
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(filepath.Join(committed, name))
		if err != nil {
			t.Fatalf("%v%s", err, stale)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s/%s differs from what the Go types generate%s", TSDir, name, stale)
		}
	}
	got, err := os.ReadFile(filepath.Join(committed, TSOps))
	if err != nil || !bytes.Equal(got, OpsTS(api.Ops)) {
		t.Errorf("%s/%s differs from what backend/api.Ops generates (%v)%s", TSDir, TSOps, err, stale)
	}
	entries, err := os.ReadDir(committed)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !slices.Contains(slices.Collect(maps.Values(TSPackages)), e.Name()) && e.Name() != TSOps {
			t.Errorf("%s/%s is not generated: keep hand-written code out of %s", TSDir, e.Name(), TSDir)
		}
	}
}
