package daemonset

import "fmt"

// rollingStep is what the rolling-update step decides (UPD-5..UPD-13).
//
// creates and deletes are in node-name order (the order of states). The caller's burst cap
// (DIFF-10) takes the budget-free actions before the budgeted candidates, as upstream's lists
// do, and node-name order within each (D-1; audit S12, see capDeletes).
type rollingStep struct {
	report  RollingUpdate
	creates []Creation // Pod left nil: the caller builds it
	deletes []Deletion
}

// nodeShape is how the non-terminating pods of one map entry split into updated and old pods
// (UPD-3), as the v1.36 controller sees them (pkg/controller/daemon: findUpdatedPodsOnNode).
type nodeShape struct {
	// excess: more than one old or more than one updated pod; newPod and oldPod are then nil.
	excess         bool
	newPod, oldPod *daemonPod
}

// shapeOf classifies pods, ignoring terminating ones (UPD-8, UPD-11).
func shapeOf(pods []daemonPod) nodeShape {
	var s nodeShape
	for k := range pods {
		dp := &pods[k]
		if dp.facts.has(factTerminating) {
			continue
		}
		if dp.facts.has(factUpdated) {
			if s.newPod != nil {
				return nodeShape{excess: true}
			}
			s.newPod = dp
		} else {
			if s.oldPod != nil {
				return nodeShape{excess: true}
			}
			s.oldPod = dp
		}
	}
	return s
}

// rollingUpdate runs the step for a RollingUpdate DaemonSet whose base diff is empty. states
// holds one entry per node of the map of UPD-4 (every shouldRun node, plus nodes holding pods),
// sorted by name; desired is the number of shouldRun nodes.
//
// Budgets are resolved first (UPD-5, UPD-6); a resolution error stops the step (Acted false,
// Reason "Error", the error in Error and BudgetError, both budgets reported as 0). A resolved
// maxSurge of 0 runs the non-surge algorithm (UPD-8), any other value, negative included, the
// surge algorithm (UPD-11, UPD-7).
// Both budgets are resolved against desired here, whatever the base diff decided with
// allowsSurge (resolved against 1; audit S3).
//
// "Updated" here is UPD-3 (hash OR pod-template-generation), unlike the base diff's surge rule
// (DIFF-6: hash label only). A node holding a current-hash pod and an old-hash pod with the
// current generation is kept whole by DIFF-6 when the first is not yet available, and then counts
// here as holding two new pods: excess, so S += 1 (or U += 1) and its availability is not
// counted (audit S2).
//
// Where upstream walks a Go map and so picks candidates at random (UPD-9, UPD-23), the step
// walks states in name order and takes candidates from the front (D-1). Every action chosen that
// way is marked Interchangeable exactly when fewer candidates were chosen than were offered in
// its class (available old pods without surge, surge candidate nodes, ineligible candidates);
// when the whole class is taken the choice is determined and nothing is marked. Budget-free
// actions (unavailable old pods, allowed nodes, surge replacements) are never marked.
func (p *Planner) rollingUpdate(states []nodeState, desired int) rollingStep {
	maxUnavailable, maxSurge, err := rollingBudgets(p.ds, desired)
	if err != nil {
		return rollingStep{report: RollingUpdate{Reason: RollingReasonError, Error: err.Error(), BudgetError: err.Error()}}
	}
	if maxSurge == 0 {
		return rollingNoSurge(states, maxUnavailable)
	}
	return rollingSurge(states, desired, maxUnavailable, maxSurge)
}

// waitingStep is the report of a step that the base diff keeps from acting (UPD-2): the budgets
// resolved against desired as the step itself would resolve them, or why they do not resolve,
// so that a plan says what the step will work with once the base diff is done.
func (p *Planner) waitingStep(desired int) RollingUpdate {
	ru := RollingUpdate{Reason: RollingReasonBaseDiffNotEmpty}
	maxUnavailable, maxSurge, err := rollingBudgets(p.ds, desired)
	if err != nil {
		ru.BudgetError = err.Error()
		return ru
	}
	ru.MaxUnavailable, ru.MaxSurge = maxUnavailable, maxSurge
	return ru
}

// nodeAction is what a node is offered for in the surge step (rollOf, UPD-11), before the
// budget pass takes candidates: one byte per node, so that the pass emits the actions in node order
// without looking at any node's pods again.
type nodeAction uint8

const (
	actNone nodeAction = iota
	actDeleteIneligibleUnavailable
	actDeleteIneligibleCandidate
	actDeleteReplaced
	actCreateAllowed
	actCreateCandidate
	// actFailMissingNode: a node missing from the node list with an old pod and no new pod
	// fails the surge step (UPD-11).
	actFailMissingNode
)

