package choice

import appsv1 "k8s.io/api/apps/v1"

// StatusNode is a node whose status counters depend on which deletions the controller picks
// (STAT-16): it holds a pod the sync adopts that the API server removes at once when it is
// deleted, and upstream's status then counts the node without that pod. Orders lists such
// nodes so that a verifier can recount the status of a plan that picked other deletions than
// daemonset's Plan (a Failed pod, a rolling-update candidate).
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

// Share is one node's share of the status counters, one bit per counter.
type Share uint8

// The counters a node adds one to.
const (
	ShareDesired Share = 1 << iota
	ShareCurrent
	ShareMisscheduled
	ShareReady
	ShareUpdated
	ShareAvailable
)

// ShareOf is one node's share of the counters (STAT-2..STAT-5), the one statement of those
// rules: a node that should run a daemon pod or not, holding pods or not (held), whose first
// pod in DIFF-7 order is ready, available and updated as said. Only shouldRun matters
// (STAT-12). daemonset's plan counts every node with it; StatusWith recounts with it.
func ShareOf(shouldRun, held, ready, available, updated bool) Share {
	if !shouldRun {
		if held {
			return ShareMisscheduled // STAT-4
		}
		return 0
	}
	b := ShareDesired // STAT-2
	if !held {
		return b
	}
	b |= ShareCurrent // STAT-3
	if ready {
		b |= ShareReady
		if available {
			b |= ShareAvailable
		}
	}
	if updated {
		b |= ShareUpdated
	}
	return b
}

// share is n's share of the counters when the pods deleted reports are deleted: the first pod
// left decides (STAT-5), and a pod goes only when the API server removes it at once.
func (n StatusNode) share(deleted func(namespace, name string) bool) Share {
	for _, p := range n.Pods {
		if !p.AtOnce || !deleted(p.Namespace, p.Name) {
			return ShareOf(n.ShouldRun, true, p.Ready, p.Available, p.Updated)
		}
	}
	return ShareOf(n.ShouldRun, false, false, false, false)
}

// StatusWith returns a copy of st, the status of a plan whose deletions was reports, with the
// counters of o.Status's nodes recounted for a plan whose deletions now reports instead
// (STAT-16); the other counters and fields are st's. It returns st itself when nothing changes,
// and nil for nil.
func (o *Orders[C, D]) StatusWith(st *appsv1.DaemonSetStatus, was, now func(namespace, name string) bool) *appsv1.DaemonSetStatus {
	if st == nil || len(o.Status) == 0 {
		return st
	}
	var current, misscheduled, ready, available, updated int32 // now's counters less was's
	count := func(b Share, bit Share) int32 {
		if b&bit != 0 {
			return 1
		}
		return 0
	}
	for _, n := range o.Status {
		a, b := n.share(was), n.share(now)
		current += count(b, ShareCurrent) - count(a, ShareCurrent)
		misscheduled += count(b, ShareMisscheduled) - count(a, ShareMisscheduled)
		ready += count(b, ShareReady) - count(a, ShareReady)
		available += count(b, ShareAvailable) - count(a, ShareAvailable)
		updated += count(b, ShareUpdated) - count(a, ShareUpdated)
	}
	if current == 0 && misscheduled == 0 && ready == 0 && available == 0 && updated == 0 {
		return st
	}
	out := st.DeepCopy()
	out.CurrentNumberScheduled += current
	out.NumberMisscheduled += misscheduled
	out.NumberReady += ready
	out.NumberAvailable += available
	out.UpdatedNumberScheduled += updated
	out.NumberUnavailable = max(0, out.DesiredNumberScheduled-out.NumberAvailable)
	return out
}
