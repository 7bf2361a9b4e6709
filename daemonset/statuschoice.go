package daemonset

import (
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
)

// StatusNode is a node whose status counters depend on which deletions the controller picks
// (STAT-16): it holds a pod this sync adopts that the API server removes at once when it is
// deleted, and upstream's status then counts the node without that pod. Orders lists such
// nodes so that a verifier can recount the status of a plan that picked other deletions than
// Plan's (a Failed pod, a rolling-update candidate).
type StatusNode struct {
	Node string `json:"node"`
	// ShouldRun is whether the node should run a daemon pod (ELIG-*): its pods count as
	// scheduled when it should, as misscheduled when it should not.
	ShouldRun bool `json:"shouldRun"`
	// Pods are the node's claimed pods in the order the counters read them (DIFF-7): the
	// first one not removed decides ready, available and updated (STAT-5).
	Pods []StatusPod `json:"pods"`
}

// StatusPod is one pod of a StatusNode, with the facts the counters read.
type StatusPod struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	Ready     bool   `json:"ready,omitempty"`
	Available bool   `json:"available,omitempty"`
	Updated   bool   `json:"updated,omitempty"`
	// AtOnce is whether a deletion of the pod leaves it out of the status: the sync adopts
	// it and the API server removes it at once (STAT-16).
	AtOnce bool `json:"atOnce,omitempty"`
}

// statusNodes returns the StatusNodes of ix: the listed nodes holding a pod the sync adopts
// (adopted) that would go at once if deleted. Nil when there are none, which is the rule.
func statusNodes(ix *podIndex, adopted []PodRef) []StatusNode {
	if len(adopted) == 0 {
		return nil
	}
	isAdopted := make(map[PodRef]bool, len(adopted))
	for _, r := range adopted {
		isAdopted[PodRef{Namespace: r.Namespace, Name: r.Name}] = true
	}
	atOnce := func(pod *v1.Pod) bool {
		return isAdopted[PodRef{Namespace: pod.Namespace, Name: pod.Name}] && goesAtOnce(pod)
	}
	var out []StatusNode
	for i, name := range ix.names {
		pods := ix.podsOf(i)
		if !slices.ContainsFunc(pods, func(dp daemonPod) bool { return atOnce(dp.pod) }) {
			continue
		}
		n := StatusNode{Node: name, ShouldRun: ix.elig[i].shouldRun(), Pods: make([]StatusPod, len(pods))}
		for j, dp := range pods {
			n.Pods[j] = StatusPod{Namespace: dp.pod.Namespace, Name: dp.pod.Name, Ready: dp.facts.has(factReady),
				Available: dp.facts.has(factAvailable), Updated: dp.facts.has(factUpdated), AtOnce: atOnce(dp.pod)}
		}
		out = append(out, n)
	}
	return out
}

// counts returns the node's share of the counters when the pods deleted reports are deleted.
func (n StatusNode) counts(deleted func(PodRef) bool) statusCounts {
	var c statusCounts
	for _, p := range n.Pods {
		if !p.AtOnce || !deleted(PodRef{Namespace: p.Namespace, Name: p.Name}) {
			f := podFacts(0)
			if p.Ready {
				f |= factReady
			}
			if p.Available {
				f |= factAvailable
			}
			if p.Updated {
				f |= factUpdated
			}
			c.addNode(n.ShouldRun, &f)
			return c
		}
	}
	c.addNode(n.ShouldRun, nil)
	return c
}

// StatusWith returns a copy of st, the status of a plan that deletes from, with the counters
// of o.Status's nodes recounted for a plan that deletes to instead (STAT-16); the other
// counters and fields are st's. It returns st itself when nothing changes, and nil for nil.
func (o *Orders) StatusWith(st *appsv1.DaemonSetStatus, from, to []Deletion) *appsv1.DaemonSetStatus {
	if st == nil || len(o.Status) == 0 {
		return st
	}
	in := func(l []Deletion) func(PodRef) bool {
		set := map[PodRef]bool{}
		for _, d := range l {
			set[PodRef{Namespace: d.Namespace, Name: d.Name}] = true
		}
		return func(r PodRef) bool { return set[r] }
	}
	was, now := in(from), in(to)
	var d statusCounts // now's counters less was's
	for _, n := range o.Status {
		a, b := n.counts(was), n.counts(now)
		d.current += b.current - a.current
		d.misscheduled += b.misscheduled - a.misscheduled
		d.ready += b.ready - a.ready
		d.available += b.available - a.available
		d.updated += b.updated - a.updated
	}
	if d == (statusCounts{}) {
		return st
	}
	out := st.DeepCopy()
	out.CurrentNumberScheduled += d.current
	out.NumberMisscheduled += d.misscheduled
	out.NumberReady += d.ready
	out.NumberAvailable += d.available
	out.UpdatedNumberScheduled += d.updated
	out.NumberUnavailable = max(0, out.DesiredNumberScheduled-out.NumberAvailable)
	return out
}