// noSurgeBudget is the budget pass of UPD-8 over the folded counts: how many of the offered
// candidates the step takes, and whether the ones taken are one choice among several (D-1).
func noSurgeBudget(maxUnavailable, unavailable, candidates int) (take int, interchangeable bool) {
	take = min(max(maxUnavailable-unavailable, 0), candidates)
	return take, take < candidates
}

// surgeBudget is the budget pass of UPD-11 over the folded counts: how many ineligible
// candidates go (only while more pods are available than desired) and how many surge
// candidates get a new pod (up to maxSurge less the nodes already surging).
func surgeBudget(desired, maxSurge, surging, available, ineligible, candidates int) (takeIneligible, takeSurge int) {
	return min(max(available-desired, 0), ineligible), min(max(maxSurge-surging, 0), candidates)
}

// rollingNoSurge is UPD-8: delete every old pod that is not available (budget-free), then as many
// available old pods (candidates) as maxUnavailable leaves once every unavailable node is
// counted. It folds the nodes' categories (rollOf) and takes candidates in node order.
func rollingNoSurge(states []nodeState, maxUnavailable int) rollingStep {
	var c rollCounts
	for i := range states {
		c.add(&states[i].roll, 1)
	}
	e := newNoSurgeStep(maxUnavailable, &c, 0, nil)
	for i := range states {
		if e.done() {
			break
		}
		e.visit(&states[i])
	}
	return e.step
}

// rollingSurge is UPD-11: replace unavailable old pods at once, surge onto up to maxSurge nodes
// with an available old pod, delete old pods whose new pod is available, and delete old pods of
// nodes that should no longer run only while more pods are available than desired.
// maxUnavailable is only reported (UPD-7). It folds the nodes' categories (rollOf) and takes
// candidates in node order.
//
// A node missing from the node list with an old pod and no new pod fails the whole step;
// upstream fails at the first such node its map walk meets, which always happens before
// anything is submitted, so the step fails whenever one exists (the error names the first by
// name).
func rollingSurge(states []nodeState, desired int, maxUnavailable, maxSurge int) rollingStep {
	var c rollCounts
	for i := range states {
		if states[i].roll.surge == actFailMissingNode {
			report := RollingUpdate{MaxUnavailable: maxUnavailable, MaxSurge: maxSurge, Reason: RollingReasonError,
				Error: missingNodeError(states[i].name)}
			return rollingStep{report: report}
		}
		c.add(&states[i].roll, 1)
	}
	e := newSurgeStep(desired, maxUnavailable, maxSurge, &c, nil, nil)
	for i := range states {
		if e.done() {
			break
		}
		e.visit(&states[i])
	}
	return e.step
}

// rollCounts are the sums of the nodes' categories that the budget pass reads.
type rollCounts struct {
	unavailable, surging, available int // UPD-8's unavailable nodes; S and A of UPD-11
	oldUnavailable, oldCandidates   int // UPD-8's offers
	// UPD-11's offers, by nodeAction.
	surge [actFailMissingNode + 1]int
}

// add adds sign (1 or -1) times one node's category.
func (c *rollCounts) add(r *nodeRoll, sign int) {
	b := r.bits
	if b&rollUnavailable != 0 {
		c.unavailable += sign
	}
	if b&rollSurging != 0 {
		c.surging += sign
	}
	if b&rollAvailable != 0 {
		c.available += sign
	}
	if b&rollOldUnavailable != 0 {
		c.oldUnavailable += sign
	}
	if b&rollOldCandidate != 0 {
		c.oldCandidates += sign
	}
	c.surge[r.surge] += sign
}

// noSurgeStep is the budget pass of UPD-8 and then its actions, node by node: visit every
// entry of the map offered for a deletion, in node order, until done.
type noSurgeStep struct {
	step              rollingStep
	take, taken, left int // candidates to take, taken; budget-free deletions left
	interchangeable   bool
}

// newNoSurgeStep runs the budget pass over c, the sums of the whole map's categories. limit,
// when above 0, is the burst cap (DIFF-10) the caller applies next: the step then emits only
// the candidates the cap can keep, and one more so that the cap still sees where it cuts, since
// every budget-free deletion comes before every candidate (rollingClass) and both are emitted
// in node order. The marks are those of the whole list. The deletions are written into buf's
// array when it is large enough (nil: a new one).
func newNoSurgeStep(maxUnavailable int, c *rollCounts, limit int, buf []Deletion) noSurgeStep {
	take, interchangeable := noSurgeBudget(maxUnavailable, c.unavailable, c.oldCandidates)
	if limit > 0 {
		take = min(take, max(limit-c.oldUnavailable, 0)+1)
	}
	e := noSurgeStep{step: rollingStep{report: RollingUpdate{Acted: true, MaxUnavailable: maxUnavailable}},
		take: take, left: c.oldUnavailable, interchangeable: interchangeable}
	if n := c.oldUnavailable + take; n > 0 {
		e.step.deletes = reuse(buf, n)
	}
	return e
}

