package daemonset

import (
	"cmp"
	"slices"
	"strings"

	v1 "k8s.io/api/core/v1"
)

// podLess is the survivor order of DIFF-7 (upstream podByCreationTimestampAndPhase, where
// phase plays no part): scheduled pods first, then earlier creationTimestamp, then smaller
// name. Readiness, phase and hash are never consulted.
func podCompare(a, b *v1.Pod) int {
	as, bs := a.Spec.NodeName != "", b.Spec.NodeName != ""
	switch {
	case as && !bs:
		return -1
	case !as && bs:
		return 1
	}
	if c := a.CreationTimestamp.Time.Compare(b.CreationTimestamp.Time); c != 0 {
		return c
	}
	return strings.Compare(a.Name, b.Name)
}

// diffState accumulates the base diff over all nodes (DIFF-1). running is scratch space
// reused from node to node so that the walk allocates only for its output.
type diffState struct {
	creates []string // node names
	deletes []Deletion
	events  []Event
	running []*v1.Pod
}

// diffNode reconciles one node of the node list (DIFF-2..DIFF-6, DIFF-17). pods are the
// node's grouped pods in DIFF-7 order.
func (p *Planner) diffNode(d *diffState, node string, e eligBits, pods []*v1.Pod, hash string, surge bool) {
	switch {
	case e.shouldRun() && len(pods) == 0:
		d.creates = append(d.creates, node) // DIFF-2
	case e.shouldContinueRunning():
		p.diffContinuing(d, node, e, pods, hash, surge)
	case len(pods) > 0:
		// DIFF-4: neither flag; every pod not already terminating goes, without event.
		for _, pod := range pods {
			if pod.DeletionTimestamp == nil {
				d.deletes = append(d.deletes, deletion(pod, node, ReasonNodeNotEligible))
			}
		}
	}
}

// diffContinuing is DIFF-3 with DIFF-5 or DIFF-6 on a node where pods may keep running.
func (p *Planner) diffContinuing(d *diffState, node string, e eligBits, pods []*v1.Pod, hash string, surge bool) {
	// DIFF-17: deleting one Failed pod puts the node in back-off at once, so at most one
	// Failed pod per node goes per sync and the others are neither deleted nor running. Which
	// one is random upstream; D-1 takes the smallest namespace/name and marks the choice.
	var failed *v1.Pod
	nFailed := 0
	for _, pod := range pods {
		if pod.DeletionTimestamp == nil && pod.Status.Phase == v1.PodFailed {
			nFailed++
			if failed == nil || comparePodNames(pod, failed) < 0 {
				failed = pod
			}
		}
	}
	running := d.running[:0]
	for _, pod := range pods {
		switch {
		case pod.DeletionTimestamp != nil:
			// Terminating: never deleted again, never running (DIFF-3).
		case pod.Status.Phase == v1.PodFailed:
			if pod == failed {
				del := deletion(pod, node, ReasonFailedPod)
				del.Interchangeable = nFailed > 1
				d.deletes = append(d.deletes, del)
				d.events = append(d.events, Event{Type: v1.EventTypeWarning, Reason: ReasonFailedDaemonPod,
					Pod: pod.Namespace + "/" + pod.Name, Node: node,
					Message: "daemon pod " + pod.Namespace + "/" + pod.Name + " on node " + node + " has failed and is deleted"})
			}
		case pod.Status.Phase == v1.PodSucceeded:
			d.deletes = append(d.deletes, deletion(pod, node, ReasonSucceededPod))
			d.events = append(d.events, Event{Type: v1.EventTypeNormal, Reason: ReasonSucceededDaemonPod,
				Pod: pod.Namespace + "/" + pod.Name, Node: node,
				Message: "daemon pod " + pod.Namespace + "/" + pod.Name + " on node " + node + " has succeeded and is deleted"})
		default:
			running = append(running, pod)
		}
	}
	d.running = running[:0]

	if !surge {
		// DIFF-5: keep the first in DIFF-7 order; never create here in this sync.
		for _, pod := range running[min(1, len(running)):] {
			d.deletes = append(d.deletes, deletion(pod, node, ReasonDuplicatePod))
		}
		return
	}
	// DIFF-6.
	if len(running) == 0 {
		if e.shouldRun() {
			d.creates = append(d.creates, node)
		}
		return
	}
	var newest, oldest *v1.Pod // the oldest pod with the current hash, the oldest without
	for _, pod := range running {
		if pod.Labels[LabelRevisionHash] == hash {
			if newest == nil {
				newest = pod
				continue
			}
		} else if oldest == nil {
			oldest = pod
			continue
		}
		d.deletes = append(d.deletes, deletion(pod, node, ReasonDuplicatePod))
	}
	if newest != nil && oldest != nil {
		switch {
		case !isPodReady(oldest):
			d.deletes = append(d.deletes, deletion(oldest, node, ReasonSurgeOldNotReady))
		case isPodAvailable(newest, p.ds.Spec.MinReadySeconds, p.opts.Now):
			d.deletes = append(d.deletes, deletion(oldest, node, ReasonSurgeNewAvailable))
		}
	}
}

// diffMissing handles pods grouped under node names absent from the node list (DIFF-8):
// unscheduled ones (aimed only through affinity) are deleted, even when terminating; bound
// ones are left to pod garbage collection.
func diffMissing(d *diffState, groups []nodeGroup) {
	for _, g := range groups {
		for _, pod := range g.pods {
			if pod.Spec.NodeName == "" {
				d.deletes = append(d.deletes, deletion(pod, g.name, ReasonUnscheduledOnMissingNode))
			}
		}
	}
}

func deletion(pod *v1.Pod, node string, r Reason) Deletion {
	return Deletion{Namespace: pod.Namespace, Name: pod.Name, Node: node, Reason: r}
}

func comparePodNames(a, b *v1.Pod) int {
	return cmp.Or(strings.Compare(a.Namespace, b.Namespace), strings.Compare(a.Name, b.Name))
}

// capCreates applies the burst cap (DIFF-10) to creates, which must be sorted by node: the
// first limit are kept (D-1) and marked as chosen among interchangeable candidates.
func capCreates(creates []Creation, limit int) []Creation {
	if limit == 0 || len(creates) <= limit {
		return creates
	}
	creates = creates[:limit:limit]
	for i := range creates {
		creates[i].Interchangeable = true
	}
	return creates
}

// capDeletes applies the burst cap (DIFF-10) to deletes: candidates in D-1 order (node name,
// then pod namespace/name), the first limit kept and marked. The result is sorted by
// namespace/name as Result documents.
func capDeletes(deletes []Deletion, limit int) []Deletion {
	if limit > 0 && len(deletes) > limit {
		slices.SortFunc(deletes, func(a, b Deletion) int {
			return cmp.Or(strings.Compare(a.Node, b.Node), strings.Compare(a.Namespace, b.Namespace), strings.Compare(a.Name, b.Name))
		})
		deletes = deletes[:limit:limit]
		for i := range deletes {
			deletes[i].Interchangeable = true
		}
	}
	slices.SortFunc(deletes, compareDeletions)
	return deletes
}

func compareDeletions(a, b Deletion) int {
	return cmp.Or(strings.Compare(a.Namespace, b.Namespace), strings.Compare(a.Name, b.Name))
}
