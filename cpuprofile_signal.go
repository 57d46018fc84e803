//go:build cpuprofile && unix

package main

// This file is built only with -tags cpuprofile (bench/classload -cpuprofile
// builds it so): with LOOPFORGE_CPUPROFILE set to a file, the first SIGUSR1
// starts a CPU profile of this process into that file and the second stops
// and writes it, so a bench profiles the burst alone and not the server's
// start. Release builds never carry it.

import (
	"fmt"
	"os"
	"os/signal"
	"runtime/pprof"
	"syscall"
)

func init() {
	path := os.Getenv("LOOPFORGE_CPUPROFILE")
	if path == "" {
		return
	}
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, syscall.SIGUSR1)
	go func() {
		for {
			<-sigs
			f, err := os.Create(path)
			if err == nil {
				err = pprof.StartCPUProfile(f)
			}
			if err != nil {
				fmt.Fprintln(os.Stderr, "cpuprofile:", err)
				return
			}
			<-sigs
			pprof.StopCPUProfile()
			if err := f.Close(); err != nil {
				fmt.Fprintln(os.Stderr, "cpuprofile:", err)
			}
		}
	}()
}