func (e *noSurgeStep) done() bool { return e.taken == e.take && e.left == 0 }

func (e *noSurgeStep) visit(st *nodeState) {
	switch b := st.roll.bits; {
	case b&rollOldUnavailable != 0:
		e.left--
		e.step.deletes = append(e.step.deletes, deletionAt(st, ReasonUpdateOldUnavailable, false))
	case b&rollOldCandidate != 0 && e.taken < e.take:
		e.taken++
		e.step.deletes = append(e.step.deletes, deletionAt(st, ReasonUpdateOldCandidate, e.interchangeable))
	}
}

// surgeStep is the budget pass of UPD-11 and then its actions, node by node: visit every entry
// of the map offered for an action, in node order, until done. No entry fails the step.
type surgeStep struct {
	step                          rollingStep
	takeIneligible, takeSurge     int
	takenIneligible, takenSurge   int
	ineligibleMarked, surgeMarked bool
	nDeletes, nCreates            int
}

// newSurgeStep runs the budget pass over c, the sums of the whole map's categories. The actions
// are written into the arrays of dels and creates when they are large enough (nil: new ones).
func newSurgeStep(desired, maxUnavailable, maxSurge int, c *rollCounts, dels []Deletion, creates []Creation) surgeStep {
	ineligible, candidates := c.surge[actDeleteIneligibleCandidate], c.surge[actCreateCandidate]
	e := surgeStep{step: rollingStep{report: RollingUpdate{Acted: true, MaxUnavailable: maxUnavailable, MaxSurge: maxSurge}}}
	e.takeIneligible, e.takeSurge = surgeBudget(desired, maxSurge, c.surging, c.available, ineligible, candidates)
	e.ineligibleMarked, e.surgeMarked = e.takeIneligible < ineligible, e.takeSurge < candidates
	e.nDeletes = c.surge[actDeleteIneligibleUnavailable] + c.surge[actDeleteReplaced] + e.takeIneligible
	e.nCreates = c.surge[actCreateAllowed] + e.takeSurge
	if e.nDeletes > 0 {
		e.step.deletes = reuse(dels, e.nDeletes)
	}
	if e.nCreates > 0 {
		e.step.creates = reuse(creates, e.nCreates)
	}
	return e
}

func (e *surgeStep) done() bool {
	return len(e.step.deletes) == e.nDeletes && len(e.step.creates) == e.nCreates
}

func (e *surgeStep) visit(st *nodeState) {
	switch st.roll.surge {
	case actDeleteIneligibleUnavailable:
		e.step.deletes = append(e.step.deletes, deletionAt(st, ReasonSurgeOldUnavailableIneligible, false))
	case actDeleteReplaced:
		e.step.deletes = append(e.step.deletes, deletionAt(st, ReasonSurgeReplaced, false))
	case actDeleteIneligibleCandidate:
		if e.takenIneligible < e.takeIneligible {
			e.takenIneligible++
			e.step.deletes = append(e.step.deletes, deletionAt(st, ReasonSurgeIneligibleExcess, e.ineligibleMarked))
		}
	case actCreateAllowed:
		e.step.creates = append(e.step.creates, Creation{Node: st.name, Reason: ReasonSurgeOldUnavailable})
	case actCreateCandidate:
		if e.takenSurge < e.takeSurge {
			e.takenSurge++
			e.step.creates = append(e.step.creates, Creation{Node: st.name, Reason: ReasonSurgeCandidate, Interchangeable: e.surgeMarked})
		}
	}
}

// missingNodeError is the text of the v1.36 controller's error for a node missing from the node
// list in the surge step, with the node lister's NotFound message.
func missingNodeError(name string) string {
	return fmt.Sprintf("couldn't get node for nodeName %q: node %q not found", name, name)
}

// deletionAt names the old pod of st (every deletion of the step is of the node's only old pod)
// for deletion.
func deletionAt(st *nodeState, reason Reason, interchangeable bool) Deletion {
	pod := shapeOf(st.pods).oldPod.pod
	return Deletion{Namespace: pod.Namespace, Name: pod.Name, Node: st.name, Reason: reason, Interchangeable: interchangeable, UID: pod.UID}
}

// reuse returns buf emptied when it holds n elements, otherwise a new array of n: one
// allocation at most (slices.Grow makes two under the race detector).
func reuse[E any](buf []E, n int) []E {
	if cap(buf) >= n {
		return buf[:0]
	}
	return make([]E, 0, n)
}
