package daemonset

import (
	"cmp"
	"math/bits"
	"slices"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
)

// Tracker re-plans one DaemonSet's sync after a few nodes change, without walking the others
// (incremental re-planning, as a simulator needs it between two syncs). It keeps the outcome of
// the sync on every node of a snapshot (the base diff, the status share and the rolling-update
// category that [Planner.Plan] computes once per node) and the sums of those outcomes; after
// [Tracker.Touch] it computes the touched nodes' outcomes again with the same code and folds
// the sums through the same budget pass, burst cap and status rules as Plan.
//
// A Tracker folds exactly only where every node's outcome is its own: every pod of the
// snapshot is already controlled by the DaemonSet (no adoption or release) and grouped on a
// node of the node list, the current revision needs no write (no history clean-up either), and
// no Failed pod is deleted (the back-off it renews is the whole sync's). [Planner.Track]
// refuses a snapshot beyond that, and [Tracker.Plan] returns nil while a touched node is.
//
// A Tracker is not safe for concurrent use. It keeps the nodes and pods it is given and never
// changes them.
type Tracker struct {
	p     *Planner
	hash  string
	j     judge
	rev   revisionOutcome
	surge bool // DIFF-9: the base diff allows surge
	// rolling: a RollingUpdate DaemonSet, whose nodes have a rolling category.
	rolling bool

	byName map[string]int32
	nodes  []trackedNode // by name
	dirty  []int32

	// Sums over nodes.
	counts                   statusCounts
	roll                     rollCounts
	baseCreates, baseDeletes int
	events                   int // base-diff events (DIFF-3's succeeded pods)
	foreign                  int // nodes holding a pod beyond the fold (see Tracker)
	failed                   int // nodes whose base diff deletes a Failed pod
	// Ordered sets of node indices: nodes whose base diff acts; nodes offered in the rolling
	// step.
	base, offered bitset

	// budgets are rollingBudgets' answer for budgetsFor desired nodes (-1: none yet): the
	// spec is the Tracker's for its life, and desired rarely moves between two plans, so the
	// percentages are not parsed again at every plan.
	budgets    rollBudgets
	budgetsFor int

	// proto is the daemon pod of the current hash, bound to no node yet (podFrom): built at
	// the first create.
	proto *v1.Pod

	// Reused from plan to plan.
	running     []daemonPod // diffState.running
	createNames []string    // diffState.creates
	creates     []Creation
	eventBuf    []Event
	// createAt holds the node index of each of creates, then of the rolling step's creates,
	// so withPods finds the node without a lookup by name.
	createAt []int32
	// The rolling step's actions: PlanTo copies them into the Result, so one array serves
	// every step instead of one or two new ones per step.
	stepDeletes []Deletion
	stepCreates []Creation
}

// trackedNode is one node of a Tracker with its outcome.
type trackedNode struct {
	node    *v1.Node
	pods    []*v1.Pod // as given
	st      nodeState
	dels    []Deletion // the base diff's deletions
	events  []Event
	foreign bool
	failed  bool
	pod     *v1.Pod // the daemon pod to create on the node, built at its first create
}

