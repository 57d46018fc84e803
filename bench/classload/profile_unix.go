//go:build unix

package main

import (
	"os"
	"syscall"
)

// buildTags are the server's build tags: cpuprofile when -cpuprofile asks
// for a profile (cpuprofile_signal.go at the module's root).
func buildTags() string {
	if *cpuProfile != "" {
		return "cpuprofile"
	}
	return ""
}

// toggleProfile starts the server's CPU profile, or stops and writes it,
// when -cpuprofile asks for one.
func toggleProfile(p *os.Process) {
	if *cpuProfile != "" {
		_ = p.Signal(syscall.SIGUSR1)
	}
}
