package parallel_test

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/daemonsched/daemonsched/internal/parallel"
)

func TestWorkers(t *testing.T) {
	t.Parallel()
	tests := []struct {
		workers, n, minShare, want int
	}{
		{workers: 0, n: 100, minShare: 1, want: 1},
		{workers: 1, n: 100, minShare: 1, want: 1},
		{workers: 4, n: 100, minShare: 1, want: 4},
		{workers: 4, n: 3, minShare: 1, want: 3},
		{workers: 4, n: 0, minShare: 1, want: 1},
		{workers: 8, n: 10_000, minShare: 2048, want: 4},
		{workers: 8, n: 4095, minShare: 2048, want: 1},
		{workers: 2, n: 1_000_000, minShare: 2048, want: 2},
		{workers: 3, n: 5, minShare: 0, want: 3}, // a share below 1 means 1
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("workers=%d,n=%d,minShare=%d", tt.workers, tt.n, tt.minShare), func(t *testing.T) {
			require.Equal(t, tt.want, parallel.Workers(tt.workers, tt.n, tt.minShare))
		})
	}
}

func TestWorkersBelowTwoIsTheCallingGoroutine(t *testing.T) {
	t.Parallel()
	for _, workers := range []int{-1, 0, 1} {
		require.Equal(t, 1, parallel.Workers(workers, 10_000, 1), "workers %d", workers)
	}
}

// TestRunCoversEveryIndexOnce: the ranges are contiguous, do not overlap, cover [0, n) and
// number min(w, n) (one range when w is below 2).
func TestRunCoversEveryIndexOnce(t *testing.T) {
	t.Parallel()
	for _, w := range []int{0, 1, 2, 3, 7} {
		for _, n := range []int{0, 1, 2, 5, 6, 7, 100, 101} {
			t.Run(fmt.Sprintf("w=%d,n=%d", w, n), func(t *testing.T) {
				hits := make([]int, n)
				var mu sync.Mutex
				var ranges [][2]int
				parallel.Run(w, n, func(lo, hi int) {
					for i := lo; i < hi; i++ {
						hits[i]++ // each range owns its part of hits
					}
					mu.Lock()
					ranges = append(ranges, [2]int{lo, hi})
					mu.Unlock()
				})
				for i, h := range hits {
					require.Equal(t, 1, h, "index %d", i)
				}
				require.LessOrEqual(t, len(ranges), max(w, 1), "ranges %v", ranges)
				if w >= 2 && n >= 2 {
					require.Greater(t, len(ranges), 1, "ranges %v", ranges)
				}
				for _, r := range ranges {
					require.True(t, r[0] < r[1] || n == 0, "empty range in %v", ranges)
				}
			})
		}
	}
}

// TestRunIsConcurrent: with two workers the two ranges run at the same time (each waits for
// the other to start), and Run returns only after both have returned.
func TestRunIsConcurrent(t *testing.T) {
	t.Parallel()
	var started sync.WaitGroup
	started.Add(2)
	both := make(chan struct{})
	go func() { started.Wait(); close(both) }()
	done := make([]bool, 2)
	parallel.Run(2, 2, func(lo, hi int) {
		started.Done()
		select {
		case <-both:
		case <-time.After(10 * time.Second):
			t.Errorf("range [%d, %d) ran alone", lo, hi)
		}
		done[lo] = true
	})
	require.Equal(t, []bool{true, true}, done)
}
