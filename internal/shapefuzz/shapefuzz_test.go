package shapefuzz

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
)

// The same bytes give the same cluster, and different bytes reach every kind of object.
func TestNewIsDeterministicAndShaped(t *testing.T) {
	t.Parallel()
	var pods, owned, bound, nodes, revs int
	for i := range 200 {
		data := []byte{byte(i), byte(i * 7), byte(i * 13), 1, 2, 3, byte(i), 5, 8, 13, 21, 34, 55, 89, byte(255 - i)}
		c := New(data)
		if diff := cmp.Diff(c, New(data)); diff != "" {
			t.Fatalf("data %x gives two clusters:\n%s", data, diff)
		}
		require.NotEmpty(t, c.DaemonSets)
		nodes += len(c.Nodes)
		revs += len(c.Revisions)
		for _, p := range c.Pods {
			pods++
			if len(p.OwnerReferences) > 0 {
				owned++
			}
			if p.Spec.NodeName != "" {
				bound++
			}
		}
		require.Equal(t, c, c.DeepCopy())
	}
	require.Positive(t, nodes)
	require.Positive(t, pods)
	require.Positive(t, owned)
	require.Positive(t, bound)
	require.Positive(t, revs)
}
