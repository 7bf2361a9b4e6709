package workload_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
	"k8s.io/klog/v2"

	"github.com/daemonsched/daemonsched/internal/workload"
)

func TestNodesAreDeterministic(t *testing.T) {
	t.Parallel()
	a, b := workload.Nodes(3, 200), workload.Nodes(3, 200)
	if diff := cmp.Diff(a, b); diff != "" {
		t.Fatalf("Nodes(3, 200) differs between calls (-first +second):\n%s", diff)
	}
	require.NotEqual(t, a[0].Labels, workload.Nodes(4, 1)[0].Labels, "another seed gives other nodes")
	if diff := cmp.Diff(workload.Node(9, 17), workload.Node(9, 17)); diff != "" {
		t.Fatalf("Node(9, 17) differs between calls:\n%s", diff)
	}
	require.Equal(t, workload.NodeName(17), workload.Node(9, 17).Name)
}

// TestNodesShape checks the reference shape: 15 labels (16 on control-plane nodes, whose role
// label is empty-valued), about 3% control-plane nodes, 40/30/20/10% of nodes with 0/1/2/3
// taints.
func TestNodesShape(t *testing.T) {
	t.Parallel()
	nodes := workload.Nodes(1, 10_000)
	controlPlane := 0
	var taints [4]int
	for _, n := range nodes {
		v, cp := n.Labels[workload.LabelControlPlane]
		if cp {
			controlPlane++
			require.Empty(t, v)
			require.Len(t, n.Labels, 16)
			require.Equal(t, workload.LabelControlPlane, n.Spec.Taints[0].Key)
		} else {
			require.Len(t, n.Labels, 15)
		}
		require.Equal(t, n.Name, n.Labels[workload.LabelHostname])
		require.LessOrEqual(t, len(n.Spec.Taints), 3)
		taints[len(n.Spec.Taints)]++
	}
	share := func(k int) float64 { return float64(k) / float64(len(nodes)) }
	require.InDelta(t, 0.03, share(controlPlane), 0.01)
	for k, want := range []float64{0.40, 0.30, 0.20, 0.10} {
		require.InDelta(t, want, share(taints[k]), 0.02, "nodes with %d taints", k)
	}
}

// upstreamEligible is NodeShouldRunDaemonPod's shouldRun through component-helpers, with the
// default daemon tolerations of a pod without hostNetwork (DEFTOL-1).
func upstreamEligible(ds *appsv1.DaemonSet, node *v1.Node) bool {
	pod := &v1.Pod{Spec: *ds.Spec.Template.Spec.DeepCopy()}
	pod.Spec.Tolerations = append(pod.Spec.Tolerations,
		v1.Toleration{Key: v1.TaintNodeNotReady, Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoExecute},
		v1.Toleration{Key: v1.TaintNodeUnreachable, Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoExecute},
		v1.Toleration{Key: v1.TaintNodeDiskPressure, Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoSchedule},
		v1.Toleration{Key: v1.TaintNodeMemoryPressure, Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoSchedule},
		v1.Toleration{Key: v1.TaintNodePIDPressure, Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoSchedule},
		v1.Toleration{Key: v1.TaintNodeUnschedulable, Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoSchedule},
	)
	if ok, _ := nodeaffinity.GetRequiredNodeAffinity(pod).Match(node); !ok {
		return false
	}
	_, untolerated := corev1helpers.FindMatchingUntoleratedTaint(klog.Background(), node.Spec.Taints, pod.Spec.Tolerations, func(t *v1.Taint) bool {
		return t.Effect == v1.TaintEffectNoSchedule || t.Effect == v1.TaintEffectNoExecute
	}, false)
	return !untolerated
}

// TestReferenceDaemonSetEligibleShare: the reference DaemonSet should run on about 46% of the
// nodes, judged by the upstream helpers.
func TestReferenceDaemonSetEligibleShare(t *testing.T) {
	t.Parallel()
	ds := workload.ReferenceDaemonSet()
	require.False(t, ds.Spec.Template.Spec.HostNetwork)
	nodes := workload.Nodes(1, 10_000)
	eligible := 0
	for _, n := range nodes {
		if upstreamEligible(ds, n) {
			eligible++
		}
	}
	require.InDelta(t, 0.46, float64(eligible)/float64(len(nodes)), 0.015)
}

func TestDaemonSetsAreDeterministicAndDistinct(t *testing.T) {
	t.Parallel()
	a, b := workload.DaemonSets(5, 200), workload.DaemonSets(5, 200)
	if diff := cmp.Diff(a, b); diff != "" {
		t.Fatalf("DaemonSets(5, 200) differs between calls (-first +second):\n%s", diff)
	}
	seen := map[string]bool{}
	for _, ds := range a {
		require.False(t, seen[ds.Name], "duplicate name %s", ds.Name)
		seen[ds.Name] = true
		require.NotEmpty(t, ds.Spec.Template.Spec.Containers)
		require.Equal(t, ds.Spec.Selector.MatchLabels, ds.Spec.Template.Labels)
	}
}

func TestPods(t *testing.T) {
	t.Parallel()
	ds := workload.ReferenceDaemonSet()
	before := ds.DeepCopy()
	nodes := workload.Nodes(1, 3)
	pods := workload.Pods(ds, nodes, "abc123")
	require.Len(t, pods, 3)
	for i, p := range pods {
		require.Equal(t, nodes[i].Name, p.Spec.NodeName)
		require.Equal(t, "abc123", p.Labels[appsv1.DefaultDaemonSetUniqueLabelKey])
		require.Equal(t, "1", p.Labels["pod-template-generation"])
		require.Len(t, p.OwnerReferences, 1)
		require.Equal(t, ds.UID, p.OwnerReferences[0].UID)
		require.True(t, *p.OwnerReferences[0].Controller)
		require.Equal(t, v1.PodRunning, p.Status.Phase)
	}
	if diff := cmp.Diff(before, ds); diff != "" {
		t.Fatalf("Pods modified the DaemonSet (-before +after):\n%s", diff)
	}
}
