// Package parallel is the project's one worker pool: it cuts a loop over [0, n) into contiguous
// ranges and runs them on several goroutines. A Workers option sets how many goroutines it
// uses, with one meaning everywhere: daemonset.Options.Workers for a plan (deciding nodes,
// claiming pods) and for a fleet.Set's matrix, manifest.Options.Workers for decoding a dump.
package parallel

import "sync"

// Workers returns how many goroutines should share n items when up to workers may and each
// should get at least minShare of them (below that, a goroutine costs more than it saves). It
// is at least 1: workers below 2 mean the calling goroutine only. The Options that carry a
// worker count reject a negative one before it gets here.
func Workers(workers, n, minShare int) int {
	return max(min(workers, n/max(minShare, 1)), 1)
}

// Run calls f on [0, n) cut into at most w contiguous ranges [lo, hi) of ceil(n/w) items (the
// last may be shorter), the first on the calling goroutine and each other one on a goroutine of
// its own, and returns when every call has returned. With w below 2 it is f(0, n). The ranges never overlap, so f may write to
// the part of a shared slice its range owns without locking.
func Run(w, n int, f func(lo, hi int)) {
	if w < 2 || n < 2 {
		f(0, n)
		return
	}
	size := (n + w - 1) / w
	var wg sync.WaitGroup
	for lo := size; lo < n; lo += size {
		wg.Go(func() { f(lo, min(lo+size, n)) })
	}
	f(0, size)
	wg.Wait()
}
