package daemonset_test

// The daemon pod's tolerations and the node's taints: the default tolerations (DEFTOL-*) and
// how taints decide eligibility (TAINT-*).

import (
	"testing"

	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
)

func TestDefaultTolerationRules(t *testing.T) {
	notReady := v1.Taint{Key: v1.TaintNodeNotReady, Effect: v1.TaintEffectNoExecute}
	netDown := v1.Taint{Key: v1.TaintNodeNetworkUnavailable, Effect: v1.TaintEffectNoSchedule}
	rtRun(t, []rtCase{
		{"DEFTOL-4 the merged defaults decide eligibility: a not-ready NoExecute node still runs the pod", func(t *testing.T) {
			p, _ := daemonset.Compile(rtDS(), opts())
			e := p.Eligibility(node("a", withTaints(notReady, v1.Taint{Key: v1.TaintNodeDiskPressure, Effect: v1.TaintEffectNoSchedule})))
			require.True(t, e.ShouldRun)
			require.True(t, e.ShouldContinueRunning)
			res := rtPlan(t, rtDS(), []*v1.Node{node("a", withTaints(notReady))}, nil)
			require.Equal(t, []string{"a"}, rtCreateNodes(res))
		}},
		{"DEFTOL-4 created pods carry the merged tolerations", func(t *testing.T) {
			res := rtPlan(t, rtDS(), []*v1.Node{node("a")}, nil)
			require.Len(t, res.Create, 1)
			tols := res.Create[0].Pod.Spec.Tolerations
			for _, key := range []string{v1.TaintNodeNotReady, v1.TaintNodeUnreachable} {
				require.True(t, hasExistsToleration(tols, key, v1.TaintEffectNoExecute), key)
			}
			for _, key := range []string{v1.TaintNodeDiskPressure, v1.TaintNodeMemoryPressure, v1.TaintNodePIDPressure, v1.TaintNodeUnschedulable} {
				require.True(t, hasExistsToleration(tols, key, v1.TaintEffectNoSchedule), key)
			}
		}},
		{"DEFTOL-4 the revision hash is computed from the template without the default tolerations", func(t *testing.T) {
			ds := rtDS()
			res := rtPlan(t, ds, []*v1.Node{node("a")}, nil)
			require.Equal(t, hashOf(ds), res.RevisionHash)
			require.Equal(t, res.RevisionHash, res.Create[0].Pod.Labels[appsv1.DefaultDaemonSetUniqueLabelKey])
			merged := ds.DeepCopy()
			merged.Spec.Template.Spec.Tolerations = res.Create[0].Pod.Spec.Tolerations
			require.NotEqual(t, hashOf(merged), res.RevisionHash)
		}},
		{"DEFTOL-6 a hostNetwork template tolerates the network-unavailable NoSchedule taint", func(t *testing.T) {
			ds := rtDS(hostNet)
			p, _ := daemonset.Compile(ds, opts())
			require.True(t, p.Eligibility(node("a", withTaints(netDown))).ShouldRun)
			require.True(t, hasExistsToleration(p.NewPod("a").Spec.Tolerations, v1.TaintNodeNetworkUnavailable, v1.TaintEffectNoSchedule))
		}},
		{"DEFTOL-6 without template hostNetwork the taint blocks placement, whatever the pods on the node use", func(t *testing.T) {
			ds := rtDS()
			ds.Spec.Template.Spec.Containers[0].Ports = []v1.ContainerPort{{ContainerPort: 80, HostPort: 80}}
			p, _ := daemonset.Compile(ds, opts())
			e := p.Eligibility(node("a", withTaints(netDown)))
			require.False(t, e.ShouldRun)
			require.True(t, e.ShouldContinueRunning)
			require.Equal(t, daemonset.ReasonTaintNotTolerated, e.Reason)
			require.False(t, hasExistsToleration(p.NewPod("a").Spec.Tolerations, v1.TaintNodeNetworkUnavailable, v1.TaintEffectNoSchedule))
			hostPod := rtPod("p", "a", hashOf(ds), func(p *v1.Pod) { p.Spec.HostNetwork = true })
			res := rtPlan(t, ds, []*v1.Node{node("a", withTaints(netDown))}, []*v1.Pod{hostPod})
			require.Equal(t, rtCounts{0, 0, 1, 0, 0, 0, 0}, rtStatus(t, res))
			require.Empty(t, res.Create)
			require.Empty(t, res.Delete)
		}},
	})
}

