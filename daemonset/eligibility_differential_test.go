package daemonset_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"
)

// upstreamEligibility is the v1.36 decision (pkg/controller/daemon: NodeShouldRunDaemonPod)
// rebuilt from the oracles already in our dependencies: component-helpers' required node
// affinity and untolerated-taint finder, on a pod carrying the template spec with the default
// daemon tolerations merged in (DEFTOL-2, written here independently of pod.go: replace every
// entry equal on key, operator, value and effect, else append).
func upstreamEligibility(ds *appsv1.DaemonSet, node *v1.Node) (shouldRun, shouldContinue bool) {
	spec := ds.Spec.Template.Spec.DeepCopy()
	for _, d := range daemonDefaults(spec.HostNetwork) {
		merged, replaced := []v1.Toleration{}, false
		for _, t := range spec.Tolerations {
			if d.MatchToleration(&t) {
				merged, replaced = append(merged, d), true
				continue
			}
			merged = append(merged, t)
		}
		if !replaced {
			merged = append(merged, d)
		}
		spec.Tolerations = merged
	}
	if spec.NodeName != "" && spec.NodeName != node.Name {
		return false, false
	}
	spec.NodeName = node.Name
	pod := &v1.Pod{Spec: *spec}
	fits, _ := nodeaffinity.GetRequiredNodeAffinity(pod).Match(node)
	if !fits {
		return false, false
	}
	logger := klog.Background()
	_, blocked := corev1helpers.FindMatchingUntoleratedTaint(logger, node.Spec.Taints, spec.Tolerations, func(t *v1.Taint) bool {
		return t.Effect == v1.TaintEffectNoSchedule || t.Effect == v1.TaintEffectNoExecute
	}, false)
	if !blocked {
		return true, true
	}
	_, evicted := corev1helpers.FindMatchingUntoleratedTaint(logger, node.Spec.Taints, spec.Tolerations, func(t *v1.Taint) bool {
		return t.Effect == v1.TaintEffectNoExecute
	}, false)
	return false, !evicted
}

var (
	diffKeys    = []string{"zone", "disk", "cpus", "metadata.name", "k", v1.TaintNodeNotReady, v1.TaintNodeUnschedulable, v1.TaintNodeNetworkUnavailable, ""}
	diffValues  = []string{"", "a", "b", "8", "16", "016", "abc", "n0", "n1"}
	diffEffects = []v1.TaintEffect{"", v1.TaintEffectNoSchedule, v1.TaintEffectNoExecute, v1.TaintEffectPreferNoSchedule, "Bogus"}
	diffNodeOps = []v1.NodeSelectorOperator{v1.NodeSelectorOpIn, v1.NodeSelectorOpNotIn, v1.NodeSelectorOpExists,
		v1.NodeSelectorOpDoesNotExist, v1.NodeSelectorOpGt, v1.NodeSelectorOpLt, "Foo"}
	diffTolOps = []v1.TolerationOperator{"", v1.TolerationOpEqual, v1.TolerationOpExists, "Gt", "Bad"}
)

func pick[T any](r *rand.Rand, xs []T) T { return xs[r.IntN(len(xs))] }

func randomRequirements(r *rand.Rand, n int) []v1.NodeSelectorRequirement {
	var out []v1.NodeSelectorRequirement
	for range n {
		req := v1.NodeSelectorRequirement{Key: pick(r, diffKeys), Operator: pick(r, diffNodeOps)}
		for range r.IntN(3) {
			req.Values = append(req.Values, pick(r, diffValues))
		}
		out = append(out, req)
	}
	return out
}

func randomEligibilityDS(r *rand.Rand) *appsv1.DaemonSet {
	ds := newDS()
	spec := &ds.Spec.Template.Spec
	spec.HostNetwork = r.IntN(3) == 0
	if r.IntN(6) == 0 {
		spec.NodeName = pick(r, []string{"n0", "n1"})
	}
	if r.IntN(3) == 0 {
		spec.NodeSelector = map[string]string{}
		for range 1 + r.IntN(2) {
			spec.NodeSelector[pick(r, diffKeys)] = pick(r, diffValues)
		}
	}
	if r.IntN(2) == 0 {
		ns := &v1.NodeSelector{}
		for range r.IntN(3) {
			ns.NodeSelectorTerms = append(ns.NodeSelectorTerms, v1.NodeSelectorTerm{
				MatchExpressions: randomRequirements(r, r.IntN(3)),
				MatchFields:      randomRequirements(r, r.IntN(2)),
			})
		}
		spec.Affinity = &v1.Affinity{NodeAffinity: &v1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: ns}}
	}
	for range r.IntN(4) {
		t := v1.Toleration{Key: pick(r, diffKeys), Operator: pick(r, diffTolOps), Value: pick(r, diffValues), Effect: pick(r, diffEffects)}
		if r.IntN(4) == 0 {
			t.TolerationSeconds = ptr.To(int64(r.IntN(100)))
		}
		spec.Tolerations = append(spec.Tolerations, t)
	}
	return ds
}

func randomEligibilityNode(r *rand.Rand) *v1.Node {
	n := node(fmt.Sprintf("n%d", r.IntN(3)))
	if r.IntN(4) > 0 {
		n.Labels = map[string]string{}
		for range r.IntN(4) {
			n.Labels[pick(r, diffKeys)] = pick(r, diffValues)
		}
	}
	for range r.IntN(4) {
		n.Spec.Taints = append(n.Spec.Taints, v1.Taint{Key: pick(r, diffKeys), Value: pick(r, diffValues), Effect: pick(r, diffEffects)})
	}
	return n
}

// TestEligibilityDifferential compares Eligibility with the upstream decision on random
// templates and nodes, malformed ones included (AFF-8, TAINT-2, TAINT-6).
func TestEligibilityDifferential(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(42, 7))
	for i := range 2000 {
		ds := randomEligibilityDS(r)
		p, _ := daemonset.Compile(ds, opts())
		for range 5 {
			n := randomEligibilityNode(r)
			wantRun, wantContinue := upstreamEligibility(ds, n)
			got := p.Eligibility(n)
			require.Equal(t, [2]bool{wantRun, wantContinue}, [2]bool{got.ShouldRun, got.ShouldContinueRunning},
				"case %d: template %+v node %+v", i, ds.Spec.Template.Spec, n)
		}
	}
}
