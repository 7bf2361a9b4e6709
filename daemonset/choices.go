package daemonset

import (
	appsv1 "k8s.io/api/apps/v1"

	"github.com/daemonsched/daemonsched/internal/choice"
	"github.com/daemonsched/daemonsched/internal/errlist"
)

// The verifier's choice sets of one sync (D-1) are folds over the same per-node outcomes as the
// plan; their types are internal/choice's, instantiated with this package's actions, and stay
// out of the public API (docs/decisions.md, "The verifier's choice sets are internal").
type (
	orders      = choice.Orders[Creation, Deletion]
	actionClass = choice.ActionClass[Creation, Deletion]
	actionGroup = choice.ActionGroup[Creation, Deletion]
	actionPart  = choice.ActionPart[Creation, Deletion]
)

// Orders returns the choice sets of one sync on s, for package conformance (the result's
// type is internal to this module). It plans as Plan does and is consistent with it: the plan
// Plan returns is one of the plans the choice sets describe. It allocates freely; it is for
// verifiers, not for hot paths.
func (p *Planner) Orders(s Snapshot) *choice.Orders[Creation, Deletion] { return p.orders(s, nil) }

// Orders is [Planner.Orders] for every DaemonSet of s, as Snapshot.Plan plans them (D-2), sorted
// by namespace/name like ClusterResult.DaemonSets, for package conformance. The error reports
// an inconsistent snapshot; it panics on misuse of opts as Snapshot.Plan does.
func (s Snapshot) Orders(opts Options) ([]*choice.Orders[Creation, Deletion], error) {
	opts.Check()
	if errs := s.Check(); len(errs) > 0 {
		return nil, errlist.Aggregate(errs)
	}
	planners, ccs := clusterPlanners(s, opts)
	out := make([]*orders, len(planners))
	for i, p := range planners {
		out[i] = p.orders(s, ccs[i])
	}
	return out, nil
}

func (p *Planner) orders(s Snapshot, cc *clusterClaims) *orders {
	o := &orders{BurstLimit: p.opts.BurstLimit, Phase: choice.PhaseNone, Creates: []actionClass{}, Deletes: []actionClass{}}
	if p.skip != "" {
		return o
	}
	rev := p.revision(s.Revisions, cc)
	if rev.collision {
		return o
	}
	hash := rev.hash
	j := newJudge(p.ds, hash, p.opts)
	scratch := &Result{}
	ix := newPodIndex(p, scratch, s.Nodes, s.Pods, cc, &j)
	defer ix.release(p)
	o.Status = statusNodes(ix, scratch.Adopt)

	// The outcomes of the plan's walk (DIFF-12 as the plan sees it), folded into groups.
	rolling := p.ds.Spec.UpdateStrategy.Type == appsv1.RollingUpdateDaemonSetStrategyType
	d := diffState{bo: newBackoffSync(p.ds, p.opts.Backoff, p.opts.Now)}
	w := p.walk(ix, &d, nil, rolling)
	states := w.states
	refused := p.createRefused(hash)
	var creates []actionGroup
	needCreate := false
	deletes := [2][]actionGroup{} // DIFF-10 classes: node-visited, then DIFF-8
	delStart := int32(0)
	for i := range states { // in the walk's order, which delEnd follows
		st := &states[i]
		needCreate = needCreate || st.creates()
		if st.creates() && !refused {
			creates = append(creates, actionGroup{Node: st.name, Parts: []actionPart{{Creates: []Creation{
				{Node: st.name, Reason: ReasonMissingPod, Pod: p.newPod(st.name, hash)}}}}})
		}
		dels := d.deletes[delStart:st.delEnd]
		delStart = st.delEnd
		if g, ok := deleteGroup(st.name, st.pods, dels); ok {
			k := 0
			if !st.listed() {
				k = 1
			}
			deletes[k] = append(deletes[k], g)
		}
	}
	// A refused create still makes the base diff non-empty (UPD-2, POD-3).
	baseEmpty := !needCreate && len(deletes[0]) == 0 && len(deletes[1]) == 0
	if !baseEmpty || !rolling {
		o.Phase = choice.PhaseBase
		o.Creates = appendClass(o.Creates, "", creates, len(creates))
		o.Deletes = appendClass(o.Deletes, "", deletes[0], len(deletes[0]))
		o.Deletes = appendClass(o.Deletes, "", deletes[1], len(deletes[1]))
		if baseEmpty {
			o.Phase = choice.PhaseNone
		}
		return o
	}
	sortStates(states)
	step := p.rollingUpdate(states, w.desired)
	if !step.report.Acted {
		return o
	}
	o.Phase = choice.PhaseRolling
	p.rollingOrders(o, states, step, hash, refused)
	return o
}

