package fleet

import (
	"fmt"
	"math/rand/v2"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/daemonsched/daemonsched/affinity"
	"github.com/daemonsched/daemonsched/selector"
)

// matchingByClass is the former templateIndex.matching, kept as the oracle: it tries r on the
// representative of every class of the key, which costs classes x values per requirement
// (issue 25, F5: 73.9 s on a 2.4 MB DaemonSet).
func (x *templateIndex) matchingByClass(id int, r *selector.Requirement) keyClasses {
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

// matchingPool holds the values the random universes name and the random requirements ask
// for: words, integers with and without leading zeros, the largest int64, and the strings the
// representatives of unnamed classes take ("x", "xx", "0", "00", ...), so that requirements
// name values the universe does not.
var matchingPool = []string{"a", "b", "x", "xx", "xxx", "0", "00", "000", "1", "01", "2", "5", "05",
	"7", "10", "010", "63", "64", "100", "9223372036854775807", "9223372036854775806", "z9"}

var matchingBounds = []int64{0, 1, 2, 5, 7, 10, 63, 64, 100, -1, -5, 9223372036854775807, -9223372036854775808, 9223372036854775806}

// TestMatchingAgreesWithTryingEveryClass: the class set of every requirement, built from its
// values, is the set of classes whose representative satisfies it, on random universes (named
// values and Gt/Lt bounds) and random requirements of every operator, including values and
// bounds the universe does not name.
func TestMatchingAgreesWithTryingEveryClass(t *testing.T) {
	r := rand.New(rand.NewPCG(25, 5))
	ops := []string{"In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"}
	for iter := range 3000 {
		u := universe{key: "example.com/k"}
		for range r.IntN(len(matchingPool) + 1) {
			u.values = append(u.values, matchingPool[r.IntN(len(matchingPool))])
		}
		var bounds []int64
		for range r.IntN(5) {
			bounds = append(bounds, matchingBounds[r.IntN(len(matchingBounds))])
		}
		u.finish(bounds)
		x := &templateIndex{univ: []universe{u}}
		for range 10 {
			op := ops[r.IntN(len(ops))]
			var values []string
			switch op {
			case "In", "NotIn":
				for range 1 + r.IntN(4) {
					values = append(values, matchingPool[r.IntN(len(matchingPool))])
				}
			case "Gt", "Lt":
				b := matchingBounds[r.IntN(len(matchingBounds))]
				if b < 0 {
					b = -b - 1 // a label value has no sign
				}
				values = []string{fmt.Sprint(b)}
			}
			req, errs := selector.NewRequirement(u.key, op, values, selector.NodeSelectorOperators, nil)
			if len(errs) > 0 {
				t.Fatalf("%s %v: %v", op, values, errs)
			}
			got, want := x.matching(0, &req, req.Values()), x.matchingByClass(0, &req)
			if fmt.Sprint(got.set) != fmt.Sprint(want.set) {
				t.Fatalf("iteration %d: values %q, bounds %v, regions %v: %s: got classes %b, want %b",
					iter, u.values, bounds, u.regions, req, got.set, want.set)
			}
		}
	}
}

// TestMatchingZeroRequirement: the zero Requirement matches no class, as it matches no labels.
func TestMatchingZeroRequirement(t *testing.T) {
	u := universe{key: "k", values: []string{"a", "5"}}
	u.finish([]int64{3})
	x := &templateIndex{univ: []universe{u}}
	if got := x.matching(0, &selector.Requirement{}, nil); got.set.count() != 0 {
		t.Fatalf("zero requirement: classes %b, want none", got.set)
	}
}

// TestSingleClassSets: single[id][c] holds class c and no other, for keys of up to a few
// words of classes, and no two sets share a word that either could change (their capacity is
// their length).
func TestSingleClassSets(t *testing.T) {
	for _, n := range []int{1, 2, 63, 64, 65, 127, 128, 129, 300} {
		u := universe{key: "k"}
		for i := range n - 2 {
			u.values = append(u.values, fmt.Sprintf("v%04d", i))
		}
		u.finish(nil)
		x := &templateIndex{univ: []universe{u}}
		x.buildSingle()
		if got := len(x.single[0]); got != u.classes() {
			t.Fatalf("%d classes: %d sets", u.classes(), got)
		}
		for c, s := range x.single[0] {
			if len(s) != len(newClassSet(u.classes())) || cap(s) != len(s) || s.count() != 1 || !s.has(c) {
				t.Fatalf("%d classes: class %d: set %b (len %d, cap %d)", u.classes(), c, s, len(s), cap(s))
			}
		}
	}
}

// compileTermByRequirement is the former conjunction of a term's expressions, requirement by
// requirement through matchingByClass, kept as the oracle of compileTerm's expressions.
func (x *templateIndex) compileTermByRequirement(at affinity.Term) term {
	t := term{}
	exprs := at.Expressions()
	for i := range exprs {
		t = t.and(term{x.matchingByClass(x.keyOf[exprs[i].Key()], &exprs[i])})
	}
	return t
}

// TestCompileTermAgreesWithRequirementByRequirement: a term's expressions, intersected per key
// in place, are the conjunction of each expression's classes, on random terms of several
// requirements on a few keys in any order.
func TestCompileTermAgreesWithRequirementByRequirement(t *testing.T) {
	r := rand.New(rand.NewPCG(25, 55))
	keys := []string{"example.com/a", "example.com/b", "example.com/c"}
	ops := []v1.NodeSelectorOperator{v1.NodeSelectorOpIn, v1.NodeSelectorOpNotIn, v1.NodeSelectorOpExists,
		v1.NodeSelectorOpDoesNotExist, v1.NodeSelectorOpGt, v1.NodeSelectorOpLt}
	for iter := range 2000 {
		x := &templateIndex{keyOf: map[string]int{}, nameID: -1}
		var bounds [][]int64
		for i, k := range keys {
			x.keyOf[k] = i
			x.univ = append(x.univ, universe{key: k})
			bounds = append(bounds, nil)
		}
		var exprs []v1.NodeSelectorRequirement
		for range 1 + r.IntN(8) {
			e := v1.NodeSelectorRequirement{Key: keys[r.IntN(len(keys))], Operator: ops[r.IntN(len(ops))]}
			id := x.keyOf[e.Key]
			switch e.Operator {
			case v1.NodeSelectorOpIn, v1.NodeSelectorOpNotIn:
				for range 1 + r.IntN(4) {
					e.Values = append(e.Values, matchingPool[r.IntN(len(matchingPool))])
				}
				x.univ[id].values = append(x.univ[id].values, e.Values...)
			case v1.NodeSelectorOpGt, v1.NodeSelectorOpLt:
				b := max(matchingBounds[r.IntN(len(matchingBounds))], 0)
				e.Values = []string{fmt.Sprint(b)}
				bounds[id] = append(bounds[id], b)
			}
			exprs = append(exprs, e)
		}
		for id := range x.univ {
			for range r.IntN(3) { // values other placements name
				x.univ[id].values = append(x.univ[id].values, matchingPool[r.IntN(len(matchingPool))])
			}
			x.univ[id].finish(bounds[id])
		}
		spec := &v1.PodSpec{Affinity: &v1.Affinity{NodeAffinity: &v1.NodeAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{
				NodeSelectorTerms: []v1.NodeSelectorTerm{{MatchExpressions: exprs}}}}}}
		terms, ok := affinity.Compile(spec, nil).Terms()
		if !ok || len(terms) != 1 {
			t.Fatalf("iteration %d: %v: terms %v, %v", iter, exprs, terms, ok)
		}
		want := x.compileTermByRequirement(terms[0])
		pt, _ := readTerm(terms[0], nil)
		got, ok := x.compileTerm(pt)
		if !ok || fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("iteration %d: %v: got %v (%v), want %v", iter, exprs, got, ok, want)
		}
	}
}
