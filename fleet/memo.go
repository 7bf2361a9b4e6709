package fleet

// This file holds how a Set decides one node cheaply: the compact per-decision cell, and the
// memo that lets nodes of one pool, which show the same values for the label keys a placement
// reads and the same taints, share one evaluation per distinct placement or toleration list.

import (
	"slices"

	v1 "k8s.io/api/core/v1"

	"github.com/daemonsched/daemonsched/daemonset"
)

// cell is one compact decision: the low 4 bits are a code, the others the index of a taint in
// the node's spec.taints (for the two taint codes). The codes name a placement outcome, the
// answer of the tolerations (which taints.Tolerations.Untolerated found) or a WhatIf's outcome;
// they are not the eligibility rules: daemonset.Eligibility.WithUntolerated turns the taint codes into
// an Eligibility. Eight of the sixteen codes are free for the next outcomes (admission,
// scheduling).
type cell uint16

const (
	// cellRun: placement admits the pod and no taint is untolerated, so the controller runs it.
	cellRun cell = iota
	cellNodeName
	cellNodeSelector
	cellNodeAffinity
	// cellUntolerated: the taint at the index is the first untolerated NoSchedule or NoExecute
	// one, and no NoExecute taint is untolerated (Untolerated's eviction is -1).
	cellUntolerated
	// cellEvicting: the taint at the index is the first untolerated NoExecute one
	// (Untolerated's eviction).
	cellEvicting
	// The two codes a WhatIf adds where the controller would run a pod (cellRun): admission
	// refuses it (ADM-4, ADM-5), or its RuntimeClass's nodeSelector keeps it pending (ADM-6).
	cellRejected
	cellPending

	cellCodeBits = 4
	cellCodeMask = 1<<cellCodeBits - 1
	// cellTaintUnknown is stored as the taint index when it does not fit; the taint is then
	// found again when the decision is read.
	cellTaintUnknown = 1<<(16-cellCodeBits) - 1
)

func (c cell) code() cell      { return c & cellCodeMask }
func (c cell) taintIndex() int { return int(c >> cellCodeBits) }

// tainted reports whether c is one of the two taint codes.
func (c cell) tainted() bool { return c.code() == cellUntolerated || c.code() == cellEvicting }

// placementCell encodes the answer of a placement representative on a node without taints.
func placementCell(e daemonset.Eligibility) cell {
	switch e.Reason {
	case "":
		return cellRun
	case daemonset.ReasonNodeNameMismatch:
		return cellNodeName
	case daemonset.ReasonNodeSelectorMismatch:
		return cellNodeSelector
	default:
		return cellNodeAffinity
	}
}

// taintCell encodes what taints.Tolerations.Untolerated found on a node's taints: the index of
// the first untolerated NoExecute taint when there is one, else of the first untolerated one.
// Those are the only taints daemonset.Eligibility.WithUntolerated reads.
func taintCell(placement, eviction int) cell {
	var code cell
	idx := placement
	switch {
	case placement < 0:
		return cellRun
	case eviction >= 0:
		code, idx = cellEvicting, eviction
	default:
		code = cellUntolerated
	}
	if idx >= cellTaintUnknown {
		idx = cellTaintUnknown
	}
	return code | cell(idx)<<cellCodeBits
}

// scratch is the per-goroutine working memory of node evaluation, with its memo.
type scratch struct {
	place v1.Node // carries only the node's name and labels
	pc    []cell  // per placement class
	tc    []cell  // per toleration class

	// vals and has hold the node's projection: its value of each of Set.keys.
	vals []string
	has  []bool
	memo memo
}

func (sc *scratch) size(s *Set) {
	if sc.memo.set != s {
		sc.memo = memo{set: s}
		sc.pc = make([]cell, len(s.placeRep))
		sc.tc = make([]cell, len(s.tolRep))
		sc.vals = make([]string, len(s.keys))
		sc.has = make([]bool, len(s.keys))
	}
}

