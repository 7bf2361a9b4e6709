package daemonset

import (
	"cmp"
	"slices"
	"strings"
)

// Plan returns the plan [Planner.Plan] gives for the snapshot as touched, or nil while it cannot
// be folded exactly (see [Tracker]). It costs the touched nodes and the actions, not the
// nodes. The pod of a Creation is built once per node and shared by the plans that create it
// until the node is touched again: a caller that changes it must not plan again before
// touching its node. Below its own fields it shares with every other pod of the Tracker what
// no node changes (labels, annotations, owner references, containers, tolerations, ...): a
// caller may set the pod's fields (its name, status, spec.nodeName) but changes a map, list or
// object it points to only in a copy.
func (t *Tracker) Plan() *Result {
	res := &Result{}
	if !t.PlanTo(res) {
		return nil
	}
	return res
}

// PlanTo is [Tracker.Plan] written into res, reusing the arrays of res.Create and res.Delete
// and the objects res.Status and res.RollingUpdate point to, when there are any: a simulator
// that plans thousands of times keeps a few Results and allocates little more than the new
// pods. It reports false, leaving res unspecified, where Plan returns nil.
func (t *Tracker) PlanTo(res *Result) bool {
	for _, i := range t.dirty {
		t.refresh(i)
	}
	t.dirty = t.dirty[:0]
	if t.foreign > 0 || t.failed > 0 {
		return false
	}
	p := t.p
	*res = Result{Namespace: p.ds.Namespace, Name: p.ds.Name, RevisionHash: t.hash,
		Create: res.Create[:0], Delete: res.Delete[:0], Adopt: []ObjectRef{}, Release: []ObjectRef{},
		Status: res.Status, RollingUpdate: res.RollingUpdate}
	if res.Create == nil {
		res.Create = []Creation{}
	}
	if res.Delete == nil {
		res.Delete = []Deletion{}
	}
	for _, e := range p.errs {
		res.Invalid = append(res.Invalid, e.Error())
	}
	burst := p.opts.burstCap()

	// The base diff in node order. Every action of a Tracker's base diff is of one class
	// (no node is missing, DIFF-8), so the burst cap (DIFF-10) keeps a prefix in node order:
	// the first limit+1 actions of each list let capCreates and capDeletes cut and mark the
	// list as they would the whole one.
	keepC, keepD := t.baseCreates, t.baseDeletes
	if burst > 0 {
		keepC, keepD = min(keepC, burst+1), min(keepD, burst+1)
	}
	creates, deletes, events := t.creates[:0], res.Delete, t.eventBuf[:0]
	at := t.createAt[:0]
	for i := t.base.next(0); i >= 0; i = t.base.next(i + 1) {
		tn := &t.nodes[i]
		if tn.st.creates() && len(creates) < keepC {
			creates = append(creates, Creation{Node: tn.st.name, Reason: ReasonMissingPod})
			at = append(at, int32(i))
		}
		if len(deletes) < keepD {
			deletes = append(deletes, tn.dels...)
		}
		events = append(events, tn.events...)
		if len(creates) >= keepC && len(deletes) >= keepD && len(events) == t.events {
			break
		}
	}
	t.creates, t.eventBuf, t.createAt = creates, events, at
	res.Create = t.withPods(res.Create, capCreates(creates, burst, baseDiffClass), at)
	res.Delete = capDeletes(deletes, burst, baseDiffClass)
	if len(events) > 0 {
		slices.SortFunc(events, func(a, b Event) int {
			return cmp.Or(strings.Compare(a.Pod, b.Pod), strings.Compare(string(a.Reason), string(b.Reason)))
		})
		res.Events = slices.Clone(events)
	}

	desired := int(t.counts.desired)
	var report RollingUpdate
	switch {
	case !t.rolling:
		report = RollingUpdate{Reason: RollingReasonOnDelete}
	case t.baseCreates+t.baseDeletes > 0:
		report = p.waitingStep(desired)
	default:
		step := t.rollingStep(desired)
		report = step.report
		res.Create = t.withPods(res.Create, capCreates(step.creates, burst, rollingClass), t.createAt)
		res.Delete = append(res.Delete, capDeletes(step.deletes, burst, rollingClass)...)
		slices.SortFunc(res.Delete, compareDeletions)
	}
	if res.RollingUpdate == nil {
		res.RollingUpdate = &RollingUpdate{}
	}
	*res.RollingUpdate = report
	bo := newBackoffSync(p.ds, p.opts.Backoff, p.opts.Now)
	counts := t.counts
	p.writeStatus(res, &counts, &bo, syncActs)
	return true
}

