package taints_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/go-logr/logr"
	"github.com/stretchr/testify/require"
	v1 "k8s.io/api/core/v1"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"

	"github.com/daemonsched/daemonsched/taints"
)

// TestUntoleratedDifferential checks Untolerated against component-helpers'
// FindMatchingUntoleratedTaint asked twice, as the controller asks (TAINT-4 with NoSchedule and
// NoExecute, TAINT-5 with NoExecute alone), on 100,000 random nodes and pods for each value of
// the gate, a nil *Tolerations included (TAINT-3, TAINT-6, TAINT-9).
func TestUntoleratedDifferential(t *testing.T) {
	t.Parallel()
	for _, gate := range []bool{false, true} {
		t.Run(fmt.Sprintf("comparisonOperators=%v", gate), func(t *testing.T) {
			t.Parallel()
			r := rand.New(rand.NewPCG(3, seedOf(gate)))
			opts := taints.Options{ComparisonOperators: gate}
			disagreements := 0
			for range 100_000 {
				tols, nodeTaints := randCase(r)
				compiled := taints.Compile(tols, opts)
				if len(tols) == 0 && r.IntN(2) == 0 {
					compiled = nil
				}
				placement, eviction := compiled.Untolerated(nodeTaints)
				wantP, okP := corev1helpers.FindMatchingUntoleratedTaint(logr.Discard(), nodeTaints, tols, hasEffect(taints.Placement), gate)
				wantE, okE := corev1helpers.FindMatchingUntoleratedTaint(logr.Discard(), nodeTaints, tols, hasEffect(taints.Eviction), gate)
				if !sameFinding(nodeTaints, placement, wantP, okP) || !sameFinding(nodeTaints, eviction, wantE, okE) {
					disagreements++
					if disagreements <= 10 {
						t.Errorf("tolerations %+v, taints %+v: got (%d, %d), upstream (%+v %v, %+v %v)",
							tols, nodeTaints, placement, eviction, wantP, okP, wantE, okE)
					}
				}
			}
			require.Zero(t, disagreements)
		})
	}
}

// sameFinding reports whether index i of ts (or -1 for none) is the taint upstream found.
// Taints are compared by position: the first one upstream returns is the first equal one.
func sameFinding(ts []v1.Taint, i int, want v1.Taint, ok bool) bool {
	if !ok {
		return i == -1
	}
	if i < 0 || i >= len(ts) {
		return false
	}
	for j := range ts {
		if ts[j] == want {
			return j == i
		}
	}
	return false
}

func TestUntoleratedAllocatesNothing(t *testing.T) {
	compiled := taints.Compile(append(daemonDefaults(false),
		tol("cpus", v1.TolerationOpGt, "8", v1.TaintEffectNoSchedule)), taints.Options{ComparisonOperators: true})
	nodeTaints := []v1.Taint{
		taint("cpus", "abc", v1.TaintEffectNoSchedule),
		taint("dedicated", "db", v1.TaintEffectNoSchedule),
		taint("gone", "", v1.TaintEffectNoExecute),
	}
	var p, e int
	require.Zero(t, testing.AllocsPerRun(100, func() { p, e = compiled.Untolerated(nodeTaints) }))
	require.Equal(t, [2]int{0, 2}, [2]int{p, e})
}
