package manifest

import (
	"time"

	"github.com/daemonsched/daemonsched/internal/scalebench"
)

// cpuTime is the process's CPU time and whether the platform tells it (scalebench.CPUTime).
func cpuTime() (time.Duration, bool) { return scalebench.CPUTime() }
