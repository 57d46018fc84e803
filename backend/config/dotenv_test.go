package config

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// A malformed .env line is named by file, line and variable, never with its
// value: the value is usually an API key and errors end up on screens,
// projectors and logs.
func TestMalformedDotenvNamesLineNotValue(t *testing.T) {
	const secret = "sk-proj-Zq8vXsecretSECRET0123456789abcdef"
	tests := []struct {
		name, env string
		want      []string // besides the file's path
	}{
		{"no equals sign", "# keys\nLOOPFORGE_PROVIDER=openai\nOPENAI_API_KEY " + secret + "\n",
			[]string{"line 3: ", "OPENAI_API_KEY", "="}},
		{"no equals sign, no dash in the key", "OPENAI_API_KEY sk1234SECRETSECRET\nOTHER=x\n",
			[]string{"line 1: ", "OPENAI_API_KEY"}},
		{"unterminated double quote", "A=1\nOPENAI_API_KEY=\"" + secret + "\nB=2\n",
			[]string{"line 2: ", "OPENAI_API_KEY", "quote"}},
		{"unterminated single quote", "\n\nexport ANTHROPIC_API_KEY = '" + secret + "\n",
			[]string{"line 3: ", "ANTHROPIC_API_KEY", "quote"}},
		{"a key alone on its line", "A=1\n" + secret + "\n",
			[]string{"line 2: "}},
		{"a lower-case key with spaces", "A=1\nsk_live_SECRETSECRET and more\n",
			[]string{"line 2: "}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wd := t.TempDir()
			write(t, wd, ".env", tt.env)
			_, err := Load(Options{Workdir: wd, LookupEnv: envOf(map[string]string{"LOOPFORGE_HOME": t.TempDir()})})
			var ce *Error
			if !errors.As(err, &ce) {
				t.Fatalf("err = %v, want a *config.Error", err)
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, filepath.Join(wd, ".env")+": ") || strings.Contains(msg, "\n") {
				t.Fatalf("want one line starting with the .env's path:\n%s", msg)
			}
			for _, w := range tt.want {
				if !strings.Contains(msg, w) {
					t.Errorf("%q does not contain %q", msg, w)
				}
			}
			for _, s := range []string{secret, "SECRET", "sk-proj", "sk1234", "sk_live", "and more"} {
				if strings.Contains(msg, s) {
					t.Errorf("the error shows part of the value (%q): %s", s, msg)
				}
			}
		})
	}
}

// What godotenv accepts still reads: export, spaces around =, yaml-style
// colons, comments, quoted values over several lines.
func TestWellFormedDotenvStillReads(t *testing.T) {
	wd := t.TempDir()
	write(t, wd, ".env", "# comment\r\nexport A = one # trailing\r\nB: two\nC=\"multi\nline\" # after\nD='single $A'\nE=\n  \nF=\"esc \\\" quote\"\n")
	m, err := readDotenv(filepath.Join(wd, ".env"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"A": "one", "B": "two", "C": "multi\nline", "D": "single $A", "E": "", "F": `esc " quote`}
	for k, v := range want {
		if m[k] != v {
			t.Errorf("%s = %q, want %q", k, m[k], v)
		}
	}
}
