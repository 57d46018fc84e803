package config

import (
	"errors"
	"path/filepath"
	"testing"
)

// A key given twice in one mapping is refused with both lines, wherever the
// mapping is: yaml.v3 would keep the last (or, for providers, merge both).
func TestDuplicateKeysNameBothLines(t *testing.T) {
	tests := []struct{ name, yml, want string }{
		{"top level", "timeout: 10s\nmax_iterations: 3\ntimeout: 20s\n",
			`line 3: duplicate key "timeout" (first at line 1)`},
		{"provider profiles", "providers:\n  x:\n    kind: openai\n  y:\n    kind: gemini-api\n  x:\n    kind: anthropic\n",
			`line 6: duplicate key "x" in providers (first at line 2)`},
		{"inside a profile", "providers:\n  openai:\n    model: a\n    model: b\n",
			`line 4: duplicate key "model" in providers.openai (first at line 3)`},
		{"limits", "limits:\n  memory: 1GiB\n  output: 1MiB\n  memory: 2GiB\n",
			`line 4: duplicate key "memory" in limits (first at line 2)`},
		{"a tool", "tools:\n  - name: t\n    command: ls\n    name: u\n",
			`line 4: duplicate key "name" in tools[0] (first at line 2)`},
		{"a profile's env", "providers:\n  claude:\n    env:\n      A: x\n      A: y\n",
			`line 5: duplicate key "A" in providers.claude.env (first at line 4)`},
		{"flow style", "providers: {x: {kind: openai}, x: {kind: anthropic}}\n",
			`line 1: duplicate key "x" in providers (first at line 1)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wd := t.TempDir()
			write(t, wd, FileName, tt.yml)
			_, err := Load(Options{Workdir: wd, LookupEnv: envOf(map[string]string{"LOOPFORGE_HOME": t.TempDir()})})
			var ce *Error
			if !errors.As(err, &ce) {
				t.Fatalf("err = %v, want a *config.Error", err)
			}
			want := filepath.Join(wd, FileName) + ": " + tt.want
			if msg := err.Error(); msg != want {
				t.Fatalf("got  %q\nwant %q", msg, want)
			}
		})
	}
}

// The same key in two different mappings is no duplicate.
func TestSameKeyInTwoMappingsIsFine(t *testing.T) {
	wd := t.TempDir()
	write(t, wd, FileName, "tools:\n  - name: a\n    command: ls\n  - name: b\n    command: ls\nproviders:\n  a:\n    kind: openai\n    model: m\n  b:\n    kind: openai\n    model: m\n")
	if _, err := Load(Options{Workdir: wd, LookupEnv: envOf(map[string]string{"LOOPFORGE_HOME": t.TempDir()})}); err != nil {
		t.Fatal(err)
	}
}
