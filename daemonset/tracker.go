package daemonset

import (
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
