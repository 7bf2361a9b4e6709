//go:build unix

package rollout_test

import (
	"syscall"
	"time"
)

// cpuTime is the process's user and system CPU time, and whether the platform tells it.
func cpuTime() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
