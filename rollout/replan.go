package rollout

import (
	"github.com/daemonsched/daemonsched/daemonset"
)

// tracked re-plans only the nodes an event touched (ROLL-12), through a daemonset.Tracker of
// the Planner the simulation plans with: the per-node outcomes, their fold and every rule are
// package daemonset's. What is the simulation's own is which nodes changed since the last plan
// (the world tells, node by node) and when the Tracker no longer fits: a new Planner (the
// spec, the observed generation), a node event, a pod meant for a node that does not exist.
type tracked struct {
	tr      *daemonset.Tracker
	planner *daemonset.Planner
	spec    uint64 // sim.spec when tracked
	// observedAtMost: the tracked Planner's DaemonSet had observedGeneration <= generation.
	observedAtMost bool
	dirty          []*nodeEntry // touched since the last plan, each once (nodeEntry.dirty)
	// plans are the Results the Tracker writes into, in turn, lists included: a sync plans
	// at most three times (the plan, the rolling step after its own writes, the status), and
	// nothing keeps a plan beyond the sync after its own but the simulation's memo of the
	// last one, so four are never overwritten while in use.
	plans [4]daemonset.Result
	next  int
}

// track returns the tracked state of the world for p, or nil when a Tracker would not fold
// exactly: availability that changes with the clock (minReadySeconds) is the simulation's
// reason; the others are the Tracker's (daemonset.Planner.Track).
func (sm *sim) track(p *daemonset.Planner) *tracked {
	w := sm.w
	if w.ds().Spec.MinReadySeconds != 0 {
		return nil
	}
	// The world's own lists: the Tracker reads the pods only when a node is touched again,
	// and never changes them, so this gives out no pod (no exposure).
	tr := p.Track(daemonset.Snapshot{Nodes: w.nodes, Pods: w.pods, Revisions: w.revisions})
	if tr == nil {
		return nil
	}
	ds := w.ds()
	return &tracked{tr: tr, planner: p, spec: sm.spec, observedAtMost: ds.Status.ObservedGeneration <= ds.Generation}
}

// fits reports whether the Tracker still plans as p would. A Planner compiled again for the
// same spec only because the observed generation moved (sim.plannerFor) decides every node as
// the tracked one did (minReadySeconds is 0, so the clock plays no part); its status differs
// only where a stored observedGeneration above metadata.generation is kept (STAT-9), which
// neither DaemonSet has here.
func (t *tracked) fits(p *daemonset.Planner, sm *sim) bool {
	if p == t.planner {
		return true
	}
	ds := sm.w.ds()
	return t.spec == sm.spec && ds.Status.ObservedGeneration <= ds.Generation && t.observedAtMost
}

// touch notes that e's node or pods changed.
func (t *tracked) touch(e *nodeEntry) {
	if !e.dirty {
		e.dirty = true
		t.dirty = append(t.dirty, e)
	}
}

// plan gives the Tracker the touched nodes and returns its plan; nil when it cannot fold this
// one (the caller plans the whole snapshot), and ok false when it no longer fits the world (a
// touched name without a node).
func (t *tracked) plan() (res *daemonset.Result, ok bool) {
	for _, e := range t.dirty {
		e.dirty = false
		if e.node == nil || !t.touchEntry(e) {
			t.drop()
			return nil, false
		}
	}
	t.dirty = t.dirty[:0]
	res = &t.plans[t.next]
	t.next = (t.next + 1) % len(t.plans)
	if !t.tr.PlanTo(res) {
		return nil, true
	}
	return res, true
}

// touchEntry gives the Tracker e's node and pods, by the index e remembers when it is still
// right: the lookup by name costs a map access per touch.
func (t *tracked) touchEntry(e *nodeEntry) bool {
	if t.tr.TouchAt(int(e.trackIdx), e.node, e.pods) {
		return true
	}
	i, ok := t.tr.Index(e.node.Name)
	if !ok {
		return false
	}
	e.trackIdx = int32(i)
	return t.tr.TouchAt(i, e.node, e.pods)
}

// drop forgets the touched nodes.
func (t *tracked) drop() {
	for _, e := range t.dirty {
		e.dirty = false
	}
	t.dirty = nil
}
