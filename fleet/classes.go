package fleet

// This file holds what a WhatIf needs to decide node templates (WHATIF-2): for every label
// key a placement reads, a partition of its possible states (absent, each value some placement
// names, the other values between the Gt and Lt bounds) into classes on which every
// requirement of every DaemonSet answers alike; and each placement as a disjunction of terms,
// each term a set of allowed classes per key. A template is then a set of allowed classes per
// key, and three-valued evaluation is set arithmetic.

import (
	"math"
	"math/bits"
	"slices"
	"strconv"
	"strings"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/daemonsched/daemonsched/selector"
)

// classSet is a set of classes of one key, one bit each.
type classSet []uint64

func newClassSet(n int) classSet { return make(classSet, (n+63)/64) }

func (s classSet) add(c int)      { s[c/64] |= 1 << (c % 64) }
func (s classSet) has(c int) bool { return s[c/64]&(1<<(c%64)) != 0 }
func (s classSet) intersects(o classSet) bool {
	for i := range s {
		if s[i]&o[i] != 0 {
			return true
		}
	}
	return false
}

// within reports whether s is a subset of o.
func (s classSet) within(o classSet) bool {
	for i := range s {
		if s[i]&^o[i] != 0 {
			return false
		}
	}
	return true
}

func (s classSet) count() int {
	n := 0
	for _, w := range s {
		n += bits.OnesCount64(w)
	}
	return n
}

// universe is the partition of one key's states into classes: 0 is absent, 1..len(values)
// the values some placement names, then the other non-integer values, then the other
// integers, one class per region between Gt and Lt bounds.
type universe struct {
	key     string
	isName  bool // the node's name (spec.nodeName, matchFields), never absent
	values  []string
	index   map[string]int
	regions [][2]int64 // inclusive, non-empty
}

func (u *universe) classes() int     { return 2 + len(u.values) + len(u.regions) }
func (u *universe) nonInteger() int  { return 1 + len(u.values) }
func (u *universe) region(r int) int { return 2 + len(u.values) + r }
func (u *universe) mentioned(v string) bool {
	_, ok := u.index[v]
	return ok
}

// classOf returns the class of a present value.
func (u *universe) classOf(v string) int {
	if i, ok := u.index[v]; ok {
		return 1 + i
	}
	n, ok := parseInt(v)
	if !ok {
		return u.nonInteger()
	}
	for r, reg := range u.regions {
		if n >= reg[0] && n <= reg[1] {
			return u.region(r)
		}
	}
	return u.nonInteger() // unreachable: the regions cover every integer but the bounds
}

// parseInt is strconv.ParseInt(v, 10, 64) without the error it allocates for the many label
// values that are not numbers.
func parseInt(v string) (int64, bool) {
	digits := strings.TrimLeft(v, "+-")
	if len(v)-len(digits) > 1 || digits == "" || strings.Trim(digits, "0123456789") != "" {
		return 0, false
	}
	n, err := strconv.ParseInt(v, 10, 64)
	return n, err == nil
}

// representative returns a state of class c.
func (u *universe) representative(c int) (string, bool) {
	switch {
	case c == 0:
		return "", false
	case c <= len(u.values):
		return u.values[c-1], true
	case c == u.nonInteger():
		v := "x"
		for u.mentioned(v) {
			v += "x"
		}
		return v, true
	}
	reg := u.regions[c-u.region(0)]
	n := reg[0]
	if n == math.MinInt64 {
		n = min(reg[1], 0)
	}
	digits := strconv.FormatUint(uint64(max(n, -n)), 10)
	if n == math.MinInt64 {
		digits = strconv.FormatInt(n, 10)[1:]
	}
	sign := ""
	if n < 0 {
		sign = "-"
	}
	v := sign + digits
	for u.mentioned(v) {
		digits = "0" + digits
		v = sign + digits
	}
	return v, true
}

func (u *universe) finish(bounds []int64) {
	slices.Sort(u.values)
	u.values = slices.Compact(u.values)
	u.index = make(map[string]int, len(u.values))
	for i, v := range u.values {
		u.index[v] = i
	}
	slices.Sort(bounds)
	bounds = slices.Compact(bounds)
	lo := int64(math.MinInt64)
	add := func(a, b int64) {
		if a <= b {
			u.regions = append(u.regions, [2]int64{a, b})
		}
	}
	for _, b := range bounds {
		if b > math.MinInt64 {
			add(lo, b-1)
		}
		add(b, b)
		if b == math.MaxInt64 {
			return
		}
		lo = b + 1
	}
	add(lo, math.MaxInt64)
}

