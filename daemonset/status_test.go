package daemonset_test

// The status a sync writes (STAT-*), with availability over time (UPD-12).

import (
	"testing"
	"time"

	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
)

func TestStatusRules(t *testing.T) {
	h := hashOf(rtDS())
	rtRun(t, []rtCase{
		{"STAT-1 status counts the snapshot before the sync's creates and deletes", func(t *testing.T) {
			nodes := []*v1.Node{node("a"), node("b"), node("c", withTaints(dedicatedNoExecute))}
			pods := []*v1.Pod{rtPod("f", "b", h, phase(v1.PodFailed)), rtPod("pc", "c", h, readyAt(1))}
			res := rtPlan(t, rtDS(), nodes, pods)
			require.Equal(t, []string{"a"}, rtCreateNodes(res))
			require.Equal(t, []string{
				"f@b:" + string(daemonset.ReasonFailedPod), "pc@c:" + string(daemonset.ReasonNodeNotEligible),
			}, rtDeletes(res))
			require.Equal(t, rtCounts{2, 1, 1, 0, 0, 2, 1}, rtStatus(t, res))
		}},
		{"STAT-6 numberUnavailable is desired minus available, available counted on desired nodes only", func(t *testing.T) {
			ds := rtDS(minReadySeconds(100))
			nodes := []*v1.Node{node("a"), node("b"), node("c"), node("d", withTaints(dedicatedNoSchedule))}
			pods := []*v1.Pod{
				rtPod("pa", "a", h, readyAt(1)),   // available at 1000
				rtPod("pb", "b", h, readyAt(950)), // ready, not yet available
				rtPod("pd", "d", h, readyAt(1)),   // available, but d is not desired
			}
			res := rtPlan(t, ds, nodes, pods)
			require.Equal(t, rtCounts{3, 2, 1, 2, 1, 2, 2}, rtStatus(t, res))
		}},
		{"STAT-6 numberUnavailable is zero when every desired node has an available pod", func(t *testing.T) {
			res := rtPlan(t, rtDS(), []*v1.Node{node("a"), node("b")}, []*v1.Pod{rtPod("pa", "a", h, readyAt(1)), rtPod("pb", "b", "old", readyAt(1))})
			require.Equal(t, rtCounts{2, 2, 0, 2, 2, 0, 1}, rtStatus(t, res))
		}},
		{"STAT-12 a pod that may continue running on a NoSchedule node counts exactly as on a NoExecute node", func(t *testing.T) {
			pod := []*v1.Pod{rtPod("p", "a", h, readyAt(1))}
			clean := rtPlan(t, rtDS(), []*v1.Node{node("a")}, pod)
			require.Equal(t, rtCounts{1, 1, 0, 1, 1, 0, 1}, rtStatus(t, clean))
			noSchedule := rtPlan(t, rtDS(), []*v1.Node{node("a", withTaints(dedicatedNoSchedule))}, pod)
			noExecute := rtPlan(t, rtDS(), []*v1.Node{node("a", withTaints(dedicatedNoExecute))}, pod)
			require.Equal(t, rtCounts{0, 0, 1, 0, 0, 0, 0}, rtStatus(t, noSchedule))
			require.Empty(t, noSchedule.Delete)
			require.Len(t, noExecute.Delete, 1)
			require.Equal(t, rtStatus(t, noSchedule), rtStatus(t, noExecute))
		}},
	})
}

// STAT-8, STAT-9: storeDaemonSetStatus writes nothing when the seven counters equal the stored
// ones and the stored observedGeneration is at least metadata.generation; the DaemonSet then
// keeps its stored observedGeneration, even one above metadata.generation. Once anything is
// written, observedGeneration becomes metadata.generation.
func TestSTAT9ObservedGenerationWhenNothingIsWritten(t *testing.T) {
	t.Parallel()
	stored := func(observed int64, desired int32) dsMod {
		return func(ds *appsv1.DaemonSet) {
			ds.Generation = 3
			ds.Status = appsv1.DaemonSetStatus{ObservedGeneration: observed,
				DesiredNumberScheduled: desired, CurrentNumberScheduled: 1, UpdatedNumberScheduled: 1,
				NumberUnavailable: 1}
		}
	}
	tests := []struct {
		name string
		ds   *appsv1.DaemonSet
		want int64
	}{
		{name: "STAT-9 counters equal and stored observedGeneration above generation: nothing written, 5 stays", ds: newDS(stored(5, 1)), want: 5},
		{name: "STAT-9 counters equal and stored observedGeneration equal to generation: 3", ds: newDS(stored(3, 1)), want: 3},
		{name: "STAT-8 counters equal but stored observedGeneration below generation: written, 3", ds: newDS(stored(2, 1)), want: 3},
		{name: "STAT-8 a counter differs: written with generation 3 even though 5 was stored", ds: newDS(stored(5, 2)), want: 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res, err := daemonset.Plan(tt.ds, nodes(1), []*v1.Pod{pod("p", "n0")}, opts())
			require.NoError(t, err)
			require.NotNil(t, res.Status)
			require.Equal(t, tt.want, res.Status.ObservedGeneration)
		})
	}
}

