package daemonset

import (
	appsv1 "k8s.io/api/apps/v1"
)

// Orders describes every plan the v1.36 controller could produce in one sync, where Plan gives
// one of them (D-1). The controller submits two lists, creates and deletes; each is a sequence
// of priority classes (DIFF-10), and the burst cap keeps a prefix of the whole list. Inside a
// class the order is random (a node cache's or a map's), and some classes take only some of
// their groups (UPD-9, UPD-23). Orders is what a verifier needs to accept every valid choice
// and nothing else (package conformance).
//
// Every action of the sync appears in exactly one part of one group. The lists are uncapped:
// BurstLimit says where the controller cuts them.
type Orders struct {
	// BurstLimit is Options.BurstLimit, with its meaning: 0 is the controller's 250, a
	// negative value keeps every list whole.
	BurstLimit int `json:"burstLimit,omitempty"`
	// Phase says which part of the sync acts.
	Phase   Phase         `json:"phase"`
	Creates []ActionClass `json:"creates"`
	Deletes []ActionClass `json:"deletes"`
	// Status lists the nodes whose counters depend on the deletions picked (STAT-16); see
	// StatusWith. Absent when the status is the same whatever the controller picks.
	Status []StatusNode `json:"status,omitempty"`
}

// Phase is the part of a sync whose actions an [Orders] describes. Its values are the strings
// of the Orders wire format (JSON, the conformance corpus).
type Phase string

const (
	// PhaseNone: nothing acts. The sync is skipped (SYNC-3, SYNC-4, SYNC-5, UPD-21), or its
	// base diff is empty and, for a RollingUpdate DaemonSet, the rolling step does not act.
	PhaseNone Phase = "none"
	// PhaseBase: the actions are the base diff's (DIFF-*).
	PhaseBase Phase = "base"
	// PhaseRolling: the actions are the rolling-update step's (UPD-2).
	PhaseRolling Phase = "rolling"
)

// ActionClass is one priority class of a list: every action of an earlier class is submitted
// before any action of a later one (DIFF-10, audit S12). Its groups come in random order.
type ActionClass struct {
	// Rule is the rule under which the class takes Take of its groups (UPD-9, UPD-23); empty
	// when every group is taken.
	Rule string `json:"rule,omitempty"`
	// Take is how many groups the controller takes; len(Groups) unless Rule is set.
	Take   int           `json:"take"`
	Groups []ActionGroup `json:"groups"`
}

// ActionGroup is the actions one node contributes to a list, submitted one after another
// (podsShouldBeOnNode emits a node's deletions together). Its parts come in order.
type ActionGroup struct {
	Node  string       `json:"node"`
	Parts []ActionPart `json:"parts"`
}

// ActionPart is a set of actions submitted together in random order: all of All, and exactly
// one of OneOf when it is not empty (DIFF-17: the first Failed pod in the claim order, which
// is random within already-controlled pods and within adopted ones). A part holds creates or
// deletes, never both.
type ActionPart struct {
	Creates []Creation `json:"creates,omitempty"`
	Deletes []Deletion `json:"deletes,omitempty"`
	OneOf   []Deletion `json:"oneOf,omitempty"`
}

// Orders returns the Orders of one sync on s. It plans as Plan does and is consistent with it:
// the plan Plan returns is one of the plans the Orders describe. It allocates freely; it is
// for verifiers, not for hot paths.
func (p *Planner) Orders(s Snapshot) *Orders { return p.orders(s, nil) }

// ClusterOrders is Orders for every DaemonSet of s, as PlanCluster plans them (D-2), sorted by
// namespace/name like ClusterResult.DaemonSets. The error reports an inconsistent snapshot.
func ClusterOrders(s Snapshot, opts Options) ([]*Orders, error) {
	opts.Check()
	if errs := CheckSnapshot(s); len(errs) > 0 {
		return nil, errs.ToAggregate()
	}
	planners, ccs := clusterPlanners(s, opts)
	out := make([]*Orders, len(planners))
	for i, p := range planners {
		out[i] = p.orders(s, ccs[i])
	}
	return out, nil
}

