//go:build !unix

package manifest

import "time"

// cpuTime is not known here; benchmarks report wall time only.
func cpuTime() (time.Duration, bool) { return 0, false }
