package rollout

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestBackoff: the failed-pod back-off doubles from Initial to Max and forgets after 2 × Max
// (ROLL-6).
func TestBackoff(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	b := newBackoff(time.Second, 4*time.Second)
	in, _ := b.InBackoff("k", t0)
	require.False(t, in)
	b.Next("k", t0)
	in, d := b.InBackoff("k", t0.Add(500*time.Millisecond))
	require.True(t, in)
	require.Equal(t, time.Second, d)
	b.Next("k", t0.Add(time.Second))
	b.Next("k", t0.Add(3*time.Second))
	b.Next("k", t0.Add(7*time.Second))
	_, d = b.InBackoff("k", t0.Add(7*time.Second))
	require.Equal(t, 4*time.Second, d, "capped at Max")
	in, _ = b.InBackoff("k", t0.Add(16*time.Second))
	require.False(t, in, "forgotten after 2 × Max")
}