func (p *Planner) orders(s Snapshot, cc *clusterClaims) *Orders {
	o := &Orders{BurstLimit: p.opts.BurstLimit, Phase: PhaseNone, Creates: []ActionClass{}, Deletes: []ActionClass{}}
	if p.skip != "" {
		return o
	}
	rev := p.revision(s.Revisions, cc)
	if rev.collision {
		return o
	}
	hash := rev.hash
	j := newJudge(p.ds, hash, p.opts.Now)
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
	var creates []ActionGroup
	needCreate := false
	deletes := [2][]ActionGroup{} // DIFF-10 classes: node-visited, then DIFF-8
	delStart := int32(0)
	for i := range states { // in the walk's order, which delEnd follows
		st := &states[i]
		needCreate = needCreate || st.creates()
		if st.creates() && !refused {
			creates = append(creates, ActionGroup{Node: st.name, Parts: []ActionPart{{Creates: []Creation{
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
		o.Phase = PhaseBase
		o.Creates = appendClass(o.Creates, "", creates, len(creates))
		o.Deletes = appendClass(o.Deletes, "", deletes[0], len(deletes[0]))
		o.Deletes = appendClass(o.Deletes, "", deletes[1], len(deletes[1]))
		if baseEmpty {
			o.Phase = PhaseNone
		}
		return o
	}
	sortStates(states)
	step := p.rollingUpdate(states, w.desired)
	if !step.report.Acted {
		return o
	}
	o.Phase = PhaseRolling
	p.rollingOrders(o, states, step, hash, refused)
	return o
}

// rollingOrders fills o from the rolling step: the budget-free actions the step took, then the
// budgeted candidates (UPD-9 without surge, UPD-23 with it), every node the step offered as one
// (rollOf), with how many the step took.
func (p *Planner) rollingOrders(o *Orders, states []nodeState, step rollingStep, hash string, refused bool) {
	var free, cand []ActionGroup
	for _, d := range step.deletes {
		if rollingClass(d.Reason) == 0 {
			d.Interchangeable = false
			free = append(free, ActionGroup{Node: d.Node, Parts: []ActionPart{{Deletes: []Deletion{d}}}})
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
			cand = append(cand, ActionGroup{Node: st.name, Parts: []ActionPart{{Deletes: []Deletion{deletionAt(st, ReasonUpdateOldCandidate, false)}}}})
		case surge && st.roll.surge == actDeleteIneligibleCandidate:
			cand = append(cand, ActionGroup{Node: st.name, Parts: []ActionPart{{Deletes: []Deletion{deletionAt(st, ReasonSurgeIneligibleExcess, false)}}}})
		}
	}
	o.Deletes = appendClass(o.Deletes, "", free, len(free))
	o.Deletes = appendClass(o.Deletes, rule, cand, taken)
	if refused {
		return
	}
	var freeC, candC []ActionGroup
	takenC := 0
	for _, c := range step.creates {
		if c.Reason == ReasonSurgeCandidate {
			takenC++
			continue
		}
		freeC = append(freeC, ActionGroup{Node: c.Node, Parts: []ActionPart{{Creates: []Creation{{Node: c.Node, Reason: c.Reason, Pod: p.newPod(c.Node, hash)}}}}})
	}
	for i := range states {
		if !surge || takenC == 0 {
			break
		}
		if st := &states[i]; st.roll.surge == actCreateCandidate {
			candC = append(candC, ActionGroup{Node: st.name, Parts: []ActionPart{{Creates: []Creation{{Node: st.name, Reason: ReasonSurgeCandidate, Pod: p.newPod(st.name, hash)}}}}})
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
func appendClass(classes []ActionClass, rule string, groups []ActionGroup, take int) []ActionClass {
	if take == 0 || len(groups) == 0 {
		return classes
	}
	if take == len(groups) {
		rule = ""
	}
	return append(classes, ActionClass{Rule: rule, Take: take, Groups: groups})
}

// deleteGroup arranges the deletions one node's reconcile emitted (dels, from diffNode or
// diffMissing) as upstream's list holds them: the pods visited in claim order (DIFF-3, DIFF-4,
// DIFF-8), already-controlled pods before adopted ones, each set in random order, the Failed
// pod of DIFF-17 being any one of its set's Failed pods; then the rest (DIFF-5, DIFF-6) in the
// order emitted.
func deleteGroup(node string, pods []daemonPod, dels []Deletion) (ActionGroup, bool) {
	if len(dels) == 0 {
		return ActionGroup{}, false
	}
	controlled := map[string]bool{}
	for _, dp := range pods {
		controlled[dp.pod.Namespace+"/"+dp.pod.Name] = dp.facts.has(factControlled)
	}
	var visit [2]ActionPart // controlled, adopted
	var rest []ActionPart
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
			rest = append(rest, ActionPart{Deletes: []Deletion{d}})
		}
	}
	g := ActionGroup{Node: node}
	for _, part := range visit {
		if len(part.Deletes)+len(part.OneOf) > 0 {
			g.Parts = append(g.Parts, part)
		}
	}
	g.Parts = append(g.Parts, rest...)
	return g, true
}
