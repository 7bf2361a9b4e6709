package daemonset

import (
	"slices"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// statusCounts accumulates the counters of STAT-1..STAT-12, node by node, from the grouped
// pods as they were before the sync acted. Only shouldRun matters (STAT-12); pods grouped under
// missing node names are never added (STAT-7). The plan feeds it in the same walk as the base
// diff, from the facts read while claiming (podFacts), so that no pod is read again.
type statusCounts struct {
	desired, current, misscheduled, ready, updated, available int32
}

// add counts one node of the node list with its grouped pods in DIFF-7 order (audit S6):
// terminating pods count, so a node holding only terminating pods is current (or misscheduled)
// and its oldest terminating pod decides ready, available and updated; an unscheduled pod aimed
// at the node through affinity (OWN-9) is grouped here like a bound one and sorts after every
// bound pod (DIFF-7); a node excluded by the template's nodeName (ELIG-2) that holds pods is
// misscheduled like any other node that should not run.
func (c *statusCounts) add(e eligBits, pods []daemonPod) { c.addBits(statusOfPods(e, pods), 1) }

// countsWithout counts the status of every listed node as statusCounts.add does, leaving out
// the pods gone reports (STAT-16), none when gone is nil. The plan counts in its diff walk;
// this is for the syncs that walk no diff, and the rare one that adopts a pod and deletes it.
func (ix *podIndex) countsWithout(gone func(*v1.Pod) bool) statusCounts {
	var c statusCounts
	for i := range ix.names {
		pods := ix.podsOf(i)
		if gone != nil {
			j := slices.IndexFunc(pods, func(dp daemonPod) bool { return !gone(dp.pod) })
			if j < 0 {
				j = len(pods)
			}
			pods = pods[j:] // the first pod left decides (STAT-5)
		}
		c.add(ix.elig[i], pods)
	}
	return c
}

// statusInto writes into st the status the sync writes: the counters, numberUnavailable
// (STAT-6), observedGeneration = metadata.generation (STAT-8; the stored one when nothing is
// written, STAT-9), and collisionCount and conditions carried over untouched (STAT-11).
func (p *Planner) statusInto(st *appsv1.DaemonSetStatus, c *statusCounts) {
	*st = appsv1.DaemonSetStatus{
		CurrentNumberScheduled: c.current,
		NumberMisscheduled:     c.misscheduled,
		DesiredNumberScheduled: c.desired,
		NumberReady:            c.ready,
		ObservedGeneration:     p.ds.Generation,
		UpdatedNumberScheduled: c.updated,
		NumberAvailable:        c.available,
		NumberUnavailable:      max(0, c.desired-c.available), // STAT-6
	}
	// STAT-9: storeDaemonSetStatus writes nothing when the seven counters equal the stored ones
	// and the stored observedGeneration is at least metadata.generation. The DaemonSet then
	// keeps its stored observedGeneration, which differs from metadata.generation only when it
	// is larger (written through the status subresource); the plan reports what is left.
	if old := p.ds.Status.ObservedGeneration; old > p.ds.Generation && !p.statusWritten(st) {
		st.ObservedGeneration = old
	}
	if cc := p.ds.Status.CollisionCount; cc != nil {
		st.CollisionCount = new(int32)
		*st.CollisionCount = *cc
	}
	for i := range p.ds.Status.Conditions {
		st.Conditions = append(st.Conditions, *p.ds.Status.Conditions[i].DeepCopy())
	}
}

// writeStatus fills the status of a sync of kind (into res.Status when it is not nil): Status (STAT-1..STAT-12), StatusWrite
// (STAT-9, STAT-14), the back-off after the sync (DIFF-12) and RequeueAfter (SYNC-8), which
// takes the minReadySeconds requeue of the status update (STAT-15) besides the back-off's. A
// pending sync (PlanPending) is upstream's updateDaemonSetStatus with updateObservedGen false:
// observedGeneration keeps its stored value (STAT-13) under the same STAT-9 test, and bo,
// which looked at no Failed pod, carries the back-off and adds no requeue of its own.
func (p *Planner) writeStatus(res *Result, c *statusCounts, bo *backoffSync, kind syncKind) {
	if res.Status == nil {
		res.Status = &appsv1.DaemonSetStatus{}
	}
	p.statusInto(res.Status, c)
	if kind == syncPending {
		res.Status.ObservedGeneration = p.ds.Status.ObservedGeneration
	}
	if p.statusWritten(res.Status) {
		res.StatusWrite = res.Status
	}
	if mrs := p.ds.Spec.MinReadySeconds; mrs > 0 && c.ready != c.available {
		bo.requeueAfter(time.Duration(mrs) * time.Second)
	}
	res.Backoff = bo.result()
	res.RequeueAfter = metav1.Duration{Duration: bo.requeue}
}

// statusWritten reports whether the controller sends st (STAT-9): it skips the write when the
// seven counters equal the stored ones and the stored observedGeneration is at least
// metadata.generation.
func (p *Planner) statusWritten(st *appsv1.DaemonSetStatus) bool {
	old := &p.ds.Status
	return !(old.DesiredNumberScheduled == st.DesiredNumberScheduled &&
		old.CurrentNumberScheduled == st.CurrentNumberScheduled &&
		old.NumberMisscheduled == st.NumberMisscheduled &&
		old.NumberReady == st.NumberReady &&
		old.UpdatedNumberScheduled == st.UpdatedNumberScheduled &&
		old.NumberAvailable == st.NumberAvailable &&
		old.NumberUnavailable == st.NumberUnavailable &&
		old.ObservedGeneration >= p.ds.Generation)
}

// collisionWrite is the one status write of a sync that finds a hash collision (UPD-21): the
// stored status with collisionCount raised to next. Upstream reads the DaemonSet afresh first
// and raises the count only when the fresh one still equals the stored one.
func (p *Planner) collisionWrite(next int32) *appsv1.DaemonSetStatus {
	st := p.ds.Status.DeepCopy()
	st.CollisionCount = &next
	return st
}
