package daemonset

import "fmt"

// nodeState is one entry of the rolling update's per-node map (UPD-4).
type nodeState struct {
	name string
	// listed is false when no node of that name is in the node list.
	listed    bool
	shouldRun bool
	// pods are the grouped pods of the node (OWN-9, OWN-10 applied), in DIFF-7 order.
	pods []daemonPod
}

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
func (p *Planner) waitingStep(desired int) *RollingUpdate {
	ru := &RollingUpdate{Reason: RollingReasonBaseDiffNotEmpty}
	maxUnavailable, maxSurge, err := rollingBudgets(p.ds, desired)
	if err != nil {
		ru.BudgetError = err.Error()
		return ru
	}
	ru.MaxUnavailable, ru.MaxSurge = maxUnavailable, maxSurge
	return ru
}

// nodeAction is what pass 1 of the step decided for one entry of the map, so that pass 2 emits
// the actions in node order without looking at the pods of the other nodes again (one byte per
// node instead of a second walk over every pod: about half the cost at 100,000 nodes).
type nodeAction uint8

const (
	actNone nodeAction = iota
	actDeleteUnavailableOld
	actDeleteCandidate
	actDeleteIneligibleUnavailable
	actDeleteIneligibleCandidate
	actDeleteReplaced
	actCreateAllowed
	actCreateCandidate
)

// rollingNoSurge is UPD-8: delete every old pod that is not available (budget-free), then as many
// available old pods (candidates) as maxUnavailable leaves once every unavailable node is
// counted.
//
// As upstream, a candidate is only recorded while the running unavailable count is below
// maxUnavailable. Because the count never decreases, this gives the same number as
// max(0, min(maxUnavailable - U, C)) with the final U, whatever the walk order: if the final U is
// below the budget every candidate was recorded, otherwise none is used.
func rollingNoSurge(states []nodeState, maxUnavailable int) rollingStep {
	var acts []nodeAction // allocated at the first action
	mark := func(i int, a nodeAction) {
		if acts == nil {
			acts = make([]nodeAction, len(states))
		}
		acts[i] = a
	}
	unavailable, recorded, unavailableOld := 0, 0, 0
	for i := range states {
		s := shapeOf(states[i].pods)
		switch {
		case s.excess, s.oldPod == nil && s.newPod == nil, s.oldPod != nil && s.newPod != nil:
			// The base diff of a later sync settles the node; it counts as unavailable, also
			// when it only holds terminating pods.
			unavailable++
		case s.newPod != nil:
			if !s.newPod.facts.has(factAvailable) {
				unavailable++
			}
		case !s.oldPod.facts.has(factAvailable):
			mark(i, actDeleteUnavailableOld)
			unavailableOld++
			unavailable++
		case unavailable >= maxUnavailable:
			// Upstream stops recording candidates once the budget is spent.
		default:
			mark(i, actDeleteCandidate)
			recorded++
		}
	}
	take := min(max(maxUnavailable-unavailable, 0), recorded)
	step := rollingStep{report: RollingUpdate{Acted: true, MaxUnavailable: maxUnavailable}}
	if unavailableOld+take == 0 {
		return step
	}
	interchangeable := take < recorded

	step.deletes = make([]Deletion, 0, unavailableOld+take)
	taken := 0
	for i, a := range acts {
		switch a {
		case actDeleteUnavailableOld:
			step.deletes = append(step.deletes, deletionAt(&states[i], ReasonUpdateOldUnavailable, false))
		case actDeleteCandidate:
			if taken < take {
				taken++
				step.deletes = append(step.deletes, deletionAt(&states[i], ReasonUpdateOldCandidate, interchangeable))
			}
		}
	}
	return step
}