// keyClasses is a constraint on one key: the classes allowed.
type keyClasses struct {
	key int
	set classSet
}

// term is a conjunction of constraints, one per key, sorted by key; empty holds everywhere.
type term []keyClasses

// dnf is a disjunction of terms; empty holds nowhere.
type dnf []term

var always = dnf{term{}}

// and returns the conjunction of two terms (the key sets intersected).
func (t term) and(o term) term {
	out := make(term, 0, len(t)+len(o))
	i, j := 0, 0
	for i < len(t) || j < len(o) {
		switch {
		case j == len(o) || (i < len(t) && t[i].key < o[j].key):
			out = append(out, t[i])
			i++
		case i == len(t) || o[j].key < t[i].key:
			out = append(out, o[j])
			j++
		default:
			s := slices.Clone(t[i].set)
			for w := range s {
				s[w] &= o[j].set[w]
			}
			out = append(out, keyClasses{t[i].key, s})
			i++
			j++
		}
	}
	return out
}

// and returns the conjunction of two disjunctions.
func (f dnf) and(o dnf) dnf {
	var out dnf
	for _, a := range f {
		for _, b := range o {
			out = append(out, a.and(b))
		}
	}
	return out
}

// tri is a three-valued truth.
type tri uint8

const (
	triTrue tri = iota
	triFalse
	triUnknown
)

// domain is the allowed classes of every key.
type domain []classSet

func (t term) possible(d domain) bool {
	for _, kc := range t {
		if !kc.set.intersects(d[kc.key]) {
			return false
		}
	}
	return true
}

func (t term) certain(d domain) bool {
	for _, kc := range t {
		if !d[kc.key].within(kc.set) {
			return false
		}
	}
	return true
}

// eval decides f on every state d allows: true on all, false on none, or unknown.
func (f dnf) eval(d domain) tri {
	possible := 0
	for _, t := range f {
		if t.certain(d) {
			return triTrue
		}
		if t.possible(d) {
			possible++
		}
	}
	switch possible {
	case 0:
		return triFalse
	case 1:
		return triUnknown
	}
	open := make([]term, 0, possible)
	for _, t := range f {
		if t.possible(d) {
			open = append(open, t)
		}
	}
	if covered(d, open) {
		return triTrue
	}
	return triUnknown
}

// covered reports whether the states d allows all satisfy some term of ts: it splits d on a
// key the first term does not decide, into the part the term holds on and the rest.
func covered(d domain, ts []term) bool {
	for len(ts) > 0 {
		t := ts[0]
		if t.certain(d) {
			return true
		}
		if !t.possible(d) {
			ts = ts[1:]
			continue
		}
		for _, kc := range t {
			if d[kc.key].within(kc.set) {
				continue
			}
			in, out := slices.Clone(d), slices.Clone(d)
			in[kc.key], out[kc.key] = slices.Clone(d[kc.key]), slices.Clone(d[kc.key])
			for w := range kc.set {
				in[kc.key][w] &= kc.set[w]
				out[kc.key][w] &^= kc.set[w]
			}
			return covered(in, ts) && covered(out, ts[1:])
		}
	}
	return false
}

