// Package readmemory is the daemonsched command's garbage-collector policy while it reads its
// input. With the Go defaults (GOGC=100) the heap grows to twice what is live before a
// collection, and while reading much of what is live at a collection is decoding in flight.
// While reading, the command collects at 50% growth instead of 100%: what a realistic YAML
// dump read lean keeps is 0.46x its size, and at 75% the garbage allowed over it, with what is
// decoding in flight, left its peak at 0.95-1.03x the input (BenchmarkReadMemory in package
// manifest, yaml-dump/plan), 0.92-0.94x at 50%, for more CPU while reading that still leaves the
// reader well under the decode floor's (BenchmarkReadFloor; issue 25 item 6), and under a soft memory
// limit (runtime/debug.SetMemoryLimit) of 3 times the input's size, never under 512 MiB, which
// a realistic dump never reaches, but which collects an input of many tiny objects (a List of
// 240,000 empty pods, whose objects are 16 times its size) more often near the limit instead of
// doubling. Both are restored after reading. A limit the user gives (GOMEMLIMIT) or a GOGC the
// user sets leaves the collector alone. A library does not set the collector: the manifest
// package never calls this.
package readmemory

import (
	"math"
	"runtime/debug"
)

// Floor is the smallest limit: below it the collector runs as by default.
const Floor = 512 << 20

// PerInputByte is the limit per byte of input.
const PerInputByte = 3

// GCPercent is the collector's GOGC while reading.
const GCPercent = 50

// Limit returns the soft memory limit for reading inputs of n bytes together.
func Limit(n int64) int64 {
	if n > math.MaxInt64/PerInputByte {
		return math.MaxInt64
	}
	return max(Floor, PerInputByte*n)
}

// Set sets the runtime's soft memory limit to Limit(n) and its GOGC to GCPercent for reading n
// bytes, unless getenv (the environment) sets GOMEMLIMIT or GOGC, and returns the function that
// restores both as they were.
func Set(n int64, getenv func(string) string) (restore func()) {
	if getenv("GOMEMLIMIT") != "" || getenv("GOGC") != "" {
		return func() {}
	}
	limit := debug.SetMemoryLimit(Limit(n))
	percent := debug.SetGCPercent(GCPercent)
	return func() {
		debug.SetGCPercent(percent)
		debug.SetMemoryLimit(limit)
	}
}
