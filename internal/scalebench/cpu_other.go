//go:build !unix

package scalebench

// cpuNow reads no CPU clock where getrusage is missing: cpu-ns metrics then read 0.
func cpuNow() int64 { return 0 }