// reads adds to keys the keys f constrains.
func (f dnf) reads(keys map[int]bool) {
	for _, t := range f {
		for _, kc := range t {
			keys[kc.key] = true
		}
	}
}

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
	// absent is the domain of a node that has none of the keys (and any name).
	absent domain
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
	// First pass: the keys, values and bounds.
	for _, rep := range s.placeRep {
		spec := &rep.DaemonSet().Spec.Template.Spec
		if spec.NodeName != "" {
			u := &x.univ[name()]
			u.values = append(u.values, spec.NodeName)
		}
		for k, v := range spec.NodeSelector {
			id := key(k)
			x.univ[id].values = append(x.univ[id].values, v)
		}
		forEachTerm(spec, func(t *v1.NodeSelectorTerm) {
			for _, e := range t.MatchExpressions {
				id := key(e.Key)
				if e.Operator == v1.NodeSelectorOpGt || e.Operator == v1.NodeSelectorOpLt {
					for _, v := range e.Values {
						if n, err := strconv.ParseInt(v, 10, 64); err == nil {
							bounds[id] = append(bounds[id], n)
						}
					}
				} else {
					x.univ[id].values = append(x.univ[id].values, e.Values...)
				}
			}
			for _, f := range t.MatchFields {
				if f.Key == metav1.ObjectNameField {
					u := &x.univ[name()]
					u.values = append(u.values, f.Values...)
				}
			}
		})
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
	// Second pass: the placements.
	x.place = make([]placementParts, len(s.placeRep))
	for c, rep := range s.placeRep {
		x.place[c] = x.compilePlacement(&rep.DaemonSet().Spec.Template.Spec)
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
	return x
}

// effective is where DaemonSet i's pod runs, placement and RuntimeClass nodeSelector.
func (x *templateIndex) effective(w *WhatIf, i int) dnf {
	if x.pending[i] != nil {
		return x.pending[i]
	}
	return x.place[w.set.placeOf[i]].all
}

func forEachTerm(spec *v1.PodSpec, f func(*v1.NodeSelectorTerm)) {
	if required := requiredSelector(spec); required != nil {
		for i := range required.NodeSelectorTerms {
			f(&required.NodeSelectorTerms[i])
		}
	}
}

// equals is the constraint "key id has value v".
func (x *templateIndex) equals(id int, v string) keyClasses {
	u := &x.univ[id]
	s := newClassSet(u.classes())
	s.add(u.classOf(v))
	return keyClasses{id, s}
}

// matching is the constraint that r holds.
func (x *templateIndex) matching(id int, r *selector.Requirement) keyClasses {
	u := &x.univ[id]
	s := newClassSet(u.classes())
	labels := map[string]string{}
	for c := range u.classes() {
		clear(labels)
		if v, present := u.representative(c); present {
			labels[u.key] = v
		}
		if r.Matches(labels) {
			s.add(c)
		}
	}
	return keyClasses{id, s}
}

// compilePlacement compiles spec.nodeName, spec.nodeSelector and the required node affinity
// as affinity.Compile and the controller read them (ELIG-2, NSEL-2, AFF-2..AFF-11).
func (x *templateIndex) compilePlacement(spec *v1.PodSpec) placementParts {
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
	if required := requiredSelector(spec); required != nil {
		p.aff = nil // zero terms match no node (AFF-2)
		forEachTerm(spec, func(nt *v1.NodeSelectorTerm) {
			if len(nt.MatchExpressions) == 0 && len(nt.MatchFields) == 0 {
				return // dropped (AFF-4)
			}
			if t, ok := x.compileTerm(nt); ok {
				p.aff = append(p.aff, t)
			}
		})
	}
	p.all = p.name.and(p.sel).and(p.aff)
	return p
}

// compileTerm compiles one non-empty node selector term; ok is false when it can match no node
// (a malformed requirement, AFF-8, or a matchFields key other than metadata.name compared with
// a non-empty value, AFF-9).
func (x *templateIndex) compileTerm(nt *v1.NodeSelectorTerm) (term, bool) {
	t := term{}
	for _, e := range nt.MatchExpressions {
		r, errs := selector.NewRequirement(e.Key, e.Operator, e.Values, selector.NodeSelectorOperators, nil)
		if len(errs) > 0 {
			return nil, false
		}
		t = t.and(term{x.matching(x.keyOf[e.Key], &r)})
	}
	for _, f := range nt.MatchFields {
		if (f.Operator != v1.NodeSelectorOpIn && f.Operator != v1.NodeSelectorOpNotIn) || len(f.Values) != 1 {
			return nil, false
		}
		notIn := f.Operator == v1.NodeSelectorOpNotIn
		if f.Key != metav1.ObjectNameField {
			if (f.Values[0] == "") == notIn { // the field reads as ""
				return nil, false
			}
			continue
		}
		kc := x.equals(x.nameID, f.Values[0])
		if notIn {
			for w := range kc.set {
				kc.set[w] = ^kc.set[w]
			}
		}
		t = t.and(term{kc})
	}
	return t, true
}
