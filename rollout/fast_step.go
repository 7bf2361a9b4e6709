package rollout

// The incremental re-plan's per-node decisions and its rolling-update step (ROLL-12).

import (
	"math/bits"
	"slices"
	"strings"

	"github.com/daemonsched/daemonsched/daemonset"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
)

// direct decides the commonest nodes without planning them: an eligible node (ELIG-1) with
// no pod (DIFF-2: create) or one pod that is neither failed nor succeeded (nothing to do, except
// under surge when that pod is terminating: DIFF-9 creates beside it), with the status
// counters of that pod (STAT-2..STAT-5). Anything else is planned.
func (inc *incremental) direct(r *nodeRec, node *v1.Node, pods []*v1.Pod) bool {
	if !inc.directOK || len(pods) > 1 {
		return false
	}
	if e := inc.p.Eligibility(node); !e.ShouldRun || !e.ShouldContinueRunning {
		return false
	}
	r.status[0] = 1
	if len(pods) == 0 {
		r.create = []daemonset.Creation{{Node: node.Name, Reason: daemonset.ReasonMissingPod, Pod: inc.p.NewPod(node.Name)}}
		return true
	}
	pod := pods[0]
	if pod.Status.Phase == v1.PodFailed || pod.Status.Phase == v1.PodSucceeded {
		return false
	}
	if pod.DeletionTimestamp != nil && inc.surgeDiff {
		r.create = []daemonset.Creation{{Node: node.Name, Reason: daemonset.ReasonMissingPod, Pod: inc.p.NewPod(node.Name)}}
	}
	r.status[1] = 1
	if daemonset.IsPodReady(pod) {
		r.status[3], r.status[5] = 1, 1 // minReadySeconds is 0: Ready is available
	}
	if inc.updated(pod) {
		r.status[4] = 1
	}
	return true
}

// categorize is the node's part of the rolling step (UPD-8, UPD-11): what it adds to the
// counts and which ordered set it joins.
func (inc *incremental) categorize(r *nodeRec, shouldRun bool, pods []*v1.Pod) {
	var newPod, oldPod *v1.Pod
	excess := false
	for _, pod := range pods {
		if pod.DeletionTimestamp != nil {
			continue
		}
		if inc.updated(pod) {
			if newPod != nil {
				excess = true
			}
			newPod = pod
		} else {
			if oldPod != nil {
				excess = true
			}
			oldPod = pod
		}
	}
	r.oldPod = oldPod
	if !inc.surge {
		switch {
		case excess, oldPod == nil && newPod == nil, oldPod != nil && newPod != nil:
			r.counted.u = 1
		case newPod != nil:
			if !daemonset.IsPodReady(newPod) {
				r.counted.u = 1
			}
		case !daemonset.IsPodReady(oldPod):
			r.cat, r.counted.u = catUnavailableOld, 1
		default:
			r.cat = catCandidate
		}
		return
	}
	if excess {
		r.counted.s = 1
		return
	}
	if oldPod != nil {
		if daemonset.IsPodReady(oldPod) {
			r.counted.a = 1
		}
	} else if newPod != nil && daemonset.IsPodReady(newPod) {
		r.counted.a = 1
	}
	switch {
	case oldPod == nil:
	case newPod == nil:
		oldAvailable := daemonset.IsPodReady(oldPod)
		switch {
		case !oldAvailable && !shouldRun:
			r.cat = catIneligibleUnavailable
		case !oldAvailable:
			r.cat = catAllowed
		case !shouldRun:
			r.cat = catIneligibleCandidate
		default:
			r.cat = catSurgeCandidate
		}
	case !daemonset.IsPodReady(newPod):
		r.counted.s = 1
	default:
		r.cat = catReplaced
	}
}

// updated is UPD-3 for the pods of the simulation.
func (inc *incremental) updated(pod *v1.Pod) bool {
	return daemonset.IsPodUpdated(inc.ds, inc.hash, pod)
}

