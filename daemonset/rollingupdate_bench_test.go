package daemonset

import (
	"fmt"
	"testing"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/daemonsched/daemonsched/internal/apitest"
)

// ruMidRollout is a cluster of n nodes half-way through a rollout: of every ten nodes, four run
// an available new pod, one a new pod not yet Ready (beside its old pod when surge is set), one
// an old pod that is not Ready and four an available old pod. Every pod also carries the
// deprecated generation label, so UPD-3 reads both labels.
func ruMidRollout(n int, surge bool) []nodeState {
	states := make([]nodeState, n)
	for i := range states {
		name := fmt.Sprintf("node-%06d", i)
		var st nodeState
		switch i % 10 {
		case 0, 1, 2, 3:
			st = ruRun(name, ruNew("new-"+name))
		case 4:
			if surge {
				st = ruRun(name, ruOld("old-"+name), ruNewNotReady("new-"+name))
			} else {
				st = ruRun(name, ruNewNotReady("new-"+name))
			}
		case 5:
			st = ruRun(name, ruOldNotReady("old-"+name))
		default:
			st = ruRun(name, ruOld("old-"+name))
		}
		for _, dp := range st.pods {
			ruWithGenerationLabel(dp.pod, "3")
		}
		states[i] = st
	}
	return states
}

var ruSinkStep rollingStep

// BenchmarkRollingUpdate measures one rolling-update step mid-rollout (UPD-8, UPD-11). It
// allocates only its output (the action slices).
func BenchmarkRollingUpdate(b *testing.B) {
	for _, tc := range []struct {
		name string
		ds   *appsv1.DaemonSet
	}{
		{name: "mu=25%", ds: ruWithGeneration(ruStrategy(apitest.Str("25%"), nil), "4")},
		{name: "ms=25%", ds: ruWithGeneration(ruStrategy(apitest.Int(0), apitest.Str("25%")), "4")},
	} {
		for _, n := range []int{10_000, 100_000} {
			states := ruMidRollout(n, tc.ds.Spec.UpdateStrategy.RollingUpdate.MaxSurge != nil)
			p := &Planner{ds: tc.ds, opts: Options{Version: v1363, Now: ruNow}}
			states = ruJudge(p, states)
			b.Run(fmt.Sprintf("%s/nodes=%d", tc.name, n), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					ruSinkStep = p.rollingUpdate(states, n)
				}
			})
		}
	}
}
