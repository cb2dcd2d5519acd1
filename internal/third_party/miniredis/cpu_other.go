//go:build !unix

package miniredis

// cpuTimes reports no CPU time where getrusage is missing (scriptgen).
func cpuTimes() (sys, user float64) { return 0, 0 }