// Track returns a Tracker of the sync on s, or nil when s is beyond what a Tracker folds
// exactly (see [Tracker]) or the sync is skipped (SYNC-3, SYNC-4, SYNC-5, UPD-21). s follows
// [Planner.Plan]; s.Nodes must not hold two nodes of one name.
func (p *Planner) Track(s Snapshot) *Tracker {
	if p.skip != "" {
		return nil
	}
	rev := p.revision(s.Revisions, nil)
	if rev.collision || rev.hash == "" || p.createRefused(rev.hash) || !p.writesNothing(&rev, true) {
		return nil
	}
	nodes := nonNil(s.Nodes)
	t := &Tracker{p: p, hash: rev.hash, j: newJudge(p.ds, rev.hash, p.opts), rev: rev, surge: allowsSurge(p.ds),
		rolling: p.ds.Spec.UpdateStrategy.Type == appsv1.RollingUpdateDaemonSetStrategyType,
		byName:  make(map[string]int32, len(nodes)), nodes: make([]trackedNode, len(nodes)), budgetsFor: -1}
	sorted := nodes
	byName := func(a, b *v1.Node) int { return strings.Compare(a.Name, b.Name) }
	if !slices.IsSortedFunc(nodes, byName) { // a simulator's node list usually is: no copy to sort
		sorted = slices.Clone(nodes)
		slices.SortFunc(sorted, byName)
	}
	for i, n := range sorted {
		if _, dup := t.byName[n.Name]; dup {
			return nil
		}
		t.byName[n.Name] = int32(i)
		t.nodes[i] = trackedNode{node: n, st: nodeState{name: n.Name}}
	}
	// Pods by the node they are grouped on (OWN-9); a pod grouped on no listed node, or
	// claimed otherwise than as already controlled, is beyond the fold. One array holds every
	// node's pods, and another their grouped pods with room for one more per node (a surge
	// pod beside the old one), instead of two allocations per node. Each pod is claimed once,
	// here, and its facts kept for the nodes' first outcomes, instead of again in refresh.
	pods := nonNil(s.Pods)
	on := make([]int32, len(pods)) // the node index of each pod, -1 for none
	facts := make([]podFacts, len(pods))
	count := make([]int32, len(t.nodes))
	grouped := 0
	for k, pod := range pods {
		on[k] = -1
		c := p.claim(pod, nil, &t.j)
		facts[k] = c.facts
		if c.kind == claimIgnore {
			continue // not this DaemonSet's: it plays no part
		}
		if c.kind != claimOwned {
			return nil // OWN-3, OWN-4
		}
		i, ok := t.byName[c.target]
		if !c.grouped || !ok {
			if c.grouped {
				return nil // DIFF-8
			}
			continue // OWN-10: never grouped
		}
		on[k] = i
		count[i]++
		grouped++
	}
	podArr := make([]*v1.Pod, 0, grouped)
	dpArr := make([]daemonPod, 0, grouped+len(t.nodes))
	for i := range t.nodes {
		tn := &t.nodes[i]
		n := int(count[i])
		tn.pods = podArr[len(podArr) : len(podArr) : len(podArr)+n]
		podArr = podArr[:len(podArr)+n]
		tn.st.pods = dpArr[len(dpArr) : len(dpArr) : len(dpArr)+n+1]
		dpArr = dpArr[:len(dpArr)+n+1]
	}
	// Every pod placed on a node is claimed as controlled and grouped on it: the grouped pods
	// of refresh, in the same order.
	for k, i := range on {
		if i >= 0 {
			tn := &t.nodes[i]
			tn.pods = append(tn.pods, pods[k])
			tn.st.pods = append(tn.st.pods, daemonPod{pod: pods[k], facts: facts[k]})
		}
	}
	t.base, t.offered = newBitset(len(t.nodes)), newBitset(len(t.nodes))
	for i := range t.nodes {
		t.settle(int32(i), t.nodes[i].st.pods)
	}
	return t
}

// Touch gives the Tracker the current object and pods of the node named node.Name: the pods
// of the DaemonSet grouped on it (OWN-9), in any order. It reports false when the node is not
// one of the Tracker's; the node list itself is fixed.
func (t *Tracker) Touch(node *v1.Node, pods []*v1.Pod) bool {
	i, ok := t.byName[node.Name]
	if !ok {
		return false
	}
	t.touch(i, node, pods)
	return true
}

// Index returns the index of the node named name among the Tracker's nodes, for
// [Tracker.TouchAt]; false when it is not one of them. The index is the Tracker's own: it
// means nothing to another Tracker.
func (t *Tracker) Index(name string) (int, bool) {
	i, ok := t.byName[name]
	return int(i), ok
}

// TouchAt is [Tracker.Touch] for the node at index i, as [Tracker.Index] gave it for
// node.Name: a caller that touches the same nodes sync after sync keeps the index and saves
// the lookup by name (at 10,000 nodes that map access was 2.5% of rollout's Simulate CPU
// profile). It reports false when i is not the index of node.Name.
func (t *Tracker) TouchAt(i int, node *v1.Node, pods []*v1.Pod) bool {
	if i < 0 || i >= len(t.nodes) || t.nodes[i].st.name != node.Name {
		return false
	}
	t.touch(int32(i), node, pods)
	return true
}

// touch notes node i's new object and pods.
func (t *Tracker) touch(i int32, node *v1.Node, pods []*v1.Pod) {
	tn := &t.nodes[i]
	if !tn.dirty() {
		t.dirty = append(t.dirty, i)
	}
	tn.node, tn.pods = node, pods
	tn.st.status |= statDirty
}

// statDirty marks a tracked node touched since its outcome was computed; it is never part of a
// node's share of the status.
const statDirty statusBits = 1 << 7

func (tn *trackedNode) dirty() bool { return tn.st.status&statDirty != 0 }

// refresh computes node i's outcome again, as Plan's walk does, and updates the sums.
func (t *Tracker) refresh(i int32) {
	tn := &t.nodes[i]
	t.account(i, -1)
	dps := tn.st.pods[:0]
	tn.foreign = false
	for _, pod := range tn.pods {
		c := t.p.claim(pod, nil, &t.j)
		switch {
		case c.kind == claimIgnore:
		case c.kind != claimOwned || c.grouped && c.target != tn.st.name:
			tn.foreign = true
		case c.grouped:
			dps = append(dps, daemonPod{pod: pod, facts: c.facts})
		}
	}
	t.settle(i, dps)
}

