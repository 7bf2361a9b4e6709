//go:build !unix

package rollout_test

import "time"

// cpuTime is not known here; the benchmarks report wall time only.
func cpuTime() (time.Duration, bool) { return 0, false }
