// Package scalebench holds what the scale benchmarks of issue 6 share across packages (the
// Planner's in daemonset, the Set's in fleet): the reference nodes, generated once per test
// binary; a CPU clock, which a shared machine's wall clock cannot replace; and the decision of
// the v1.36 controller rebuilt from upstream helpers, which the benchmarks are compared with and
// which tests use as an oracle independent of this project's code. Only tests import it.
package scalebench

import (
	"runtime"
	"sync"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
	"k8s.io/klog/v2"

	"github.com/daemonsched/daemonsched/internal/workload"
)

// DaemonSets is how many reference DaemonSets (workload.DaemonSets, seed 1) a scale benchmark
// of many DaemonSets uses.
const DaemonSets = 200

var nodes struct {
	sync.Mutex
	all []*v1.Node
}

// Nodes returns the first n reference nodes (workload.Nodes, seed 1); every size shares one
// generated list of at least 100,000 nodes. The nodes must not be modified.
func Nodes(n int) []*v1.Node {
	nodes.Lock()
	defer nodes.Unlock()
	if len(nodes.all) < n {
		nodes.all = workload.Nodes(1, max(n, 100_000))
	}
	return nodes.all[:n]
}

// CPUClock measures the CPU time the process spends in a benchmark loop, reported as cpu-ns/op
// next to the wall-clock ns/op: on a shared machine the wall clock also counts the time other
// processes hold the cores, the CPU time does not. It includes the garbage collector's work,
// which is part of the cost.
type CPUClock struct{ start int64 }

// StartCPU finishes the set-up's garbage collection, resets b's timer and starts the clock.
func StartCPU(b *testing.B) *CPUClock {
	runtime.GC()
	b.ResetTimer()
	return &CPUClock{start: cpuNow()}
}

// cpuNow is CPUTime in nanoseconds, 0 where the platform does not tell it.
func cpuNow() int64 {
	d, _ := CPUTime()
	return int64(d)
}

// Report adds cpu-ns/op to b, and cpu-ns/node when perNode > 0 (the nodes one op decides).
func (c *CPUClock) Report(b *testing.B, perNode int) {
	ns := float64(cpuNow()-c.start) / float64(b.N)
	b.ReportMetric(ns, "cpu-ns/op")
	if perNode > 0 {
		b.ReportMetric(ns/float64(perNode), "cpu-ns/node")
	}
}

// daemonTolerations returns the tolerations the v1.36 controller adds to every daemon pod
// (pkg/controller/daemon/util AddOrUpdateDaemonPodTolerations), by effect, written from the
// upstream source rather than from this project's pod.go: node-lifecycle NoExecute taints,
// node-condition and cordon NoSchedule taints, and the network one for hostNetwork pods.
func daemonTolerations(hostNetwork bool) []v1.Toleration {
	keys := map[v1.TaintEffect][]string{
		v1.TaintEffectNoExecute: {v1.TaintNodeNotReady, v1.TaintNodeUnreachable},
		v1.TaintEffectNoSchedule: {v1.TaintNodeDiskPressure, v1.TaintNodeMemoryPressure,
			v1.TaintNodePIDPressure, v1.TaintNodeUnschedulable},
	}
	if hostNetwork {
		keys[v1.TaintEffectNoSchedule] = append(keys[v1.TaintEffectNoSchedule], v1.TaintNodeNetworkUnavailable)
	}
	var out []v1.Toleration
	for _, effect := range []v1.TaintEffect{v1.TaintEffectNoExecute, v1.TaintEffectNoSchedule} {
		for _, key := range keys[effect] {
			out = append(out, v1.Toleration{Key: key, Operator: v1.TolerationOpExists, Effect: effect})
		}
	}
	return out
}

// upstreamPod builds the pod the controller evaluates for one node: the template spec, the node
// name, and the default tolerations merged in (an equal toleration is replaced, else appended).
func upstreamPod(ds *appsv1.DaemonSet, nodeName string) *v1.Pod {
	pod := &v1.Pod{Spec: ds.Spec.Template.Spec, ObjectMeta: ds.Spec.Template.ObjectMeta}
	pod.Namespace = ds.Namespace
	pod.Spec.NodeName = nodeName
	tols := append([]v1.Toleration(nil), ds.Spec.Template.Spec.Tolerations...)
	for _, d := range daemonTolerations(pod.Spec.HostNetwork) {
		found := false
		for i := range tols {
			if tols[i].MatchToleration(&d) {
				tols[i] = d
				found = true
			}
		}
		if !found {
			tols = append(tols, d)
		}
	}
	pod.Spec.Tolerations = tols
	return pod
}

// UpstreamShouldRun is the v1.36 controller's NodeShouldRunDaemonPod for ds on node, through
// the upstream helpers, per call as the controller does: build the daemon pod with its default
// tolerations, then component-helpers nodeaffinity.GetRequiredNodeAffinity(pod).Match and
// FindMatchingUntoleratedTaint.
func UpstreamShouldRun(logger klog.Logger, ds *appsv1.DaemonSet, node *v1.Node) (shouldRun, shouldContinueRunning bool) {
	pod := upstreamPod(ds, node.Name)
	if tpl := ds.Spec.Template.Spec.NodeName; tpl != "" && tpl != node.Name {
		return false, false
	}
	fits, _ := nodeaffinity.GetRequiredNodeAffinity(pod).Match(node)
	if !fits {
		return false, false
	}
	if _, untolerated := corev1helpers.FindMatchingUntoleratedTaint(logger, node.Spec.Taints, pod.Spec.Tolerations, func(t *v1.Taint) bool {
		return t.Effect == v1.TaintEffectNoExecute || t.Effect == v1.TaintEffectNoSchedule
	}, false); !untolerated {
		return true, true
	}
	_, evicted := corev1helpers.FindMatchingUntoleratedTaint(logger, node.Spec.Taints, pod.Spec.Tolerations, func(t *v1.Taint) bool {
		return t.Effect == v1.TaintEffectNoExecute
	}, false)
	return false, !evicted
}