// settle computes node i's outcome from its grouped pods dps (OWN-9, OWN-10 applied, in any
// order), and updates the sums. The node's previous outcome must still be in the sums; dps
// may share tn.st.pods' array.
func (t *Tracker) settle(i int32, dps []daemonPod) {
	tn := &t.nodes[i]
	tn.pod = nil
	p := t.p
	name := tn.st.name
	e := eligBitsOf(p.Eligibility(tn.node))
	slices.SortFunc(dps, compareDaemonPods)
	d := diffState{creates: t.createNames[:0], deletes: tn.dels[:0], running: t.running[:0], events: tn.events[:0]}
	diffNode(&d, name, e, dps, t.surge)
	t.createNames, t.running = d.creates, d.running
	tn.dels, tn.events = d.deletes, d.events
	tn.failed = slices.ContainsFunc(d.deletes, func(del Deletion) bool { return del.Reason == ReasonFailedPod })
	st := nodeState{name: name, pods: dps, status: statusOfPods(e, dps)}
	if e.shouldRun() || len(dps) > 0 {
		st.flags = nodeListed
		if e.shouldRun() {
			st.flags |= nodeShouldRun
		}
		if len(d.creates) > 0 {
			st.flags |= nodeCreates
		}
		if t.rolling {
			st.roll = rollOf(&st)
		}
	}
	tn.st = st
	t.account(i, 1)
}

// account adds sign (1 or -1) times node i's outcome to the sums.
func (t *Tracker) account(i int32, sign int) {
	tn := &t.nodes[i]
	t.counts.addBits(tn.st.status&^statDirty, int32(sign))
	t.roll.add(&tn.st.roll, sign)
	creates := 0
	if tn.st.creates() {
		creates = 1
	}
	t.baseCreates += sign * creates
	t.baseDeletes += sign * len(tn.dels)
	t.events += sign * len(tn.events)
	t.foreign += sign * b2i(tn.foreign)
	t.failed += sign * b2i(tn.failed)
	if sign > 0 {
		t.base.set(int(i), creates+len(tn.dels) > 0)
		r := tn.st.roll
		t.offered.set(int(i), r.surge != actNone || r.bits&(rollOldUnavailable|rollOldCandidate) != 0)
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Plan returns the plan [Planner.Plan] gives for the snapshot as touched, or nil while it cannot
// be folded exactly (see [Tracker]). It costs the touched nodes and the actions, not the
// nodes. The pod of a Creation is built once per node and shared by the plans that create it
// until the node is touched again: a caller that changes it must not plan again before
// touching its node.
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
		t.stepDeletes, t.createAt = e.step.deletes, at // the step creates nothing without surge
		return e.step
	}
	e := newSurgeStep(desired, maxUnavailable, maxSurge, &t.roll, t.stepDeletes, t.stepCreates)
	for i := t.offered.next(0); i >= 0 && !e.done(); i = t.offered.next(i + 1) {
		e.visit(&t.nodes[i].st)
		for len(at) < len(e.step.creates) {
			at = append(at, int32(i))
		}
	}
	t.stepDeletes, t.stepCreates, t.createAt = e.step.deletes, e.step.creates, at
	return e.step
}

// rollBudgets is what rollingBudgets returns for one desired count.
type rollBudgets struct {
	maxUnavailable, maxSurge int
	err                      error
}

// bitset is an ordered set of node indices.
type bitset struct {
	words []uint64
	lo    int // no word below lo has a bit set
}

func newBitset(n int) bitset { return bitset{words: make([]uint64, (n+63)/64)} }

func (b *bitset) set(i int, on bool) {
	if on {
		b.words[i/64] |= 1 << (i % 64)
		b.lo = min(b.lo, i/64)
	} else {
		b.words[i/64] &^= 1 << (i % 64)
	}
}

// next returns the first index from i on, -1 when there is none. It skips the leading empty
// words it has seen before, so a scan from 0 costs the words from the first index on.
func (b *bitset) next(i int) int {
	for b.lo < len(b.words) && b.words[b.lo] == 0 {
		b.lo++
	}
	w := max(i/64, b.lo)
	if w >= len(b.words) {
		return -1
	}
	word := b.words[w]
	if w == i/64 {
		word &^= 1<<(i%64) - 1
	}
	for {
		if word != 0 {
			return w*64 + bits.TrailingZeros64(word)
		}
		if w++; w >= len(b.words) {
			return -1
		}
		word = b.words[w]
	}
}
