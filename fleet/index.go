package fleet

// This file compiles the placements of a WhatIf's DaemonSets, and their RuntimeClass
// nodeSelectors, over the label classes of classes.go, once per WhatIf (WHATIF-2).

import (
	"cmp"
	"math"
	"slices"
	"sort"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/daemonsched/daemonsched/affinity"
	"github.com/daemonsched/daemonsched/internal/decimal"
	"github.com/daemonsched/daemonsched/selector"
)

// placementParts is a placement as three disjunctions, in the order the controller checks them
// (ELIG-2, NSEL-2, AFF-*), and their conjunction.
type placementParts struct {
	name, sel, aff, all dnf
}

// templateIndex is every placement of a WhatIf compiled for templates.
type templateIndex struct {
	univ   []universe
	keyOf  map[string]int // label keys
	nameID int            // -1: no placement reads the name
	place  []placementParts
	// pending[i] is DaemonSet i's placement AND its RuntimeClass nodeSelector (ADM-6); nil
	// without one.
	pending []dnf
	// placeReads[c] and pendingReads[i] are the keys place[c].all and pending[i] read, sorted.
	placeReads, pendingReads [][]int
	// absent is the domain of a node that has none of the keys (and any name).
	absent domain
	// single[id][c] is the set of class c alone of key id.
	single [][]classSet
	// ints[id] is integers(id), built when a Gt or Lt requirement on key id first needs it.
	ints [][]namedInt
}

// buildTemplateIndex compiles the placement classes and the RuntimeClass selectors of w.
func buildTemplateIndex(w *WhatIf) *templateIndex {
	s := w.set
	x := &templateIndex{keyOf: map[string]int{}, nameID: -1}
	bounds := map[int][]int64{}
	key := func(k string) int {
		id, ok := x.keyOf[k]
		if !ok {
			id = len(x.univ)
			x.keyOf[k] = id
			x.univ = append(x.univ, universe{key: k})
		}
		return id
	}
	name := func() int {
		if x.nameID < 0 {
			x.nameID = len(x.univ)
			x.univ = append(x.univ, universe{key: metav1.ObjectNameField, isName: true})
		}
		return x.nameID
	}
	// First pass: the keys, values and bounds. The terms are those affinity compiles, which
	// the controller's Eligibility reads (AFF-4, AFF-8); their bounds are parsed once, by
	// selector (AFF-7), and the names their matchFields tell apart are affinity's (AFF-9). The
	// second pass reads the same terms.
	ats := make([][]affinity.Term, len(s.placeRep))
	required := make([]bool, len(s.placeRep))
	n := 0
	for c, rep := range s.placeRep {
		ats[c], required[c] = affinity.Compile(&rep.DaemonSet().Spec.Template.Spec, nil).Terms()
		for _, at := range ats[c] {
			n += len(at.Expressions())
		}
	}
	terms := make([][]placeTerm, len(s.placeRep))
	vals := make([][]string, 0, n) // the values of every term's expressions, in one array
	for c, rep := range s.placeRep {
		spec := &rep.DaemonSet().Spec.Template.Spec
		if spec.NodeName != "" {
			id := name()
			x.univ[id].values = append(x.univ[id].values, spec.NodeName)
		}
		for k, v := range spec.NodeSelector {
			id := key(k)
			x.univ[id].values = append(x.univ[id].values, v)
		}
		terms[c] = make([]placeTerm, len(ats[c]))
		for j, at := range ats[c] {
			var pt placeTerm
			pt, vals = readTerm(at, vals)
			terms[c][j] = pt
			for i, r := range at.Expressions() {
				id := key(r.Key())
				if b, ok := r.Bound(); ok {
					bounds[id] = append(bounds[id], b)
				} else {
					x.univ[id].values = append(x.univ[id].values, pt.values[i]...)
				}
			}
			if at.ReadsFields() {
				// A term with matchFields may read the name: the name key is then in the index,
				// with the names the fields tell apart.
				id := name()
				x.univ[id].values = at.AppendNames(x.univ[id].values)
			}
		}
	}
	for _, sel := range w.pending {
		for _, l := range sel {
			id := key(l.key)
			x.univ[id].values = append(x.univ[id].values, l.value)
		}
	}
	for id := range x.univ {
		x.univ[id].finish(bounds[id])
	}
	x.absent = make(domain, len(x.univ))
	for id := range x.univ {
		u := &x.univ[id]
		x.absent[id] = newClassSet(u.classes())
		if u.isName {
			for c := 1; c < u.classes(); c++ {
				x.absent[id].add(c)
			}
		} else {
			x.absent[id].add(0)
		}
	}
	x.buildSingle()
	// Second pass: the placements.
	x.place = make([]placementParts, len(s.placeRep))
	for c, rep := range s.placeRep {
		x.place[c] = x.compilePlacement(&rep.DaemonSet().Spec.Template.Spec, terms[c], required[c])
	}
	x.pending = make([]dnf, len(w.pending))
	for i, sel := range w.pending {
		if len(sel) == 0 {
			continue
		}
		t := term{}
		for _, l := range sel {
			t = t.and(term{x.equals(x.keyOf[l.key], l.value)})
		}
		x.pending[i] = x.place[s.placeOf[i]].all.and(dnf{t})
	}
	x.placeReads = make([][]int, len(x.place))
	for c := range x.place {
		x.placeReads[c] = x.place[c].all.keys()
	}
	x.pendingReads = make([][]int, len(x.pending))
	for i, f := range x.pending {
		x.pendingReads[i] = f.keys()
	}
	return x
}

