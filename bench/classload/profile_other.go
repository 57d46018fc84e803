//go:build !unix

package main

import "os"

// buildTags: no profile off Unix (the server's hook listens for SIGUSR1).
func buildTags() string { return "" }

func toggleProfile(*os.Process) {}