// memoCap bounds each memo: past it the memo starts again empty, so its memory stays bounded
// (about 100 bytes per entry for the reference workload) whatever the nodes.
const memoCap = 4096

// memo remembers, for one Set, the placement cells of each distinct projection of node labels
// onto the keys its DaemonSets read, and the toleration cells of each distinct sequence of
// taints (key, value, effect: all that toleration matching reads, TAINT-1, TAINT-7). Nodes of
// one pool share their projection, so a cluster of 100,000 nodes has a few hundred; for those
// a node's placement costs one map lookup per key instead of one evaluation per class. An
// entry is trusted only after its stored values compare equal, so hash collisions cost time,
// never correctness.
type memo struct {
	set *Set

	places   map[uint64]int32
	placeVal []string // len(Set.keys) per entry
	placeHas []bool
	placeOut []cell // len(Set.placeRep) per entry

	tolers   map[uint64]int32
	tolerAt  []int32 // per entry: start in tolerKey, then the next entry's start
	tolerKey []taintKey
	tolerOut []cell // len(Set.tolRep) per entry
}

type taintKey struct {
	key, value string
	effect     v1.TaintEffect
}

const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

func fnvString(h uint64, s string) uint64 {
	for i := 0; i < len(s); i++ {
		h = (h ^ uint64(s[i])) * fnvPrime
	}
	return (h ^ 0xff) * fnvPrime // terminator, so that "ab","c" and "a","bc" differ
}

// placements fills sc.pc for node: name-independent classes from the memo when the node's
// projection was seen, the others (spec.nodeName, matchFields) always afresh.
func (s *Set) placements(node *v1.Node, sc *scratch) {
	m := &sc.memo
	h := uint64(fnvOffset)
	for k, key := range s.keys {
		v, ok := node.Labels[key]
		sc.vals[k], sc.has[k] = v, ok
		if ok {
			h = fnvString(h^1, v)
		} else {
			h = (h ^ 2) * fnvPrime
		}
	}
	sc.place.Name, sc.place.Labels = node.Name, node.Labels
	if e, ok := m.places[h]; ok && m.samePlace(e, sc) {
		p := len(s.placeRep)
		copy(sc.pc, m.placeOut[int(e)*p:int(e+1)*p])
		for _, c := range s.byName {
			sc.pc[c] = placementCell(s.placeRep[c].Eligibility(&sc.place))
		}
		sc.place.Name, sc.place.Labels = "", nil
		return
	}
	s.placementsAfresh(sc)
	sc.place.Name, sc.place.Labels = "", nil
	if _, taken := m.places[h]; taken {
		return // a collision: keep the first entry
	}
	if m.places == nil || len(m.places) >= memoCap {
		m.places = make(map[uint64]int32, 64)
		m.placeVal, m.placeHas, m.placeOut = m.placeVal[:0], m.placeHas[:0], m.placeOut[:0]
	}
	m.places[h] = int32(len(m.places))
	m.placeVal = append(m.placeVal, sc.vals...)
	m.placeHas = append(m.placeHas, sc.has...)
	m.placeOut = append(m.placeOut, sc.pc...)
}

// placementsAfresh fills sc.pc by evaluating every placement class on sc.place: what a node
// costs when the memo has not seen its projection.
func (s *Set) placementsAfresh(sc *scratch) {
	for c, rep := range s.placeRep {
		sc.pc[c] = placementCell(rep.Eligibility(&sc.place))
	}
}

// tolerationsAfresh fills sc.tc by evaluating every toleration class on taints: what a node
// costs when the memo has not seen its taints.
func (s *Set) tolerationsAfresh(taints []v1.Taint, sc *scratch) {
	for c, tols := range s.tolRep {
		sc.tc[c] = taintCell(tols.Untolerated(taints))
	}
}

func (m *memo) samePlace(e int32, sc *scratch) bool {
	k := len(sc.vals)
	vals, has := m.placeVal[int(e)*k:int(e+1)*k], m.placeHas[int(e)*k:int(e+1)*k]
	for i := range k {
		if has[i] != sc.has[i] || vals[i] != sc.vals[i] {
			return false
		}
	}
	return true
}

