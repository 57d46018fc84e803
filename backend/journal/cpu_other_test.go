//go:build !unix

package journal

import "time"

// processCPU: not measured off Unix (the benchmark then reports no CPU).
func processCPU() time.Duration { return 0 }
