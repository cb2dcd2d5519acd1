//go:build unix

package miniredis

import "syscall"

// cpuTimes is the process's system and user CPU time in seconds, INFO's
// used_cpu_sys and used_cpu_user (scriptgen).
func cpuTimes() (sys, user float64) {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0, 0
	}
	return float64(ru.Stime.Nano()) / 1e9, float64(ru.Utime.Nano()) / 1e9
}
