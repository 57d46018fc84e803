package config

import (
	"path/filepath"
	"testing"
)

func TestEnvFileIsInTheConfigDir(t *testing.T) {
	home := t.TempDir()
	c, err := Load(Options{LookupEnv: envOf(map[string]string{"LOOPFORGE_HOME": home})})
	if err != nil {
		t.Fatal(err)
	}
	if c.EnvFile() != filepath.Join(home, ".env") {
		t.Fatalf("EnvFile %q, want the config directory's .env", c.EnvFile())
	}
}