// withPods appends creates to dst with the pods to submit, as Planner.withPods builds them. A
// node's pod is built once while the node stays as it is, and shared by the plans that create
// it: a simulator plans a sync up to three times (its plan, the step after its own writes, the
// status), and under a burst cap the same creates wait through many syncs. at holds the node
// index of each create before the burst cap; when the cap cut the list, the nodes are looked
// up by name.
func (t *Tracker) withPods(dst, creates []Creation, at []int32) []Creation {
	for k, c := range creates {
		var tn *trackedNode
		if len(at) == len(creates) {
			tn = &t.nodes[at[k]]
		} else {
			tn = &t.nodes[t.byName[c.Node]]
		}
		if tn.pod == nil {
			if t.proto == nil {
				t.proto = t.p.newPod("", t.hash)
			}
			tn.pod = podFrom(t.proto, c.Node)
		}
		c.Pod = tn.pod
		dst = append(dst, c)
	}
	return dst
}

// rollingStep is Planner.rollingUpdate over the sums: the budgets resolved against desired
// (UPD-5, UPD-6), then the budget pass and the actions of the offered nodes in node order.
func (t *Tracker) rollingStep(desired int) rollingStep {
	if t.budgetsFor != desired {
		b := &t.budgets
		b.maxUnavailable, b.maxSurge, b.err = rollingBudgets(t.p.ds, desired)
		t.budgetsFor = desired
	}
	maxUnavailable, maxSurge, err := t.budgets.maxUnavailable, t.budgets.maxSurge, t.budgets.err
	if err != nil {
		return rollingStep{report: RollingUpdate{Reason: RollingReasonError, Error: err.Error(), BudgetError: err.Error()}}
	}
	at := t.createAt[:0]
	if maxSurge == 0 {
		e := newNoSurgeStep(maxUnavailable, &t.roll, t.p.opts.burstCap(), t.stepDeletes)
		for i := t.offered.next(0); i >= 0 && !e.done(); i = t.offered.next(i + 1) {
			e.visit(&t.nodes[i].st)
		}
		t.stepDeletes, t.createAt = roomier(t.stepDeletes, e.step.deletes), at // the step creates nothing without surge
		return e.step
	}
	e := newSurgeStep(desired, maxUnavailable, maxSurge, &t.roll, t.stepDeletes, t.stepCreates)
	for i := t.offered.next(0); i >= 0 && !e.done(); i = t.offered.next(i + 1) {
		e.visit(&t.nodes[i].st)
		for len(at) < len(e.step.creates) {
			at = append(at, int32(i))
		}
	}
	t.stepDeletes, t.stepCreates, t.createAt = roomier(t.stepDeletes, e.step.deletes), roomier(t.stepCreates, e.step.creates), at
	return e.step
}

// roomier returns the one of a step's buffer and the list the step built in it (or, when it did
// not fit, in a new array) with the larger capacity: a step that acts on no node builds no
// list, and keeping its nil dropped the buffer, one allocation at the next step that acts (at
// 100,000 nodes, one for most of the rolling update's deletions).
func roomier[E any](buf, built []E) []E {
	if cap(built) >= cap(buf) {
		return built
	}
	return buf
}

// rollBudgets is what rollingBudgets returns for one desired count.
type rollBudgets struct {
	maxUnavailable, maxSurge int
	err                      error
}