// buildSingle builds x.single.
func (x *templateIndex) buildSingle() {
	// The sets of single classes share their words, so that they take space linear in the
	// classes, not one set of every class for each class (issue 25, F5: 5 GB for a DaemonSet of
	// 220,000 values on one key): for each bit position b, one run of 2w-1 zero words but
	// for bit b in the middle word, of which each class c with c%64 == b takes the w words
	// that put the middle one at c/64.
	x.single = make([][]classSet, len(x.univ))
	for id := range x.univ {
		n := x.univ[id].classes()
		w := len(newClassSet(n))
		runs := make([]classSet, min(n, 64))
		for b := range runs {
			runs[b] = make(classSet, 2*w-1)
			runs[b][w-1] = 1 << b
		}
		x.single[id] = make([]classSet, n)
		for c := range n {
			from := w - 1 - c/64
			x.single[id][c] = runs[c%64][from : from+w : from+w]
		}
	}
}

// reads returns the keys DaemonSet i's effective placement reads, sorted.
func (x *templateIndex) reads(w *WhatIf, i int) []int {
	if x.pending[i] != nil {
		return x.pendingReads[i]
	}
	return x.placeReads[w.set.placeOf[i]]
}

// effective is where DaemonSet i's pod runs, placement and RuntimeClass nodeSelector.
func (x *templateIndex) effective(w *WhatIf, i int) dnf {
	if x.pending[i] != nil {
		return x.pending[i]
	}
	return x.place[w.set.placeOf[i]].all
}

// placeTerm is a term of a placement's required node affinity as affinity compiled it, with
// the values of its expressions read once for both passes of buildTemplateIndex (selector
// hands out a copy of a requirement's values on each call: 4,400 of 50 values each for the
// hostile DaemonSet of issue 25, F5).
type placeTerm struct {
	affinity.Term
	// values[i] are the values of the term's i-th expression when it is In or NotIn, the only
	// operators whose values name classes (a Gt or Lt bound is read from the requirement).
	values [][]string
}

// readTerm reads the values of at's expressions. It appends them to vals and returns the
// longer slice, so that the terms of an index share one array of them.
func readTerm(at affinity.Term, vals [][]string) (placeTerm, [][]string) {
	exprs := at.Expressions()
	start := len(vals)
	for i := range exprs {
		var v []string
		if op := exprs[i].Operator(); op == selector.In || op == selector.NotIn {
			v = exprs[i].Values()
		}
		vals = append(vals, v)
	}
	return placeTerm{Term: at, values: vals[start:len(vals):len(vals)]}, vals
}

