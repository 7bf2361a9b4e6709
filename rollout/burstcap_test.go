package rollout

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/daemonsched/daemonsched/daemonset"
)

// TestBurstCapMatchesStableSorts: burstCap, which sorts only unsorted lists and through
// indices, keeps and marks what two stable sorts do (DIFF-10, D-1): by class then node, cut at
// the limit, mark the cut class, then by node.
func TestBurstCapMatchesStableSorts(t *testing.T) {
	reasons := []daemonset.Reason{daemonset.ReasonSurgeOldUnavailable, daemonset.ReasonSurgeCandidate,
		daemonset.ReasonUpdateOldUnavailable, daemonset.ReasonUpdateOldCandidate}
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 2000 {
		n := rng.IntN(40)
		list := make([]daemonset.Creation, n)
		for i := range list {
			list[i] = daemonset.Creation{Node: fmt.Sprintf("node-%02d", rng.IntN(30)), Reason: reasons[rng.IntN(len(reasons))]}
		}
		switch trial % 3 {
		case 0: // node order, as the joined lists mostly are
			slices.SortStableFunc(list, func(a, b daemonset.Creation) int { return strings.Compare(a.Node, b.Node) })
		case 1: // by class, then node
			slices.SortStableFunc(list, func(a, b daemonset.Creation) int {
				return cmpClassNode(rollingClass(a.Reason), rollingClass(b.Reason), a.Node, b.Node)
			})
		}
		limit := rng.IntN(n + 2)
		want := referenceCap(slices.Clone(list), limit)
		got := burstCap(slices.Clone(list), limit, rollingClass, creationKey)
		require.Equal(t, want, got, "trial %d, limit %d", trial, limit)
	}
}

func cmpClassNode(ca, cb int, na, nb string) int {
	if ca != cb {
		return ca - cb
	}
	return strings.Compare(na, nb)
}

func referenceCap(list []daemonset.Creation, limit int) []daemonset.Creation {
	if limit == 0 || len(list) <= limit {
		return list
	}
	slices.SortStableFunc(list, func(a, b daemonset.Creation) int {
		return cmpClassNode(rollingClass(a.Reason), rollingClass(b.Reason), a.Node, b.Node)
	})
	cut := rollingClass(list[limit].Reason)
	list = list[:limit:limit]
	for i := range list {
		if rollingClass(list[i].Reason) == cut {
			list[i].Interchangeable = true
		}
	}
	slices.SortStableFunc(list, func(a, b daemonset.Creation) int { return strings.Compare(a.Node, b.Node) })
	return list
}
