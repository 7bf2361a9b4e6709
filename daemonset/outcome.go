package daemonset

import (
	"slices"
	"strings"

	"github.com/daemonsched/daemonsched/internal/choice"
)

// One DaemonSet's sync on one node, computed once (SYNC-2). Every consumer of a sync is a fold
// over these per-node outcomes plus the rolling step's budget pass: the plan (Plan), the
// pending plan's status (PlanPending), the verifier's choice sets (Orders) and the incremental
// re-plan of a simulation (Tracker). None of them reads a node's pods to decide anything the
// outcome already says.

// nodeState is the outcome of the sync on one entry of the rolling update's per-node map
// (UPD-4: every node that should run a daemon pod, and every node name holding grouped pods).
// A node outside the map (it should not run a pod and holds none) has no action, adds nothing
// to the status and is not in the rolling step, so no consumer needs its outcome. The fields
// fit 48 bytes, what the map entry alone took before: the walk keeps one per node, 4.8 MB at
// 100,000 nodes, in the plan's pooled scratch space.
type nodeState struct {
	name string
	// pods are the grouped pods of the node (OWN-9, OWN-10 applied), in DIFF-7 order.
	pods []daemonPod
	// delEnd ends the node's base-diff deletions (DIFF-3..DIFF-8, DIFF-17) in
	// diffState.deletes of the walk that computed the outcome; they start where the previous
	// entry's end, in the walk's order.
	delEnd int32
	flags  nodeFlags
	// status is the node's share of the status counters (STAT-2..STAT-5, STAT-12).
	status statusBits
	// roll is the node's category in the rolling step (UPD-8, UPD-11), before any budget.
	roll nodeRoll
}

// nodeFlags are the one-bit facts of a map entry.
type nodeFlags uint8

const (
	// nodeListed: a node of that name is in the node list (else DIFF-8, UPD-11 apply).
	nodeListed nodeFlags = 1 << iota
	// nodeShouldRun: the node should run a daemon pod (ELIG-*).
	nodeShouldRun
	// nodeCreates: the base diff creates the node's daemon pod (DIFF-2, DIFF-6).
	nodeCreates
)

func (st *nodeState) listed() bool    { return st.flags&nodeListed != 0 }
func (st *nodeState) shouldRun() bool { return st.flags&nodeShouldRun != 0 }
func (st *nodeState) creates() bool   { return st.flags&nodeCreates != 0 }

// statusBits is one node's share of the status counters, one bit per counter: choice.Share,
// whose ShareOf states STAT-2..STAT-5 for the plan and the verifier's recount alike.
type statusBits = choice.Share

const (
	statDesired      = choice.ShareDesired
	statCurrent      = choice.ShareCurrent
	statMisscheduled = choice.ShareMisscheduled
	statReady        = choice.ShareReady
	statUpdated      = choice.ShareUpdated
	statAvailable    = choice.ShareAvailable
)

// statusOf is one node's share of the counters (choice.ShareOf): a node that should run a
// daemon pod or not, whose first pod in DIFF-7 order has the facts oldest, nil when it holds
// none.
func statusOf(shouldRun bool, oldest *podFacts) statusBits {
	if oldest == nil {
		return choice.ShareOf(shouldRun, false, false, false, false)
	}
	return choice.ShareOf(shouldRun, true, oldest.has(factReady), oldest.has(factAvailable), oldest.has(factUpdated))
}

// statusOfPods is statusOf for a node of the node list with its grouped pods in DIFF-7 order
// (audit S6): terminating pods count, so a node holding only terminating pods is current (or
// misscheduled) and its oldest terminating pod decides ready, available and updated.
func statusOfPods(e eligBits, pods []daemonPod) statusBits {
	if len(pods) == 0 {
		return statusOf(e.shouldRun(), nil)
	}
	return statusOf(e.shouldRun(), &pods[0].facts) // STAT-5: only the first pod counts
}

// addBits adds sign (1 or -1) times one node's share b to the counters.
func (c *statusCounts) addBits(b statusBits, sign int32) {
	if b&statDesired != 0 {
		c.desired += sign
	}
	if b&statCurrent != 0 {
		c.current += sign
	}
	if b&statMisscheduled != 0 {
		c.misscheduled += sign
	}
	if b&statReady != 0 {
		c.ready += sign
	}
	if b&statUpdated != 0 {
		c.updated += sign
	}
	if b&statAvailable != 0 {
		c.available += sign
	}
}

// nodeRoll is a node's category in the rolling step, for both of its algorithms (the resolved
// maxSurge, known only once every node is counted, picks one): what the node is offered for
// and what it adds to the step's counts. The budget pass (rollingNoSurge, rollingSurge) folds
// these and takes candidates in node order.
type nodeRoll struct {
	surge nodeAction // UPD-11
	bits  rollBits   // UPD-8's offer, and the counts of both
}

// rollBits is what one node adds to the counts of the rolling step and, without surge, what
// its old pod is offered for.
type rollBits uint8