// equals is the constraint "key id has value v".
func (x *templateIndex) equals(id int, v string) keyClasses {
	u := &x.univ[id]
	s := newClassSet(u.classes())
	s.add(u.classOf(v))
	return keyClasses{id, s}
}

// matching is the constraint that r holds. It is built from r's own values, not by trying r on
// every class of the key: an In or NotIn requirement names its classes through the value
// index, a Gt or Lt one finds its classes by binary search among the key's integers, so that
// thousands of requirements of many values on one key (issue 25, F5) cost time linear in their
// values, plus one set of the key's classes each. Every class answers as its representative
// would, which index_internal_test.go checks against trying each class. values are r's values
// (r.Values()).
func (x *templateIndex) matching(id int, r *selector.Requirement, values []string) keyClasses {
	u := &x.univ[id]
	n := u.classes()
	s := newClassSet(n)
	switch op := r.Operator(); op {
	case selector.In, selector.NotIn:
		u.named(values, s.add)
		if op == selector.NotIn {
			for w := range s {
				s[w] = ^s[w]
			}
			if n%64 != 0 {
				s[len(s)-1] &= 1<<(n%64) - 1
			}
		}
	case selector.Exists:
		setRange(s, 1, n)
	case selector.DoesNotExist:
		s.add(0)
	case selector.Gt, selector.Lt:
		b, _ := r.Bound() // parsed once, by selector (AFF-7)
		gt := op == selector.Gt
		holds := func(v int64) bool { return (gt && v > b) || (!gt && v < b) }
		// The named integers, in numeric order: those that hold are a suffix (Gt) or a prefix (Lt).
		ints := x.integers(id)
		k := sort.Search(len(ints), func(i int) bool { return ints[i].n > b })
		if !gt {
			k = sort.Search(len(ints), func(i int) bool { return ints[i].n >= b })
		}
		lo, hi := k, len(ints)
		if !gt {
			lo, hi = 0, k
		}
		for _, e := range ints[lo:hi] {
			s.add(e.class)
		}
		// The regions are sorted and so are their representatives: again a suffix or a prefix.
		rep := func(i int) int64 { return regionRep(u, i) }
		k = sort.Search(len(u.regions), func(i int) bool { return holds(rep(i)) == gt })
		if gt {
			setRange(s, u.region(k), u.region(len(u.regions)))
		} else {
			setRange(s, u.region(0), u.region(k))
		}
	}
	return keyClasses{id, s}
}

// named calls f with each class whose representative is one of values, those of an In or
// NotIn requirement.
func (u *universe) named(values []string, f func(c int)) {
	for _, v := range values {
		if c, ok := u.index[v]; ok {
			f(1 + c)
		} else if c := u.classOf(v); c > len(u.values) {
			// An unnamed value: it is its class's representative or in no class alone.
			if rep, _ := u.representative(c); rep == v {
				f(c)
			}
		}
	}
}

// namedInt is a named value of a key that is a base-10 integer, and its class.
type namedInt struct {
	n     int64
	class int
}

// integers returns the named values of key id that parse as integers, in numeric order (ties
// in class order), computed once.
func (x *templateIndex) integers(id int) []namedInt {
	if x.ints == nil {
		x.ints = make([][]namedInt, len(x.univ))
	}
	if x.ints[id] == nil {
		u := &x.univ[id]
		ints := []namedInt{}
		for i, v := range u.values {
			if n, ok := decimal.ParseInt64(v); ok {
				ints = append(ints, namedInt{n, 1 + i})
			}
		}
		slices.SortStableFunc(ints, func(a, b namedInt) int { return cmp.Compare(a.n, b.n) })
		x.ints[id] = ints
	}
	return x.ints[id]
}

