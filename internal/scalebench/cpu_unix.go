//go:build unix

package scalebench

import (
	"syscall"
	"time"
)

// CPUTime is the CPU time the process has used so far, user and system, all threads together,
// and whether the platform tells it (getrusage). Benchmarks report it beside wall time: on a
// shared machine it barely moves with the load, where wall time does.
func CPUTime() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