// tolerations fills sc.tc for the taints of a node (not empty), from the memo when the same
// sequence of taints was seen.
func (s *Set) tolerations(taints []v1.Taint, sc *scratch) {
	m := &sc.memo
	h := uint64(fnvOffset)
	for i := range taints {
		h = fnvString(fnvString(fnvString(h, taints[i].Key), taints[i].Value), string(taints[i].Effect))
	}
	if e, ok := m.tolers[h]; ok && m.sameTaints(e, taints) {
		t := len(s.tolRep)
		copy(sc.tc, m.tolerOut[int(e)*t:int(e+1)*t])
		return
	}
	s.tolerationsAfresh(taints, sc)
	if _, taken := m.tolers[h]; taken {
		return
	}
	if m.tolers == nil || len(m.tolers) >= memoCap {
		m.tolers = make(map[uint64]int32, 64)
		m.tolerAt, m.tolerKey, m.tolerOut = append(m.tolerAt[:0], 0), m.tolerKey[:0], m.tolerOut[:0]
	}
	m.tolers[h] = int32(len(m.tolers))
	for i := range taints {
		m.tolerKey = append(m.tolerKey, taintKey{taints[i].Key, taints[i].Value, taints[i].Effect})
	}
	m.tolerAt = append(m.tolerAt, int32(len(m.tolerKey)))
	m.tolerOut = append(m.tolerOut, sc.tc...)
}

func (m *memo) sameTaints(e int32, taints []v1.Taint) bool {
	keys := m.tolerKey[m.tolerAt[e]:m.tolerAt[e+1]]
	if len(keys) != len(taints) {
		return false
	}
	for i := range keys {
		if keys[i].key != taints[i].Key || keys[i].value != taints[i].Value || keys[i].effect != taints[i].Effect {
			return false
		}
	}
	return true
}

// decide writes the decision of every DaemonSet on node into out (len s.Len()). Once sc's
// memo holds the node's projection and taints it allocates nothing.
func (s *Set) decide(node *v1.Node, out []cell, sc *scratch) {
	sc.size(s)
	s.placements(node, sc)
	if slices.Contains(sc.pc, cellRun) {
		if len(node.Spec.Taints) == 0 {
			clear(sc.tc) // cellRun
		} else {
			s.tolerations(node.Spec.Taints, sc)
		}
	}
	for i := range out {
		if pc := sc.pc[s.placeOf[i]]; pc != cellRun {
			out[i] = pc
		} else {
			out[i] = sc.tc[s.tolOf[i]]
		}
	}
}

// The decisions a cell without a taint expands to, stored once: a copy of a stored value is
// cheaper to return than one built in place (see daemonset's own).
var (
	eligible             = daemonset.Eligibility{ShouldRun: true, ShouldContinueRunning: true}
	nodeNameMismatch     = daemonset.Eligibility{Reason: daemonset.ReasonNodeNameMismatch}
	nodeSelectorMismatch = daemonset.Eligibility{Reason: daemonset.ReasonNodeSelectorMismatch}
	nodeAffinityMismatch = daemonset.Eligibility{Reason: daemonset.ReasonNodeAffinityMismatch}
)

// eligibility expands a cell of DaemonSet i on a node with taints.
func (s *Set) eligibility(i int, c cell, taints []v1.Taint) daemonset.Eligibility {
	switch c.code() {
	case cellRun, cellRejected, cellPending:
		return eligible
	case cellNodeName:
		return nodeNameMismatch
	case cellNodeSelector:
		return nodeSelectorMismatch
	case cellNodeAffinity:
		return nodeAffinityMismatch
	}
	placement, eviction := c.taintIndex(), -1
	if placement == cellTaintUnknown {
		placement, eviction = s.tolRep[s.tolOf[i]].Untolerated(taints)
	} else if c.code() == cellEvicting {
		eviction = placement // the only index WithUntolerated reads then
	}
	return eligible.WithUntolerated(taints, placement, eviction)
}