// setRange adds the classes lo..hi-1 to s.
func setRange(s classSet, lo, hi int) {
	for c := lo; c < hi && c%64 != 0; c++ {
		s.add(c)
		lo = c + 1
	}
	for ; lo+64 <= hi; lo += 64 {
		s[lo/64] = ^uint64(0)
	}
	for ; lo < hi; lo++ {
		s.add(lo)
	}
}

// compilePlacement compiles spec.nodeName, spec.nodeSelector and the required node affinity
// over the classes (ELIG-2, NSEL-2, AFF-*). The terms are those of affinity.Compile(spec).Terms,
// with required its ok: the terms the controller's Eligibility reads. Which terms count and
// what their matchFields mean are affinity's; fleet only turns each into classes.
func (x *templateIndex) compilePlacement(spec *v1.PodSpec, terms []placeTerm, required bool) placementParts {
	p := placementParts{name: always, sel: always, aff: always}
	if spec.NodeName != "" {
		p.name = dnf{term{x.equals(x.nameID, spec.NodeName)}}
	}
	if len(spec.NodeSelector) > 0 {
		t := term{}
		for k, v := range spec.NodeSelector {
			t = t.and(term{x.equals(x.keyOf[k], v)})
		}
		p.sel = dnf{t}
	}
	if required {
		p.aff = nil // a disjunction of the terms, of which there may be none
		for _, pt := range terms {
			if t, ok := x.compileTerm(pt); ok {
				p.aff = append(p.aff, t)
			}
		}
	}
	p.all = p.name.and(p.sel).and(p.aff)
	return p
}

// compileTerm compiles one term that can match a node; ok is false when no node name satisfies
// its matchFields.
func (x *templateIndex) compileTerm(at placeTerm) (term, bool) {
	// The constraints of each key are intersected in place, into one set per key: conjoining
	// them one by one cloned the key's set per requirement, and a NotIn only clears the classes
	// it names (issue 25, F5: thousands of NotIn on one key).
	exprs := at.Expressions()
	order := make([]int, len(exprs))
	for i := range order {
		order[i] = i
	}
	keyOf := func(i int) int { return x.keyOf[exprs[i].Key()] }
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(keyOf(a), keyOf(b)) })
	merged := term{}
	for _, i := range order {
		id, r := keyOf(i), &exprs[i]
		n := len(merged)
		if n == 0 || merged[n-1].key != id {
			merged = append(merged, x.matching(id, r, at.values[i]))
			continue
		}
		acc := merged[n-1].set
		if r.Operator() == selector.NotIn {
			x.univ[id].named(at.values[i], func(c int) { acc[c/64] &^= 1 << (c % 64) })
			continue
		}
		kc := x.matching(id, r, at.values[i])
		for w := range kc.set {
			acc[w] &= kc.set[w]
		}
	}
	t := merged
	if !at.ReadsFields() {
		return t, true
	}
	// A template's node has a name (the classes of the name key from 1 on, a key the first
	// pass made for every term with matchFields), which the fields may read; a term whose fields
	// no name satisfies is left out, and one whose fields every name satisfies does not read the
	// name. Each class answers as its representative does: the names the fields tell apart each
	// have a class of their own, and every other name answers alike (Term.AppendNames).
	u := &x.univ[x.nameID]
	kc := keyClasses{x.nameID, newClassSet(u.classes())}
	all := true
	for c := 1; c < u.classes(); c++ {
		if v, _ := u.representative(c); at.FieldsMatch(v) {
			kc.set.add(c)
		} else {
			all = false
		}
	}
	switch {
	case kc.set.count() == 0:
		return nil, false
	case all:
		return t, true
	}
	return t.and(term{kc}), true
}

// regionRep is the integer of region i's representative (see universe.representative).
func regionRep(u *universe, i int) int64 {
	reg := u.regions[i]
	if reg[0] == math.MinInt64 {
		return min(reg[1], 0)
	}
	return reg[0]
}