func TestStatusSCN102ObservedGeneration(t *testing.T) {
	t.Parallel()
	ds := newDS(func(ds *appsv1.DaemonSet) {
		ds.Generation = 5
		ds.Status.ObservedGeneration = 2
		ds.Status.CollisionCount = ptr.To[int32](4)
		ds.Status.Conditions = []appsv1.DaemonSetCondition{{Type: "X", Status: v1.ConditionTrue}}
	})
	res, err := daemonset.Plan(ds, nodes(1), nil, opts())
	require.NoError(t, err)
	require.EqualValues(t, 5, res.Status.ObservedGeneration)
	// STAT-11: collisionCount and conditions are carried over untouched.
	require.Equal(t, ptr.To[int32](4), res.Status.CollisionCount)
	if diff := cmp.Diff(ds.Status.Conditions, res.Status.Conditions); diff != "" {
		t.Errorf("conditions mismatch (-want +got):\n%s", diff)
	}
}

func TestStatusSurprise32ObservedGenerationAfterFailedStep(t *testing.T) {
	t.Parallel()
	// SCN-96: the surge step fails on an old pod bound to a missing node (UPD-11, SYNC-6).
	ds := newDS(rolling(ios(0), ios(1)), func(ds *appsv1.DaemonSet) { ds.Generation = 7 })
	res, err := daemonset.Plan(ds, nodes(1), []*v1.Pod{pod("p0", "n0", oldHash, ready), pod("p9", "n9", oldHash, ready)}, opts())
	require.NoError(t, err)
	require.NotNil(t, res.RollingUpdate)
	require.False(t, res.RollingUpdate.Acted)
	require.Equal(t, daemonset.RollingReasonError, res.RollingUpdate.Reason)
	require.NotEmpty(t, res.RollingUpdate.Error)
	require.EqualValues(t, 7, res.Status.ObservedGeneration)
}

func TestStatusDetails(t *testing.T) {
	t.Parallel()
	runScenarios(t, []scenario{
		{name: "STAT-3 STAT-5 (audit S6) a desired node with only a terminating pod counts current; its stale Ready decides",
			nodes: nodes(1), pods: []*v1.Pod{pod("t", "n0", terminating, readyAt(1))},
			want: sum(nil, nil, st(1, 1, 0, 1, 1, 1, 0))},
		{name: "STAT-4 (audit S6) a NoSchedule node with only a terminating pod counts misscheduled",
			nodes: []*v1.Node{node("n0", noSchedule)}, pods: []*v1.Pod{pod("t", "n0", terminating, readyAt(1))},
			want: sum(nil, nil, st(0, 0, 1, 0, 0, 0, 0))},
		{name: "STAT-4 DIFF-4 (audit S6) a NoExecute node with only a terminating pod counts misscheduled, nothing deleted",
			nodes: []*v1.Node{node("n0", noExecute)}, pods: []*v1.Pod{pod("t", "n0", terminating)},
			want: sum(nil, nil, st(0, 0, 1, 0, 0, 0, 0))},
		{name: "STAT-3 STAT-5 (audit S6) of several terminating pods the oldest decides",
			nodes: nodes(1), pods: []*v1.Pod{pod("young", "n0", terminating, readyAt(1), created(5)), pod("old", "n0", terminating, oldHash, created(2))},
			want: sum(nil, nil, st(1, 1, 0, 0, 0, 0, 1))},
		{name: "STAT-3 OWN-9 (audit S6) an unscheduled pod aimed at a listed node counts current; without conditions it is not ready",
			nodes: nodes(1), pods: []*v1.Pod{pod("u", "", unscheduledFor("n0"))},
			want: sum(nil, nil, st(1, 1, 0, 0, 1, 0, 1))},
		{name: "STAT-5 DIFF-7 (audit S6) an older unscheduled pod sorts after a bound one: the bound pod decides, the unscheduled one is the duplicate",
			nodes: nodes(1), pods: []*v1.Pod{pod("u", "", unscheduledFor("n0"), readyAt(1), created(1)), pod("b", "n0", created(5))},
			want: sum(nil, list("u:DuplicatePod"), st(1, 1, 0, 0, 1, 0, 1))},
		{name: "STAT-4 (audit S6) an unscheduled pod aimed at a NoSchedule node counts misscheduled",
			nodes: []*v1.Node{node("n0", noSchedule)}, pods: []*v1.Pod{pod("u", "", unscheduledFor("n0"))},
			want: sum(nil, nil, st(0, 0, 1, 0, 0, 0, 0))},
		{name: "STAT-4 ELIG-2 (audit S6) a node excluded by the template's nodeName that holds pods counts misscheduled",
			ds: newDS(withNodeName("n1")), nodes: nodes(2), pods: []*v1.Pod{pod("p", "n0", readyAt(1))},
			want: sum(list("n1"), list("p:NodeNotEligible"), st(1, 0, 1, 0, 0, 0, 1))},
	})
}

