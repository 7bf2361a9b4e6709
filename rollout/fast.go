package rollout

import (
	"math/bits"
	"slices"
	"strings"
	"time"

	"github.com/daemonsched/daemonsched/daemonset"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// incremental re-plans only the nodes an event touched (ROLL-12). It keeps, per node, the
// one-node plan of package daemonset (the base diff and the status counters are node-local)
// and the node's part of the rolling-update step, and joins them into the plan the whole
// snapshot would give: the base diff in node order, the status as sums, and the rolling step
// from counts and ordered sets of nodes. It is used only where that join is exact: the pods
// are all controlled (no adoption or release), every pod's node exists, minReadySeconds is 0
// (so availability does not change with the clock), the hash is non-empty, and the base diff
// stays within the burst cap; anything else, and every node or DaemonSet event, sends the
// simulation back to whole-snapshot plans until it rebuilds.
type incremental struct {
	p       *daemonset.Planner
	ds      *appsv1.DaemonSet
	hash    string
	surge   bool
	mu, ms  int
	desired int
	burst   int
	// directOK: NewPod gives the plan's pods (same hash label); surgeDiff: the base diff
	// allows surge (DIFF-9).
	directOK, surgeDiff bool

	names   []string     // sorted
	entries []*nodeEntry // of names, in the same order; each knows its index (rank)
	recs    []nodeRec
	dirty   []int
	isDirty bitset

	// plans are the buffers the joined plans are written into, in turn, lists included: a
	// sync plans at most three times (the plan, the rolling step after its own writes, the
	// status), and nothing keeps a plan beyond the sync after its own but the simulation's
	// memo of the last one, so four buffers are never overwritten while in use.
	plans [4]joined
	next  int

	// Sums over recs.
	baseCreates, baseDeletes int
	status                   [6]int32 // desired, current, misscheduled, ready, updated, available
	u, s, a                  int      // no surge: unavailable; surge: surge and available counts
	ineligible, candidates   int
	// Ordered sets of node indices by rolling category, and of nodes with base-diff actions.
	sets [catCount]bitset
	base bitset
}

// joined is a joined plan with its rolling step and status, and the lists it reuses.
type joined struct {
	res    daemonset.Result
	ru     daemonset.RollingUpdate
	st     appsv1.DaemonSetStatus
	create []daemonset.Creation
	delete []daemonset.Deletion
}

// rollingStepDeletes are the deletion reasons of the rolling-update step (UPD-8, UPD-11), as
// opposed to the base diff's.
var rollingStepDeletes = map[daemonset.Reason]bool{
	daemonset.ReasonUpdateOldUnavailable: true, daemonset.ReasonUpdateOldCandidate: true,
	daemonset.ReasonSurgeOldUnavailableIneligible: true, daemonset.ReasonSurgeReplaced: true,
	daemonset.ReasonSurgeIneligibleExcess: true,
}

type nodeRec struct {
	create  []daemonset.Creation
	delete  []daemonset.Deletion
	status  [6]int32
	cat     category
	counted struct{ u, s, a int }
	oldPod  *v1.Pod
}

type category uint8

const (
	catNone category = iota
	catUnavailableOld
	catCandidate
	catIneligibleUnavailable
	catAllowed
	catIneligibleCandidate
	catSurgeCandidate
	catReplaced
	catCount
)

type bitset struct {
	words []uint64
	n     int // bits set
	lo    int // no word below lo has a bit set
}

func newBitset(n int) bitset { return bitset{words: make([]uint64, (n+63)/64)} }

func (b *bitset) has(i int) bool { return b.words[i/64]&(1<<(i%64)) != 0 }

func (b *bitset) set(i int, on bool) {
	if b.has(i) == on {
		return
	}
	if on {
		b.words[i/64] |= 1 << (i % 64)
		b.n++
		b.lo = min(b.lo, i/64)
	} else {
		b.words[i/64] &^= 1 << (i % 64)
		b.n--
	}
}

// each calls f on the set indices in order until f returns false. It skips the leading empty
// words it has seen before, so a scan costs the words from the first set bit on.
func (b *bitset) each(f func(int) bool) {
	if b.n == 0 {
		return
	}
	for b.lo < len(b.words) && b.words[b.lo] == 0 {
		b.lo++
	}
	for w := b.lo; w < len(b.words); w++ {
		for word := b.words[w]; word != 0; word &= word - 1 {
			if !f(w*64 + bits.TrailingZeros64(word)) {
				return
			}
		}
	}
}

// retryRevisions says whether a later plan may allow the join after full's revision writes:
// once they are applied, a sync with a current revision writes none.
func retryRevisions(full *daemonset.Result) bool { return full.Revisions != nil }

// newIncremental builds the per-node state from a whole-snapshot plan full of w, or returns nil
// when the join would not be exact; retry says a later plan may allow it (the rolling step did
// not run, so its budgets are unknown).
func newIncremental(w *world, p *daemonset.Planner, full *daemonset.Result, burst int, now time.Time) (inc *incremental, retry bool) {
	ds := w.ds()
	ru := full.RollingUpdate
	if full.Skipped != "" || full.RevisionHash == "" || ds.Spec.MinReadySeconds != 0 ||
		len(full.Adopt)+len(full.Release)+len(full.Conflicts) > 0 || ru == nil || ru.Error != "" {
		return nil, false
	}
	// The joined plans report no revision writes: the regime needs none now, and none that a
	// pod's change could bring, which only the history clean-up reads (UPD-22): with at most
	// limit+1 revisions no old one is beyond the limit.
	limit := daemonset.DefaultRevisionHistoryLimit
	if l := ds.Spec.RevisionHistoryLimit; l != nil {
		limit = int(max(*l, 0))
	}
	if full.Revisions != nil || len(w.revisions) > limit+1 {
		return nil, retryRevisions(full)
	}
	if ds.Spec.UpdateStrategy.Type == appsv1.RollingUpdateDaemonSetStrategyType && !ru.Acted {
		return nil, true
	}
	if ds.Spec.UpdateStrategy.Type == appsv1.RollingUpdateDaemonSetStrategyType && ru.MaxSurge > 0 &&
		p.NewPod("x").Labels[appsv1.DefaultDaemonSetUniqueLabelKey] != full.RevisionHash {
		return nil, false // surge creates need the plan's pod; NewPod's hash differs (D-6)
	}
	for _, pod := range w.pods {
		if !daemonset.IsControlledBy(pod, ds) {
			return nil, false
		}
		if _, ok := w.node(podNode(pod)); !ok {
			return nil, false
		}
	}
	// A Planner of its own for the one-node plans: its working memory stays one node large.
	p, _ = daemonset.Compile(w.sharedDS(), daemonset.Options{Now: now, BurstLimit: burst})
	surgeDiff := false // DIFF-9: maxSurge resolves above 0 for one node
	if u := ds.Spec.UpdateStrategy; u.Type == appsv1.RollingUpdateDaemonSetStrategyType && u.RollingUpdate != nil && u.RollingUpdate.MaxSurge != nil {
		n, err := intstr.GetScaledValueFromIntOrPercent(u.RollingUpdate.MaxSurge, 1, true)
		surgeDiff = err == nil && n > 0
	}
	inc = &incremental{surgeDiff: surgeDiff, directOK: p.NewPod("x").Labels[appsv1.DefaultDaemonSetUniqueLabelKey] == full.RevisionHash,
		p: p, ds: ds, hash: full.RevisionHash, mu: ru.MaxUnavailable, ms: ru.MaxSurge,
		surge: ru.MaxSurge > 0, desired: int(full.Status.DesiredNumberScheduled), burst: burst,
	}
	for _, n := range w.nodes {
		inc.names = append(inc.names, n.Name)
	}
	slices.Sort(inc.names)
	inc.entries = make([]*nodeEntry, len(inc.names))
	for i, n := range inc.names {
		e := w.byNode[n]
		e.rank = i
		inc.entries[i] = e
	}
	inc.recs = make([]nodeRec, len(inc.names))
	for c := range inc.sets {
		inc.sets[c] = newBitset(len(inc.names))
	}
	inc.base = newBitset(len(inc.names))
	inc.isDirty = newBitset(len(inc.names))
	for i := range inc.names {
		inc.refresh(w, i)
	}
	if inc.status[0] != int32(inc.desired) {
		return nil, false
	}
	return inc, false
}

// touch marks the node of e dirty. An entry this state did not rank is not one of its nodes.
func (inc *incremental) touch(e *nodeEntry) {
	if i := e.rank; i < len(inc.entries) && inc.entries[i] == e && !inc.isDirty.has(i) {
		inc.isDirty.set(i, true)
		inc.dirty = append(inc.dirty, i)
	}
}

// refresh re-plans node i alone and updates the sums.
func (inc *incremental) refresh(w *world, i int) {
	r := &inc.recs[i]
	inc.baseCreates -= len(r.create)
	inc.baseDeletes -= len(r.delete)
	for k := range r.status {
		inc.status[k] -= r.status[k]
	}
	inc.u -= r.counted.u
	inc.s -= r.counted.s
	inc.a -= r.counted.a
	inc.count(r.cat, -1)
	inc.sets[r.cat].set(i, false)

	e := inc.entries[i]
	node, pods := e.node, e.pods
	*r = nodeRec{}
	if !inc.direct(r, node, pods) {
		res := inc.p.Plan(daemonset.Snapshot{Nodes: []*v1.Node{node}, Pods: pods, Revisions: w.revisions})
		// Only the base diff of the one-node plan: its own rolling step budgets one node.
		for _, c := range res.Create {
			if c.Reason == daemonset.ReasonMissingPod {
				r.create = append(r.create, c)
			}
		}
		for _, d := range res.Delete {
			if !rollingStepDeletes[d.Reason] {
				r.delete = append(r.delete, d)
			}
		}
		st := res.Status
		r.status = [6]int32{st.DesiredNumberScheduled, st.CurrentNumberScheduled, st.NumberMisscheduled,
			st.NumberReady, st.UpdatedNumberScheduled, st.NumberAvailable}
	}
	shouldRun := r.status[0] == 1
	if shouldRun || len(pods) > 0 {
		inc.categorize(r, shouldRun, pods)
	}

	inc.baseCreates += len(r.create)
	inc.baseDeletes += len(r.delete)
	for k := range r.status {
		inc.status[k] += r.status[k]
	}
	inc.u += r.counted.u
	inc.s += r.counted.s
	inc.a += r.counted.a
	inc.count(r.cat, 1)
	inc.sets[r.cat].set(i, r.cat != catNone)
	inc.base.set(i, len(r.create)+len(r.delete) > 0)
}

func (inc *incremental) count(c category, d int) {
	switch c {
	case catIneligibleCandidate:
		inc.ineligible += d
	case catCandidate, catSurgeCandidate:
		inc.candidates += d
	}
}

// plan returns the plan of the whole snapshot, or nil when it cannot be joined exactly: stale
// says the state cannot serve again (the budgets changed with the desired count), otherwise
// only this plan is beyond it (the burst cap would cut a list).
func (inc *incremental) plan(w *world) (res *daemonset.Result, stale bool) {
	for _, i := range inc.dirty {
		inc.refresh(w, i)
		inc.isDirty.set(i, false)
	}
	inc.dirty = inc.dirty[:0]
	if inc.status[0] != int32(inc.desired) {
		return nil, true
	}

	ds := w.ds()
	// The plan is written into the next of the plans' buffers (see plans).
	out := &inc.plans[inc.next]
	inc.next = (inc.next + 1) % len(inc.plans)
	*out = joined{create: out.create[:0], delete: out.delete[:0]}
	res = &out.res
	*res = daemonset.Result{Namespace: ds.Namespace, Name: ds.Name, RevisionHash: inc.hash,
		Adopt: []daemonset.PodRef{}, Release: []daemonset.PodRef{}}
	// The burst cap (DIFF-10): in the regime every base action is of one class, listed in node
	// order, so the cap keeps the first ones: collecting one beyond it is enough for burstCap
	// to cut and mark the list as it would the whole one.
	keep := inc.baseCreates + inc.baseDeletes
	if inc.burst > 0 {
		keep = min(keep, inc.burst+1)
	}
	res.Create, res.Delete = out.create, out.delete
	inc.base.each(func(i int) bool {
		if len(res.Create) < keep {
			res.Create = append(res.Create, inc.recs[i].create...)
		}
		if len(res.Delete) < keep {
			res.Delete = append(res.Delete, inc.recs[i].delete...)
		}
		return len(res.Create) < min(inc.baseCreates, keep) || len(res.Delete) < min(inc.baseDeletes, keep)
	})
	res.Create = burstCap(res.Create, inc.burst, func(daemonset.Reason) int { return 0 }, creationKey)
	res.Delete = burstCap(res.Delete, inc.burst, func(daemonset.Reason) int { return 0 }, deletionKey)
	switch {
	case ds.Spec.UpdateStrategy.Type != appsv1.RollingUpdateDaemonSetStrategyType:
		out.ru = daemonset.RollingUpdate{Reason: daemonset.RollingReasonOnDelete}
	case inc.baseCreates+inc.baseDeletes > 0:
		out.ru = daemonset.RollingUpdate{Reason: daemonset.RollingReasonBaseDiffNotEmpty, MaxUnavailable: inc.mu, MaxSurge: inc.ms}
	case !inc.surge:
		inc.noSurge(res, &out.ru)
	default:
		inc.withSurge(res, &out.ru)
	}
	res.RollingUpdate = &out.ru
	slices.SortFunc(res.Delete, func(a, b daemonset.Deletion) int {
		if c := strings.Compare(a.Namespace, b.Namespace); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
	inc.statusOf(&out.st, ds)
	res.Status = &out.st
	out.create, out.delete = res.Create, res.Delete // keep the grown lists for the next use
	return res, false
}
