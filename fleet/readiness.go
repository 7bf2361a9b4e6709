package fleet

import (
	"fmt"
	"slices"
	"strings"

	"github.com/daemonsched/daemonsched/affinity"
	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/daemonsched/daemonsched/internal/errlist"
	"github.com/daemonsched/daemonsched/internal/nodehealth"
	"github.com/daemonsched/daemonsched/selector"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Readiness says whether a node's daemon pods are in place (WHATIF-5): for each DaemonSet
// selected, whether it must run a pod there and whether that pod exists, is ready and is
// current. A node whose startup taint waits for its daemon pods is ready for workloads when
// Ready is true.
type Readiness struct {
	Node string `json:"node"`
	// Ready: the node itself is not known to be down (NodeNotReady is empty), and every
	// selected DaemonSet that must run on the node has a pod there that is ready and current,
	// and the sync would create none there.
	Ready bool `json:"ready"`
	// NodeNotReady says why the node itself is not ready, whatever its daemon pods say: its
	// Ready condition is False or Unknown (unreachable), or it carries the node lifecycle
	// controller's node.kubernetes.io/not-ready or node.kubernetes.io/unreachable taint. Empty
	// when none holds; a node whose status has no Ready condition (a hand-written manifest) is
	// judged by its taints alone.
	NodeNotReady string `json:"nodeNotReady,omitempty"`
	// DaemonSets holds the selected DaemonSets, sorted by namespace, then name.
	DaemonSets []DaemonSetReadiness `json:"daemonSets"`
}

// DaemonSetReadiness is one DaemonSet's part of a node's readiness.
type DaemonSetReadiness struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	// MustRun is the controller's shouldRun on the node (ELIG-1); Reason says why not.
	MustRun bool             `json:"mustRun"`
	Reason  daemonset.Reason `json:"reason,omitempty"`
	// Pod names the pod counted: among the DaemonSet's pods on the node after this sync's
	// claims (those it controls and does not release, and the orphans it adopts) that are
	// not terminating, not terminal and not deleted by this sync, a ready and current one if
	// any, else a ready one, else the first by name. Empty when there is none.
	Pod string `json:"pod,omitempty"`
	// Ready is the pod's Ready condition (UPD-13); Current, that it carries the current
	// revision's hash or template generation (UPD-3).
	Ready   bool `json:"ready"`
	Current bool `json:"current"`
	// Creating: the sync would create a pod for the DaemonSet on the node (DIFF-*).
	Creating bool `json:"creating"`
	// Skipped is the rule under which the sync of the DaemonSet does nothing (D-9..D-11);
	// its pods are then never current.
	Skipped daemonset.Skip `json:"skipped,omitempty"`
	// Blocking: the DaemonSet keeps the node from being ready.
	Blocking bool `json:"blocking"`
}

// NodeReadiness decides the readiness of the node named nodeName in s (WHATIF-5) for the
// DaemonSets whose labels daemonSets selects (nil selects every DaemonSet; a selector that
// matches none makes the node trivially ready). It plans every DaemonSet of s as
// [daemonset.Snapshot.Plan] does, so that its answer agrees with the plan: a node where the sync
// would create a pod is never ready. Errors: an invalid selector (field errors under
// daemonSets), an inconsistent snapshot, a node not in s. s is not modified.
func NodeReadiness(s daemonset.Snapshot, nodeName string, daemonSets *metav1.LabelSelector, opts daemonset.Options) (*Readiness, error) {
	var sel *selector.Selector
	if daemonSets != nil {
		var errs field.ErrorList
		if sel, errs = selector.Compile(daemonSets, field.NewPath("daemonSets")); len(errs) > 0 {
			return nil, errlist.Aggregate(errs)
		}
	}
	i := slices.IndexFunc(s.Nodes, func(n *v1.Node) bool { return n != nil && n.Name == nodeName })
	if i < 0 {
		return nil, fmt.Errorf("node %q not found", nodeName)
	}
	node := s.Nodes[i]
	plan, err := s.Plan(opts)
	if err != nil {
		return nil, err
	}
	byName := make(map[string]*appsv1.DaemonSet, len(s.DaemonSets))
	for _, ds := range s.DaemonSets {
		if ds != nil {
			byName[ds.Namespace+"/"+ds.Name] = ds
		}
	}
	// The pods meant for the node (OWN-9), by name, gathered once for every DaemonSet.
	var onNode []*v1.Pod
	for _, pod := range s.Pods {
		if n, ok := affinity.TargetNodeName(pod); ok && n == nodeName {
			onNode = append(onNode, pod)
		}
	}
	slices.SortFunc(onNode, func(a, b *v1.Pod) int { return strings.Compare(a.Name, b.Name) })
	out := &Readiness{Node: nodeName, NodeNotReady: nodeNotReady(node), DaemonSets: []DaemonSetReadiness{}}
	out.Ready = out.NodeNotReady == ""
	for _, res := range plan.DaemonSets {
		ds := byName[res.Namespace+"/"+res.Name]
		if sel != nil && !sel.Matches(ds.Labels) {
			continue
		}
		// Compiled again, as Snapshot.Plan compiled it, only for the DaemonSets asked about:
		// the plan of the whole snapshot dominates the cost.
		p, _ := daemonset.Compile(ds, opts)
		r := dsReadiness(p, res, node, onNode)
		out.Ready = out.Ready && !r.Blocking
		out.DaemonSets = append(out.DaemonSets, r)
	}
	return out, nil
}