// rollingSurge is UPD-11: replace unavailable old pods at once, surge onto up to maxSurge nodes
// with an available old pod, delete old pods whose new pod is available, and delete old pods of
// nodes that should no longer run only while more pods are available than desired.
// maxUnavailable is only reported (UPD-7).
//
// As upstream, a surge candidate is recorded only while the running surge count S is below
// maxSurge; S never decreases, so the number created is max(0, min(maxSurge - S, K)) with the
// final S whatever the walk order. A node missing from the node list with an old pod and no new
// pod fails the whole step; upstream fails at the first such node its map walk meets, which
// always happens before anything is submitted, so the step fails whenever one exists (the error
// names the first by name).
func rollingSurge(states []nodeState, desired int, maxUnavailable, maxSurge int) rollingStep {
	report := RollingUpdate{MaxUnavailable: maxUnavailable, MaxSurge: maxSurge}

	var acts []nodeAction // allocated at the first action
	mark := func(i int, a nodeAction) {
		if acts == nil {
			acts = make([]nodeAction, len(states))
		}
		acts[i] = a
	}
	surge, available := 0, 0       // S and A of UPD-11
	allowed, candidates := 0, 0    // allowed nodes; surge candidates recorded while S < maxSurge
	ineligible, oldDeletes := 0, 0 // ineligible candidates; budget-free old-pod deletions
	missing := -1                  // index of the first missing node with an old pod only
	for i := range states {
		st := &states[i]
		s := shapeOf(st.pods)
		if s.excess {
			surge++
			continue
		}
		if s.oldPod != nil {
			if s.oldPod.facts.has(factAvailable) {
				available++
			}
		} else if s.newPod != nil && s.newPod.facts.has(factAvailable) {
			available++
		}
		switch {
		case s.oldPod == nil:
		case s.newPod == nil:
			if !st.listed {
				if missing < 0 {
					missing = i
				}
				continue
			}
			oldAvailable := s.oldPod.facts.has(factAvailable)
			switch {
			case !oldAvailable && !st.shouldRun:
				mark(i, actDeleteIneligibleUnavailable)
				oldDeletes++
			case !oldAvailable:
				mark(i, actCreateAllowed)
				allowed++
			case !st.shouldRun:
				mark(i, actDeleteIneligibleCandidate)
				ineligible++
			case surge < maxSurge:
				mark(i, actCreateCandidate)
				candidates++
			}
		case !s.newPod.facts.has(factAvailable):
			surge++
		default:
			mark(i, actDeleteReplaced)
			oldDeletes++
		}
	}
	if missing >= 0 {
		// The text of the v1.36 controller's error, with the node lister's NotFound message.
		name := states[missing].name
		report.Reason = RollingReasonError
		report.Error = fmt.Sprintf("couldn't get node for nodeName %q: node %q not found", name, name)
		return rollingStep{report: report}
	}

	takeIneligible := min(max(available-desired, 0), ineligible)
	takeSurge := min(max(maxSurge-surge, 0), candidates)
	report.Acted = true
	step := rollingStep{report: report}
	nDeletes, nCreates := oldDeletes+takeIneligible, allowed+takeSurge
	if nDeletes+nCreates == 0 {
		return step
	}
	if nDeletes > 0 {
		step.deletes = make([]Deletion, 0, nDeletes)
	}
	if nCreates > 0 {
		step.creates = make([]Creation, 0, nCreates)
	}
	ineligibleMarked := takeIneligible < ineligible
	surgeMarked := takeSurge < candidates

	takenIneligible, takenSurge := 0, 0
	for i, a := range acts {
		st := &states[i]
		switch a {
		case actDeleteIneligibleUnavailable:
			step.deletes = append(step.deletes, deletionAt(st, ReasonSurgeOldUnavailableIneligible, false))
		case actDeleteReplaced:
			step.deletes = append(step.deletes, deletionAt(st, ReasonSurgeReplaced, false))
		case actDeleteIneligibleCandidate:
			if takenIneligible < takeIneligible {
				takenIneligible++
				step.deletes = append(step.deletes, deletionAt(st, ReasonSurgeIneligibleExcess, ineligibleMarked))
			}
		case actCreateAllowed:
			step.creates = append(step.creates, Creation{Node: st.name, Reason: ReasonSurgeOldUnavailable})
		case actCreateCandidate:
			if takenSurge < takeSurge {
				takenSurge++
				step.creates = append(step.creates, Creation{Node: st.name, Reason: ReasonSurgeCandidate, Interchangeable: surgeMarked})
			}
		}
	}
	return step
}

// deletionAt names the old pod of st (every deletion of the step is of the node's only old pod)
// for deletion.
func deletionAt(st *nodeState, reason Reason, interchangeable bool) Deletion {
	pod := shapeOf(st.pods).oldPod.pod
	return Deletion{Namespace: pod.Namespace, Name: pod.Name, Node: st.name, Reason: reason, Interchangeable: interchangeable, UID: pod.UID}
}
