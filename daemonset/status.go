package daemonset

import appsv1 "k8s.io/api/apps/v1"

// status computes the counters of STAT-1..STAT-12 from the grouped pods as they were before
// the sync acted. Only shouldRun matters (STAT-12); pods grouped under missing node names are
// counted nowhere (STAT-7). collisionCount and conditions are carried over untouched
// (STAT-11); observedGeneration is the DaemonSet's generation (STAT-8).
func (p *Planner) status(ix *podIndex, hash string) *appsv1.DaemonSetStatus {
	gen, hasGen := templateGeneration(p.ds)
	var desired, current, misscheduled, ready, updated, available int32
	for i := range ix.nodes {
		pods := ix.podsOf(i)
		if !ix.elig[i].shouldRun() {
			if len(pods) > 0 {
				misscheduled++ // STAT-4
			}
			continue
		}
		desired++ // STAT-2
		if len(pods) == 0 {
			continue
		}
		current++ // STAT-3
		// STAT-5: only the first pod in DIFF-7 order counts.
		oldest := pods[0]
		if isPodReady(oldest) {
			ready++
			if isPodAvailable(oldest, p.ds.Spec.MinReadySeconds, p.opts.Now) {
				available++
			}
		}
		if podUpdated(oldest, hash, gen, hasGen) {
			updated++
		}
	}
	st := &appsv1.DaemonSetStatus{
		CurrentNumberScheduled: current,
		NumberMisscheduled:     misscheduled,
		DesiredNumberScheduled: desired,
		NumberReady:            ready,
		ObservedGeneration:     p.ds.Generation,
		UpdatedNumberScheduled: updated,
		NumberAvailable:        available,
		NumberUnavailable:      max(0, desired-available), // STAT-6
	}
	if c := p.ds.Status.CollisionCount; c != nil {
		st.CollisionCount = new(int32)
		*st.CollisionCount = *c
	}
	for i := range p.ds.Status.Conditions {
		st.Conditions = append(st.Conditions, *p.ds.Status.Conditions[i].DeepCopy())
	}
	return st
}
