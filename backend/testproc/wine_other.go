//go:build !windows

package testproc

// Wine returns "": only a Windows binary can run under Wine.
func Wine() string { return "" }
