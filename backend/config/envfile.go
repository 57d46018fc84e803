package config

import "path/filepath"

// EnvFile is the .env file of the config directory: where a key goes to be
// found from any working directory (a workdir's own .env wins over it).
func (c *Config) EnvFile() string { return filepath.Join(c.ConfigDir, ".env") }