func TestUPD12NegativeMinReadySeconds(t *testing.T) {
	t.Parallel()
	// IsPodAvailable with minReadySeconds -10 at now = 1000: the == 0 shortcut does not apply,
	// so a Ready pod needs a non-zero lastTransitionTime, and is available when
	// lastTransitionTime - 10s <= now.
	tests := []struct {
		name      string
		ready     podMod
		available int32
	}{
		{name: "UPD-12 (audit S11) Ready without lastTransitionTime is not available", ready: readyAt(0), available: 0},
		{name: "UPD-12 (audit S11) Ready since 1005 is available (995 <= 1000)", ready: readyAt(1005), available: 1},
		{name: "UPD-12 (audit S11) Ready since 1010 is available at the boundary", ready: readyAt(1010), available: 1},
		{name: "UPD-12 (audit S11) Ready since 1011 is not available (1001 > 1000)", ready: readyAt(1011), available: 0},
		{name: "UPD-12 (audit S11) not Ready is never available", ready: func(*v1.Pod) {}, available: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res, err := daemonset.Plan(newDS(minReadySeconds(-10)), nodes(1), []*v1.Pod{pod("p", "n0", tt.ready)}, opts())
			require.NoError(t, err)
			require.Equal(t, tt.available, res.Status.NumberAvailable)
			require.NotEmpty(t, res.Invalid, "VAL-9: a negative minReadySeconds is invalid, still planned (VAL-22)")
		})
	}
}

// statusScenarios are the scenarios of the status counters and of availability over time
// (STAT-*, UPD-12).
func statusScenarios() []scenario {
	return []scenario{
		// Status and time.
		{name: "SCN-99 UPD-12 one second before minReadySeconds elapse the pod is ready, not available",
			ds: newDS(minReadySeconds(10)), nodes: nodes(1), pods: []*v1.Pod{pod("p0", "n0", readyAt(100))}, opts: &daemonset.Options{Version: v1363, Now: time.Unix(109, 0)},
			want: sum(nil, nil, st(1, 1, 0, 1, 1, 0, 1))},
		{name: "SCN-99 UPD-12 availability is inclusive at the boundary", surprises: []int{33},
			ds: newDS(minReadySeconds(10)), nodes: nodes(1), pods: []*v1.Pod{pod("p0", "n0", readyAt(100))}, opts: &daemonset.Options{Version: v1363, Now: time.Unix(110, 0)},
			want: sum(nil, nil, st(1, 1, 0, 1, 1, 1, 0))},
		{name: "SCN-99 UPD-12 after the boundary the pod stays available",
			ds: newDS(minReadySeconds(10)), nodes: nodes(1), pods: []*v1.Pod{pod("p0", "n0", readyAt(100))}, opts: &daemonset.Options{Version: v1363, Now: time.Unix(111, 0)},
			want: sum(nil, nil, st(1, 1, 0, 1, 1, 1, 0))},
		{name: "SCN-100 UPD-12 a ready pod without lastTransitionTime is never available with minReadySeconds", surprises: []int{33},
			ds: newDS(minReadySeconds(10)), nodes: nodes(1), pods: []*v1.Pod{pod("p0", "n0", readyAt(0))},
			want: sum(nil, nil, st(1, 1, 0, 1, 1, 0, 1))},
		{name: "SCN-101 STAT-5 during a surge the older old pod makes the node not updated",
			ds: newDS(surgeDS), nodes: nodes(1), pods: []*v1.Pod{pod("o", "n0", oldHash, created(1), ready), pod("n", "n0", created(2))},
			want: sum(nil, nil, st(1, 1, 0, 1, 0, 1, 0))},
		{name: "SCN-103 STAT-4 NoSchedule and NoExecute nodes both count as misscheduled",
			nodes: []*v1.Node{node("n0", taint("k", "", v1.TaintEffectNoSchedule)), node("n1", taint("k", "", v1.TaintEffectNoExecute))},
			pods:  []*v1.Pod{pod("p0", "n0"), pod("p1", "n1")},
			want:  sum(nil, list("p1:NodeNotEligible"), st(0, 0, 2, 0, 0, 0, 0))},
	}
}

func TestStatusScenarios(t *testing.T) {
	t.Parallel()
	runScenarios(t, statusScenarios())
}