// claimsOf returns whether the sync res plans for ds calls a pod of the snapshot its own after
// its claims: the plan adopts it (OWN-4), or ds controls it in the plan's release v (OWN-1,
// VER-4: v.IsControlledBy) and the plan does not release it (OWN-2, OWN-3). It reads the plan's
// decisions and decides none.
func claimsOf(ds *appsv1.DaemonSet, v daemonset.Version, res *daemonset.Result) func(pod *v1.Pod) bool {
	set := func(l []daemonset.ObjectRef) map[daemonset.ObjectRef]bool {
		m := make(map[daemonset.ObjectRef]bool, len(l))
		for _, r := range l {
			m[r] = true
		}
		return m
	}
	adopted, released := set(res.Adopt), set(res.Release)
	return func(pod *v1.Pod) bool {
		ref := daemonset.ObjectRef{Namespace: pod.Namespace, Name: pod.Name, UID: pod.UID}
		return adopted[ref] || !released[ref] && v.IsControlledBy(pod, ds)
	}
}

// nodeNotReady says why node itself is not ready for workloads (WHATIF-5), or "" when nothing
// says so, from what nodehealth.NotReady reads: the Ready condition when it is not True
// (Unknown: the node lifecycle controller lost the node), then each not-ready or unreachable
// taint. A node whose status has no Ready condition (a hand-written manifest) is judged by its
// taints alone.
func nodeNotReady(node *v1.Node) string {
	ready, taints := nodehealth.NotReady(node)
	var why []string
	if ready.Type != "" {
		w := "its Ready condition is " + string(ready.Status)
		if ready.Status == v1.ConditionUnknown {
			w += " (unreachable)"
		}
		if ready.Reason != "" {
			w += ": " + ready.Reason
		}
		why = append(why, w)
	}
	for _, t := range taints {
		why = append(why, "it carries the taint "+t.Key+":"+string(t.Effect))
	}
	return strings.Join(why, "; ")
}

// dsReadiness is one DaemonSet's readiness on node, from its plan res and the pods meant for
// the node, sorted by name. The pods it keeps are those it controls and does not release this
// sync, and the orphans it adopts (OWN-2..OWN-4).
func dsReadiness(p *daemonset.Planner, res *daemonset.Result, node *v1.Node, onNode []*v1.Pod) DaemonSetReadiness {
	ds := p.DaemonSet()
	r := DaemonSetReadiness{Namespace: ds.Namespace, Name: ds.Name, Skipped: res.Skipped}
	e := p.Eligibility(node)
	r.MustRun, r.Reason = e.ShouldRun, e.Reason
	r.Creating = slices.ContainsFunc(res.Create, func(c daemonset.Creation) bool { return c.Node == node.Name })
	claims := claimsOf(ds, p.Version(), res)
	deleted := map[daemonset.ObjectRef]bool{}
	for _, d := range res.Delete {
		deleted[daemonset.ObjectRef{Namespace: d.Namespace, Name: d.Name}] = true
	}
	current := func(pod *v1.Pod) bool {
		return res.Skipped == "" && daemonset.IsPodUpdated(ds, res.RevisionHash, pod)
	}
	best := -1
	for _, pod := range onNode {
		if !claims(pod) {
			continue
		}
		if pod.DeletionTimestamp != nil || pod.Status.Phase == v1.PodFailed || pod.Status.Phase == v1.PodSucceeded ||
			deleted[daemonset.ObjectRef{Namespace: pod.Namespace, Name: pod.Name}] {
			continue
		}
		ready := daemonset.IsPodReady(pod)
		score := 0
		if ready {
			score += 2
		}
		if current(pod) {
			score++
		}
		if score > best {
			best, r.Pod, r.Ready, r.Current = score, pod.Name, ready, current(pod)
		}
	}
	r.Blocking = r.MustRun && (r.Pod == "" || !r.Ready || !r.Current) || r.Creating
	return r
}