func (inc *incremental) deletion(i int, reason daemonset.Reason, interchangeable bool) daemonset.Deletion {
	pod := inc.recs[i].oldPod
	return daemonset.Deletion{Namespace: pod.Namespace, Name: pod.Name, Node: inc.names[i], Reason: reason, Interchangeable: interchangeable, UID: pod.UID}
}

func (inc *incremental) noSurge(res *daemonset.Result, ru *daemonset.RollingUpdate) {
	*ru = daemonset.RollingUpdate{Acted: true, MaxUnavailable: inc.mu}
	take := min(max(inc.mu-inc.u, 0), inc.candidates)
	interchangeable := take < inc.candidates
	deletes := make([]daemonset.Deletion, 0, inc.sets[catUnavailableOld].n+take)
	inc.sets[catUnavailableOld].each(func(i int) bool {
		deletes = append(deletes, inc.deletion(i, daemonset.ReasonUpdateOldUnavailable, false))
		return true
	})
	inc.sets[catCandidate].each(func(i int) bool {
		if len(deletes) == cap(deletes) {
			return false
		}
		deletes = append(deletes, inc.deletion(i, daemonset.ReasonUpdateOldCandidate, interchangeable))
		return true
	})
	res.Delete = append(res.Delete, burstCap(deletes, inc.burst, rollingClass, deletionKey)...)
}

func (inc *incremental) withSurge(res *daemonset.Result, ru *daemonset.RollingUpdate) {
	*ru = daemonset.RollingUpdate{Acted: true, MaxUnavailable: inc.mu, MaxSurge: inc.ms}
	takeIneligible := min(max(inc.a-inc.desired, 0), inc.ineligible)
	takeSurge := min(max(inc.ms-inc.s, 0), inc.candidates)
	var deletes []daemonset.Deletion
	inc.sets[catIneligibleUnavailable].each(func(i int) bool {
		deletes = append(deletes, inc.deletion(i, daemonset.ReasonSurgeOldUnavailableIneligible, false))
		return true
	})
	inc.sets[catReplaced].each(func(i int) bool {
		deletes = append(deletes, inc.deletion(i, daemonset.ReasonSurgeReplaced, false))
		return true
	})
	taken := 0
	inc.sets[catIneligibleCandidate].each(func(i int) bool {
		if taken == takeIneligible {
			return false
		}
		taken++
		deletes = append(deletes, inc.deletion(i, daemonset.ReasonSurgeIneligibleExcess, takeIneligible < inc.ineligible))
		return true
	})
	res.Delete = append(res.Delete, burstCap(deletes, inc.burst, rollingClass, deletionKey)...)
	// Creates in node order: the allowed ones and the first takeSurge candidates.
	var creates []daemonset.Creation
	takenSurge := 0
	allowed, cands := &inc.sets[catAllowed], &inc.sets[catSurgeCandidate]
	from := len(allowed.words)
	if allowed.n > 0 {
		from = min(from, allowed.lo)
	}
	if cands.n > 0 {
		from = min(from, cands.lo)
	}
	for w := from; w < len(allowed.words); w++ {
		word := allowed.words[w] | cands.words[w]
		for word != 0 {
			i := w*64 + bits.TrailingZeros64(word)
			word &= word - 1
			if inc.recs[i].cat == catAllowed {
				creates = append(creates, daemonset.Creation{Node: inc.names[i], Reason: daemonset.ReasonSurgeOldUnavailable})
			} else if takenSurge < takeSurge {
				takenSurge++
				creates = append(creates, daemonset.Creation{Node: inc.names[i], Reason: daemonset.ReasonSurgeCandidate, Interchangeable: takeSurge < inc.candidates})
			}
		}
	}
	creates = burstCap(creates, inc.burst, rollingClass, creationKey)
	for k := range creates {
		creates[k].Pod = inc.p.NewPod(creates[k].Node)
	}
	res.Create = append(res.Create, creates...)
}

