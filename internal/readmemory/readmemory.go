// Package readmemory is the daemonsched command's garbage-collector policy while it reads its
// input: a soft memory limit (runtime/debug.SetMemoryLimit) of 3 times the input's size, and
// never under 512 MiB. With the Go default alone (GOGC=100) the heap grows to twice what is
// live before a collection; reading, most of the heap is garbage from decoding, so the peak
// was about twice the objects read. A realistic dump (its objects read lean, about half its
// size) never reaches the limit and costs nothing more; an input of many tiny objects (a List
// of 240,000 empty pods, whose objects are 16 times its size) is collected more often near the
// limit instead of doubling. A limit the user gives (GOMEMLIMIT) or a GOGC the user sets is
// left alone. A library does not set the collector: the manifest package never calls this.
package readmemory

import (
	"math"
	"runtime/debug"
)

// Floor is the smallest limit: below it the collector runs as by default.
const Floor = 512 << 20

// PerInputByte is the limit per byte of input.
const PerInputByte = 3

// Limit returns the soft memory limit for reading inputs of n bytes together.
func Limit(n int64) int64 {
	if n > math.MaxInt64/PerInputByte {
		return math.MaxInt64
	}
	return max(Floor, PerInputByte*n)
}

// Set sets the runtime's soft memory limit to Limit(n) for reading n bytes, unless getenv (the
// environment) sets GOMEMLIMIT or GOGC, and returns the function that restores the limit set
// before.
func Set(n int64, getenv func(string) string) (restore func()) {
	if getenv("GOMEMLIMIT") != "" || getenv("GOGC") != "" {
		return func() {}
	}
	before := debug.SetMemoryLimit(Limit(n))
	return func() { debug.SetMemoryLimit(before) }
}
