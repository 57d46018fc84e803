// Package medians summarises the benchmarks' samples: medians and ranges,
// which a noisy shared machine moves less than means.
package medians

import (
	"fmt"
	"slices"
)

// Of is the median of v (0 for none).
func Of(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// Spread is "median unit (min–max)", unit left out when empty.
func Spread(v []float64, unit string) string {
	if len(v) == 0 {
		return "–"
	}
	if unit != "" {
		unit = " " + unit
	}
	return fmt.Sprintf("%.1f%s (%.1f–%.1f)", Of(v), unit, slices.Min(v), slices.Max(v))
}