// tolerationScenarios are the scenarios of taints and tolerations, with the default daemon
// tolerations (TAINT-*, DEFTOL-*).
func tolerationScenarios() []scenario {
	return []scenario{
		// Taints and tolerations.
		{name: "SCN-21 TAINT-4 an untolerated NoSchedule taint blocks new pods",
			nodes: []*v1.Node{node("n0", taint("k", "v", v1.TaintEffectNoSchedule))},
			want:  sum(nil, nil, noneStatus)},
		{name: "SCN-22 ELIG-4 STAT-4 a NoSchedule taint keeps the existing pod, counted misscheduled", surprises: []int{9},
			nodes: []*v1.Node{node("n0", taint("k", "v", v1.TaintEffectNoSchedule))}, pods: []*v1.Pod{pod("p0", "n0")},
			want: sum(nil, nil, st(0, 0, 1, 0, 0, 0, 0))},
		{name: "SCN-23 TAINT-5 DIFF-4 an untolerated NoExecute taint evicts the pod",
			nodes: []*v1.Node{node("n0", taint("k", "", v1.TaintEffectNoExecute))}, pods: []*v1.Pod{pod("p0", "n0")},
			want: sum(nil, list("p0:NodeNotEligible"), st(0, 0, 1, 0, 0, 0, 0))},
		{name: "SCN-24 TAINT-6 PreferNoSchedule is ignored",
			nodes: []*v1.Node{node("n0", taint("k", "v", v1.TaintEffectPreferNoSchedule))},
			want:  sum(list("n0"), nil, st(1, 0, 0, 0, 0, 0, 1))},
		{name: "SCN-25 TAINT-6 an unknown effect is ignored",
			nodes: []*v1.Node{node("n0", taint("k", "v", "Bogus"))},
			want:  sum(list("n0"), nil, st(1, 0, 0, 0, 0, 0, 1))},
		{name: "SCN-26 TAINT-1 an empty-key Exists toleration tolerates every taint",
			ds:    newDS(tolerations(v1.Toleration{Operator: v1.TolerationOpExists})),
			nodes: []*v1.Node{node("n0", taint("k", "v", v1.TaintEffectNoExecute), taint("x", "", v1.TaintEffectNoSchedule))},
			want:  sum(list("n0"), nil, st(1, 0, 0, 0, 0, 0, 1))},
		{name: "SCN-27 TAINT-1 an Equal toleration with another value does not tolerate: no create, existing kept",
			ds:    newDS(tolerations(tol("k", "", "w", ""))),
			nodes: []*v1.Node{node("n0", taint("k", "v", v1.TaintEffectNoSchedule)), node("n1", taint("k", "v", v1.TaintEffectNoSchedule))},
			pods:  []*v1.Pod{pod("p0", "n0")},
			want:  sum(nil, nil, st(0, 0, 1, 0, 0, 0, 0))},
		{name: "SCN-28 TAINT-1 a NoSchedule toleration does not tolerate NoExecute: delete existing",
			ds:    newDS(tolerations(tol("k", v1.TolerationOpExists, "", v1.TaintEffectNoSchedule))),
			nodes: []*v1.Node{node("n0", taint("k", "", v1.TaintEffectNoExecute)), node("n1", taint("k", "", v1.TaintEffectNoExecute))},
			pods:  []*v1.Pod{pod("p0", "n0")},
			want:  sum(nil, list("p0:NodeNotEligible"), st(0, 0, 1, 0, 0, 0, 0))},
		{name: "SCN-29 TAINT-7 tolerationSeconds is ignored: a 1s NoExecute toleration fully tolerates", surprises: []int{10},
			ds:    newDS(tolerations(v1.Toleration{Key: "k", Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoExecute, TolerationSeconds: ptr.To[int64](1)})),
			nodes: []*v1.Node{node("n0", taint("k", "", v1.TaintEffectNoExecute))},
			want:  sum(list("n0"), nil, st(1, 0, 0, 0, 0, 0, 1))},
		{name: "SCN-30 TAINT-1 D-7 a Gt toleration tolerates nothing with the gate off",
			ds:    newDS(tolerations(tol("k", "Gt", "1", ""))),
			nodes: []*v1.Node{node("n0", taint("k", "5", v1.TaintEffectNoSchedule))},
			want:  sum(nil, nil, noneStatus)},
		{name: "SCN-30 TAINT-10 D-7 a Gt toleration tolerates a larger value with the gate on",
			ds:    newDS(tolerations(tol("k", "Gt", "1", ""))),
			nodes: []*v1.Node{node("n0", taint("k", "5", v1.TaintEffectNoSchedule))}, opts: &gateOn,
			want: sum(list("n0"), nil, st(1, 0, 0, 0, 0, 0, 1))},
		{name: "SCN-31 DEFTOL-7 the cordon taint is tolerated by default", surprises: []int{6},
			nodes: []*v1.Node{node("n0", taint(v1.TaintNodeUnschedulable, "", v1.TaintEffectNoSchedule))},
			want:  sum(list("n0"), nil, st(1, 0, 0, 0, 0, 0, 1))},
		{name: "SCN-32 DEFTOL-5 not-ready NoExecute is tolerated, not-ready NoSchedule blocks new pods but keeps old ones", surprises: []int{7},
			nodes: []*v1.Node{
				node("n0", taint(v1.TaintNodeNotReady, "", v1.TaintEffectNoExecute)),
				node("n1", taint(v1.TaintNodeNotReady, "", v1.TaintEffectNoSchedule)),
				node("n2", taint(v1.TaintNodeNotReady, "", v1.TaintEffectNoSchedule)),
			},
			pods: []*v1.Pod{pod("p1", "n1")},
			want: sum(list("n0"), nil, st(1, 0, 1, 0, 0, 0, 1))},
		{name: "SCN-33 DEFTOL-1 network-unavailable blocks a pod without hostNetwork",
			nodes: []*v1.Node{node("n0", taint(v1.TaintNodeNetworkUnavailable, "", v1.TaintEffectNoSchedule))},
			want:  sum(nil, nil, noneStatus)},
		{name: "SCN-33 DEFTOL-1 network-unavailable is tolerated with hostNetwork", ds: newDS(hostNet),
			nodes: []*v1.Node{node("n0", taint(v1.TaintNodeNetworkUnavailable, "", v1.TaintEffectNoSchedule))},
			want:  sum(list("n0"), nil, st(1, 0, 0, 0, 0, 0, 1))},
		{name: "SCN-34 DEFTOL-5 out-of-service NoExecute is not defaulted: the pod is deleted",
			nodes: []*v1.Node{node("n0", taint("node.kubernetes.io/out-of-service", "", v1.TaintEffectNoExecute))},
			pods:  []*v1.Pod{pod("p0", "n0")},
			want:  sum(nil, list("p0:NodeNotEligible"), st(0, 0, 1, 0, 0, 0, 0))},
	}
}

func TestTolerationScenarios(t *testing.T) {
	t.Parallel()
	runScenarios(t, tolerationScenarios())
}