const (
	// rollUnavailable counts toward the unavailable nodes of UPD-8.
	rollUnavailable rollBits = 1 << iota
	// rollSurging counts toward S of UPD-11 (nodes surging or settling several pods).
	rollSurging
	// rollAvailable counts toward A of UPD-11.
	rollAvailable
	// rollOldUnavailable: without surge, the node's only pod is old and not available, and
	// is deleted budget-free (UPD-8).
	rollOldUnavailable
	// rollOldCandidate: without surge, the node's only pod is old and available, a candidate
	// for the budget (UPD-8, UPD-9).
	rollOldCandidate
)

// rollOf categorizes one entry of the map (UPD-8, UPD-11) from the shape of its
// non-terminating pods (UPD-3), before any budget: every available old pod is offered as a
// candidate here; the budget pass takes some of them.
//
// Upstream records a candidate only while its running count (unavailable nodes without surge,
// S with it) is below the budget. The count never decreases, so the number taken is
// max(0, min(budget - count, candidates)) with the final count whatever the walk order: when
// the final count is below the budget every candidate was recorded, otherwise none is taken.
// Offering every candidate and budgeting once gives the same actions.
func rollOf(st *nodeState) nodeRoll {
	s := shapeOf(st.pods)
	var r nodeRoll
	// UPD-8.
	switch {
	case s.excess, s.oldPod == nil && s.newPod == nil, s.oldPod != nil && s.newPod != nil:
		// The base diff of a later sync settles the node; it counts as unavailable, also when
		// it only holds terminating pods.
		r.bits |= rollUnavailable
	case s.newPod != nil:
		if !s.newPod.facts.has(factAvailable) {
			r.bits |= rollUnavailable
		}
	case !s.oldPod.facts.has(factAvailable):
		r.bits |= rollOldUnavailable | rollUnavailable
	default:
		r.bits |= rollOldCandidate
	}
	// UPD-11.
	if s.excess {
		r.bits |= rollSurging
		return r
	}
	if s.oldPod != nil {
		if s.oldPod.facts.has(factAvailable) {
			r.bits |= rollAvailable
		}
	} else if s.newPod != nil && s.newPod.facts.has(factAvailable) {
		r.bits |= rollAvailable
	}
	switch {
	case s.oldPod == nil:
	case s.newPod == nil:
		oldAvailable := s.oldPod.facts.has(factAvailable)
		switch {
		case !st.listed():
			r.surge = actFailMissingNode
		case !oldAvailable && !st.shouldRun():
			r.surge = actDeleteIneligibleUnavailable
		case !oldAvailable:
			r.surge = actCreateAllowed
		case !st.shouldRun():
			r.surge = actDeleteIneligibleCandidate
		default:
			r.surge = actCreateCandidate
		}
	case !s.newPod.facts.has(factAvailable):
		r.bits |= rollSurging
	default:
		r.surge = actDeleteReplaced
	}
	return r
}

// syncWalk is what the walk over the nodes of one sync found: the outcome of every map entry,
// the number of nodes that should run a daemon pod and the status counters.
type syncWalk struct {
	states  []nodeState // listed nodes in node-list order, then missing ones by name
	desired int
	counts  statusCounts
	// sorted says that states are in name order already.
	sorted bool
}

// walk computes the outcome of every node of the sync once (SYNC-2): the base diff, appended to
// d (DIFF-1..DIFF-17), each node's share of the status (STAT-1: the snapshot before acting)
// and, when rolling, its category in the rolling step (UPD-4). No node or pod is read again
// by the folds that follow. states is scratch space to append to.
func (p *Planner) walk(ix *podIndex, d *diffState, states []nodeState, rolling bool) syncWalk {
	surge := allowsSurge(p.ds)
	w := syncWalk{states: slices.Grow(states[:0], len(ix.names)+len(ix.missing)), sorted: true}
	for i, name := range ix.names {
		e, pods := ix.elig[i], ix.podsOf(i)
		c0 := len(d.creates)
		diffNode(d, name, e, pods, surge)
		bits := statusOfPods(e, pods)
		w.counts.addBits(bits, 1)
		if e.shouldRun() {
			w.desired++
		}
		if !e.shouldRun() && len(pods) == 0 {
			continue // outside the map: no action, no share, no step
		}
		if n := len(w.states); n > 0 && name < w.states[n-1].name {
			w.sorted = false
		}
		flags := nodeListed
		if e.shouldRun() {
			flags |= nodeShouldRun
		}
		if len(d.creates) > c0 {
			flags |= nodeCreates
		}
		w.states = append(w.states, nodeState{name: name, pods: pods, delEnd: int32(len(d.deletes)), flags: flags, status: bits})
		if rolling {
			st := &w.states[len(w.states)-1]
			st.roll = rollOf(st)
		}
	}
	for _, g := range ix.missing {
		diffMissing(d, g)
		if n := len(w.states); n > 0 && g.name < w.states[n-1].name {
			w.sorted = false
		}
		w.states = append(w.states, nodeState{name: g.name, pods: g.pods, delEnd: int32(len(d.deletes))})
		if rolling {
			st := &w.states[len(w.states)-1]
			st.roll = rollOf(st)
		}
	}
	return w
}

// sortStates puts states in name order, the order of the rolling step (D-1).
func sortStates(states []nodeState) {
	slices.SortFunc(states, func(a, b nodeState) int { return strings.Compare(a.name, b.name) })
}
