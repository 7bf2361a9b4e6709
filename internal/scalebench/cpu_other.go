//go:build !unix

package scalebench

import "time"

// CPUTime reads no CPU clock where getrusage is missing: it reports false, and cpu-ns metrics
// read 0.
func CPUTime() (time.Duration, bool) { return 0, false }