// rollingOrders fills o from the rolling step: the budget-free actions the step took, then the
// budgeted candidates (UPD-9 without surge, UPD-23 with it), every node the step offered as one
// (rollOf), with how many the step took.
func (p *Planner) rollingOrders(o *orders, states []nodeState, step rollingStep, hash string, refused bool) {
	var free, cand []actionGroup
	for _, d := range step.deletes {
		if rollingClass(d.Reason) == 0 {
			d.Interchangeable = false
			free = append(free, actionGroup{Node: d.Node, Parts: []actionPart{{Deletes: []Deletion{d}}}})
		}
	}
	taken := countReason(step.deletes, ReasonUpdateOldCandidate, ReasonSurgeIneligibleExcess)
	rule := "UPD-9"
	surge := step.report.MaxSurge != 0
	if surge {
		rule = "UPD-23"
	}
	for i := range states {
		st := &states[i]
		switch {
		case !surge && st.roll.bits&rollOldCandidate != 0:
			cand = append(cand, actionGroup{Node: st.name, Parts: []actionPart{{Deletes: []Deletion{deletionAt(st, ReasonUpdateOldCandidate, false)}}}})
		case surge && st.roll.surge == actDeleteIneligibleCandidate:
			cand = append(cand, actionGroup{Node: st.name, Parts: []actionPart{{Deletes: []Deletion{deletionAt(st, ReasonSurgeIneligibleExcess, false)}}}})
		}
	}
	o.Deletes = appendClass(o.Deletes, "", free, len(free))
	o.Deletes = appendClass(o.Deletes, rule, cand, taken)
	if refused {
		return
	}
	var freeC, candC []actionGroup
	takenC := 0
	for _, c := range step.creates {
		if c.Reason == ReasonSurgeCandidate {
			takenC++
			continue
		}
		freeC = append(freeC, actionGroup{Node: c.Node, Parts: []actionPart{{Creates: []Creation{{Node: c.Node, Reason: c.Reason, Pod: p.newPod(c.Node, hash)}}}}})
	}
	for i := range states {
		if !surge || takenC == 0 {
			break
		}
		if st := &states[i]; st.roll.surge == actCreateCandidate {
			candC = append(candC, actionGroup{Node: st.name, Parts: []actionPart{{Creates: []Creation{{Node: st.name, Reason: ReasonSurgeCandidate, Pod: p.newPod(st.name, hash)}}}}})
		}
	}
	o.Creates = appendClass(o.Creates, "", freeC, len(freeC))
	o.Creates = appendClass(o.Creates, "UPD-23", candC, takenC)
}

func countReason(dels []Deletion, reasons ...Reason) int {
	n := 0
	for _, d := range dels {
		for _, r := range reasons {
			if d.Reason == r {
				n++
			}
		}
	}
	return n
}

// appendClass appends a class unless it takes nothing.
func appendClass(classes []actionClass, rule string, groups []actionGroup, take int) []actionClass {
	if take == 0 || len(groups) == 0 {
		return classes
	}
	if take == len(groups) {
		rule = ""
	}
	return append(classes, actionClass{Rule: rule, Take: take, Groups: groups})
}

// deleteGroup arranges the deletions one node's reconcile emitted (dels, from diffNode or
// diffMissing) as upstream's list holds them: the pods visited in claim order (DIFF-3, DIFF-4,
// DIFF-8), already-controlled pods before adopted ones, each set in random order, the Failed
// pod of DIFF-17 being any one of its set's Failed pods; then the rest (DIFF-5, DIFF-6) in the
// order emitted.
func deleteGroup(node string, pods []daemonPod, dels []Deletion) (actionGroup, bool) {
	if len(dels) == 0 {
		return actionGroup{}, false
	}
	controlled := map[string]bool{}
	for _, dp := range pods {
		controlled[dp.pod.Namespace+"/"+dp.pod.Name] = dp.facts.has(factControlled)
	}
	var visit [2]actionPart // controlled, adopted
	var rest []actionPart
	for _, d := range dels {
		d.Interchangeable = false
		k := 1
		if controlled[d.Namespace+"/"+d.Name] {
			k = 0
		}
		switch d.Reason {
		case ReasonFailedPod:
			// Every non-terminating Failed pod of the same claim set could have come first.
			for _, dp := range pods {
				if dp.facts.has(factFailed) && !dp.facts.has(factTerminating) && dp.facts.has(factControlled) == (k == 0) {
					visit[k].OneOf = append(visit[k].OneOf, deletion(dp.pod, node, ReasonFailedPod))
				}
			}
		case ReasonSucceededPod, ReasonNodeNotEligible, ReasonUnscheduledOnMissingNode:
			visit[k].Deletes = append(visit[k].Deletes, d)
		default:
			rest = append(rest, actionPart{Deletes: []Deletion{d}})
		}
	}
	g := actionGroup{Node: node}
	for _, part := range visit {
		if len(part.Deletes)+len(part.OneOf) > 0 {
			g.Parts = append(g.Parts, part)
		}
	}
	g.Parts = append(g.Parts, rest...)
	return g, true
}
