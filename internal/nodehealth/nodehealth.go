// Package nodehealth reads a node's health for the three packages that ask about it, each its
// own question.
//
// A node's health is read from two things: the Ready condition its kubelet posts (and the node
// lifecycle controller turns Unknown when the kubelet stops posting), and the taints that
// controller puts on a node whose Ready condition is False (node.kubernetes.io/not-ready) or
// Unknown (node.kubernetes.io/unreachable), NoSchedule at once and NoExecute for taint-based
// eviction. The DaemonSet controller reads neither: eligibility sees the taints only as taints
// (ELIG-4, DEFTOL). Packages rollout, lint and fleet ask three questions of them, and the three
// answers differ on purpose; each reads the condition as upstream does, the first of its type.
// None of them allocates but NotReady, and only for the taints it returns.
package nodehealth

import (
	v1 "k8s.io/api/core/v1"
)

// nodeReadyCondition returns node's Ready condition as upstream reads it: the first condition
// of that type (component-helpers node/util: GetNodeCondition, which the node lifecycle
// controller uses), nil when the status has none, as in a hand-written manifest.
func nodeReadyCondition(node *v1.Node) *v1.NodeCondition {
	for i := range node.Status.Conditions {
		if node.Status.Conditions[i].Type == v1.NodeReady {
			return &node.Status.Conditions[i]
		}
	}
	return nil
}

// isNodeNotReadyTaint reports whether t is one the node lifecycle controller puts on a node
// that is not Ready, with any effect (pkg/controller/nodelifecycle:
// nodeConditionToTaintKeyStatusMap for NoSchedule, NotReadyTaintTemplate and
// UnreachableTaintTemplate for NoExecute).
func isNodeNotReadyTaint(t *v1.Taint) bool {
	return t.Key == v1.TaintNodeNotReady || t.Key == v1.TaintNodeUnreachable
}

// RunsPods answers the kubelet model's question (package rollout: Apply, Simulate,
// Progress): does the node's kubelet act on its pods, starting a bound pod and removing a
// terminating one? Yes when its Ready condition is True, as pkg/util/node: IsNodeReady reads it
// (the not-ready and unreachable taints follow the condition and are not read). A node whose
// status has no Ready condition, a hand-written manifest, runs its pods here, where IsNodeReady
// says no: such a node is a node as one means it, not one whose kubelet is known to be down.
func RunsPods(node *v1.Node) bool {
	c := nodeReadyCondition(node)
	return c == nil || c.Status == v1.ConditionTrue
}

// Down answers the rollout budget's question (package lint: is the budget used up by down
// nodes?): is the node down, so that its daemon pod stays unavailable however long one waits,
// and how? It returns the Ready condition's status as the node lifecycle controller acts on it
// (pkg/controller/nodelifecycle: nodeConditionToTaintKeyStatusMap, MarkPodsNotReady):
// [v1.ConditionFalse] when the condition is False (NotReady), [v1.ConditionUnknown] when it is
// Unknown or, whatever it says, the node carries the unreachable taint (unreachable: the
// controller lost the node and the kubelet cannot say otherwise), and "" otherwise. The
// not-ready taint alone does not make a node down, nor does a missing Ready condition (a
// hand-written manifest) or a cordon.
func Down(node *v1.Node) v1.ConditionStatus {
	if c := nodeReadyCondition(node); c != nil && (c.Status == v1.ConditionFalse || c.Status == v1.ConditionUnknown) {
		return c.Status
	}
	for i := range node.Spec.Taints {
		if node.Spec.Taints[i].Key == v1.TaintNodeUnreachable {
			return v1.ConditionUnknown
		}
	}
	return ""
}

// NotReady answers the node readiness question (package fleet: NodeReadiness, WHATIF-5):
// what says the node is not ready for workloads? ready is its Ready condition when that is not
// True (False, Unknown once the node lifecycle controller lost the node, or any other value),
// the zero condition when it is True or missing; taints are the node lifecycle controller's
// not-ready and unreachable taints on it, any effect, in the node's order (nil when none). The
// node is not ready when either says so: the controller marks every pod there not Ready
// (pkg/controller/util/node: MarkPodsNotReady) whatever status the kubelet last posted, and
// the taints stay until the node is Ready again. The results share nothing with node.
func NotReady(node *v1.Node) (ready v1.NodeCondition, taints []v1.Taint) {
	if c := nodeReadyCondition(node); c != nil && c.Status != v1.ConditionTrue {
		ready = *c // values only: strings and times
	}
	for i := range node.Spec.Taints {
		if t := &node.Spec.Taints[i]; isNodeNotReadyTaint(t) {
			taints = append(taints, v1.Taint{})
			t.DeepCopyInto(&taints[len(taints)-1])
		}
	}
	return ready, taints
}