// statusOf sets st to STAT-* from the sums, as the whole-snapshot plan writes it.
func (inc *incremental) statusOf(st *appsv1.DaemonSetStatus, ds *appsv1.DaemonSet) {
	c := inc.status
	*st = appsv1.DaemonSetStatus{DesiredNumberScheduled: c[0], CurrentNumberScheduled: c[1], NumberMisscheduled: c[2],
		NumberReady: c[3], UpdatedNumberScheduled: c[4], NumberAvailable: c[5], NumberUnavailable: max(0, c[0]-c[5]),
		ObservedGeneration: ds.Generation}
	if old := &ds.Status; old.ObservedGeneration > ds.Generation && old.DesiredNumberScheduled == st.DesiredNumberScheduled &&
		old.CurrentNumberScheduled == st.CurrentNumberScheduled && old.NumberMisscheduled == st.NumberMisscheduled &&
		old.NumberReady == st.NumberReady && old.UpdatedNumberScheduled == st.UpdatedNumberScheduled &&
		old.NumberAvailable == st.NumberAvailable && old.NumberUnavailable == st.NumberUnavailable {
		st.ObservedGeneration = old.ObservedGeneration
	}
	if cc := ds.Status.CollisionCount; cc != nil {
		st.CollisionCount = new(*cc)
	}
	for i := range ds.Status.Conditions {
		st.Conditions = append(st.Conditions, *ds.Status.Conditions[i].DeepCopy())
	}
}

// rollingClass is the cap priority of a rolling-step action (DIFF-10): the budgeted candidates
// come after the actions the budget does not limit.
func rollingClass(r daemonset.Reason) int {
	switch r {
	case daemonset.ReasonUpdateOldCandidate, daemonset.ReasonSurgeIneligibleExcess, daemonset.ReasonSurgeCandidate:
		return 1
	}
	return 0
}

func creationKey(c *daemonset.Creation) (daemonset.Reason, string, *bool) {
	return c.Reason, c.Node, &c.Interchangeable
}

func deletionKey(d *daemonset.Deletion) (daemonset.Reason, string, *bool) {
	return d.Reason, d.Node, &d.Interchangeable
}

// burstCap keeps limit of list (DIFF-10) as the whole-snapshot plan does: by class, then node
// (stable), and marks what it keeps of the class the limit cuts as interchangeable (D-1). The
// result is in node order. The lists it gets are mostly in that order already (one class, or
// each class in node order): it sorts only when they are not, through indices, so that no
// comparison copies an action to the heap.
func burstCap[T any](list []T, limit int, class func(daemonset.Reason) int, key func(*T) (daemonset.Reason, string, *bool)) []T {
	if limit == 0 || len(list) <= limit {
		return list
	}
	byClass := func(a, b *T) int {
		ra, na, _ := key(a)
		rb, nb, _ := key(b)
		if c := class(ra) - class(rb); c != 0 {
			return c
		}
		return strings.Compare(na, nb)
	}
	byNode := func(a, b *T) int {
		_, na, _ := key(a)
		_, nb, _ := key(b)
		return strings.Compare(na, nb)
	}
	sortStable(list, byClass)
	r, _, _ := key(&list[limit])
	cut := class(r)
	list = list[:limit:limit]
	for i := range list {
		if r, _, mark := key(&list[i]); class(r) == cut {
			*mark = true
		}
	}
	sortStable(list, byNode)
	return list
}

// sortStable sorts list stably by cmp, doing nothing when it is sorted.
func sortStable[T any](list []T, cmp func(a, b *T) int) {
	sorted := true
	for i := 1; i < len(list) && sorted; i++ {
		sorted = cmp(&list[i-1], &list[i]) <= 0
	}
	if sorted {
		return
	}
	idx := make([]int, len(list))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp(&list[a], &list[b]) })
	out := make([]T, len(list))
	for i, j := range idx {
		out[i] = list[j]
	}
	copy(list, out)
}
