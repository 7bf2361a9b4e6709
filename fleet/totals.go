package fleet

import (
	"slices"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// requestRange computes the range of total requests over the nodes d allows (WHATIF-3). The
// pods that run everywhere count once. The Depends pods fall into independent groups: two are
// in one group when their placements read a common open key (one the template leaves open).
// Each group's least and greatest contribution is found by visiting every combination of the
// open classes of its keys; as groups are independent, the least (greatest) total of a
// resource is the sum of the groups' least (greatest). Sums are taken on the Set's compiled
// resource table (int64 counts), or on one built from the resolver's answers.
func (w *WhatIf) requestRange(x *templateIndex, t *Template, d domain, verdicts []Verdict) Range {
	tbl := w.set.res
	if w.resolver != nil {
		lists := make([]v1.ResourceList, len(verdicts))
		for i, v := range verdicts {
			if v.Answer != DoesNotRun {
				lists[i] = w.resolver.Requests(w.set.planners[i].DaemonSet(), t.labels, w.pods[i].Requests)
			}
		}
		tbl = newResourceTable(lists)
	}
	base := newColumnSum(tbl)
	var depends []int
	for i, v := range verdicts {
		switch v.Answer {
		case Runs:
			base.add(tbl, i)
		case Depends:
			depends = append(depends, i)
			base.mark(tbl, i)
		}
	}
	lo, hi := base.clone(), base
	if len(depends) == 0 {
		return Range{Min: lo.list(tbl), Max: hi.list(tbl), Exact: true}
	}
	g := groupDepends(w, x, d, depends)
	exact := true
	for _, grp := range g.groups {
		glo, ghi, ok := g.extremes(x, d, tbl, grp)
		exact = exact && ok
		lo.addSum(glo)
		hi.addSum(ghi)
	}
	return Range{Min: lo.list(tbl), Max: hi.list(tbl), Exact: exact}
}

// dependsForms are the distinct placements of the Depends pods, with their open keys, and
// their groups.
type dependsForms struct {
	forms  []dnf
	keys   [][]int // per form: the open keys it reads
	ds     [][]int // per form: the DaemonSets whose pod runs where it holds
	groups [][]int // forms that share open keys, transitively
	point  []int   // per key: its class at the combination visited; -1 unset
}

// groupDepends gathers the Depends pods by placement (pods of one placement class without a
// RuntimeClass nodeSelector run together) and the placements by shared open keys.
func groupDepends(w *WhatIf, x *templateIndex, d domain, depends []int) *dependsForms {
	g := &dependsForms{point: make([]int, len(x.univ))}
	for id := range g.point {
		g.point[id] = -1
	}
	formOfClass := make([]int, len(x.place)) // 1 + the form of a placement class, or 0
	var reads [][]int
	for _, i := range depends {
		if x.pending[i] == nil {
			c := w.set.placeOf[i]
			if f := formOfClass[c] - 1; f >= 0 {
				g.ds[f] = append(g.ds[f], i)
				continue
			}
			formOfClass[c] = len(g.forms) + 1
		}
		g.forms = append(g.forms, x.effective(w, i))
		g.ds = append(g.ds, []int{i})
		reads = append(reads, x.reads(w, i))
	}
	// Union-find over forms, joined through their open keys; closed keys fix the point.
	parent := make([]int, len(g.forms))
	for f := range parent {
		parent[f] = f
	}
	find := func(f int) int {
		for parent[f] != f {
			parent[f] = parent[parent[f]]
			f = parent[f]
		}
		return f
	}
	owner := make([]int, len(x.univ)) // 1 + the first form reading an open key, or 0
	g.keys = make([][]int, len(g.forms))
	for f := range g.forms {
		for _, id := range reads[f] {
			if d[id].count() < 2 {
				g.point[id] = firstClass(d[id])
				continue
			}
			g.keys[f] = append(g.keys[f], id)
			if o := owner[id] - 1; o >= 0 {
				parent[find(f)] = find(o)
			} else {
				owner[id] = f + 1
			}
		}
	}
	group := make([]int, len(g.forms)) // 1 + the group of a root form, or 0
	for f := range g.forms {
		r := find(f)
		if group[r] == 0 {
			g.groups = append(g.groups, nil)
			group[r] = len(g.groups)
		}
		g.groups[group[r]-1] = append(g.groups[group[r]-1], f)
	}
	return g
}

func firstClass(s classSet) int {
	for w, word := range s {
		for b := range 64 {
			if word&(1<<b) != 0 {
				return w*64 + b
			}
		}
	}
	return -1
}

// holdsAt reports whether f holds at g.point, where every key f reads has its class.
func (g *dependsForms) holdsAt(f dnf) bool {
	for _, t := range f {
		ok := true
		for _, kc := range t {
			if !kc.set.has(g.point[kc.key]) {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// extremes returns the least and greatest contribution of the pods of one group over every
// combination of the open classes of its keys; ok is false, and the bounds zero and all of
// them, past MaxCombinations combinations.
func (g *dependsForms) extremes(x *templateIndex, d domain, tbl *resourceTable, grp []int) (lo, hi *columnSum, ok bool) {
	var keys []int
	for _, f := range grp {
		keys = append(keys, g.keys[f]...)
	}
	slices.Sort(keys)
	keys = slices.Compact(keys)
	classes := make([][]int, len(keys))
	combos := 1
	for j, id := range keys {
		for c := range x.univ[id].classes() {
			if d[id].has(c) {
				classes[j] = append(classes[j], c)
			}
		}
		if combos *= len(classes[j]); combos > MaxCombinations {
			lo, hi = newColumnSum(tbl), newColumnSum(tbl)
			for _, f := range grp {
				for _, i := range g.ds[f] {
					hi.add(tbl, i)
				}
			}
			return lo, hi, false
		}
	}
	lo, hi, total := newColumnSum(tbl), newColumnSum(tbl), newColumnSum(tbl)
	pick := make([]int, len(keys))
	for first := true; ; first = false {
		for j, id := range keys {
			g.point[id] = classes[j][pick[j]]
		}
		total.reset()
		for _, f := range grp {
			if g.holdsAt(g.forms[f]) {
				for _, i := range g.ds[f] {
					total.add(tbl, i)
				}
			}
		}
		lo.keep(total, first, -1)
		hi.keep(total, first, 1)
		j := 0
		for ; j < len(keys); j++ {
			if pick[j]++; pick[j] < len(classes[j]) {
				break
			}
			pick[j] = 0
		}
		if j == len(keys) {
			return lo, hi, true
		}
	}
}

// columnSum is a total over a resource table's columns.
type columnSum struct {
	v       []int64             // exact columns
	q       []resource.Quantity // other columns
	present []bool
}

func newColumnSum(t *resourceTable) *columnSum {
	n := len(t.names)
	return &columnSum{v: make([]int64, n), q: make([]resource.Quantity, n), present: make([]bool, n)}
}

func (s *columnSum) add(t *resourceTable, i int) {
	for _, a := range t.perDS[i] {
		s.v[a.col] += a.v
		s.present[a.col] = true
	}
	for _, a := range t.perDSQuantity[i] {
		s.q[a.col].Add(a.q)
		s.present[a.col] = true
	}
}

// mark makes the resources of DaemonSet i present, at zero if nothing else names them.
func (s *columnSum) mark(t *resourceTable, i int) {
	for _, a := range t.perDS[i] {
		s.present[a.col] = true
	}
	for _, a := range t.perDSQuantity[i] {
		s.present[a.col] = true
	}
}

func (s *columnSum) clone() *columnSum {
	c := &columnSum{v: slices.Clone(s.v), q: make([]resource.Quantity, len(s.q)), present: slices.Clone(s.present)}
	for i := range s.q {
		c.q[i] = s.q[i].DeepCopy()
	}
	return c
}

// reset sets every column to zero.
func (s *columnSum) reset() {
	clear(s.v)
	for i := range s.q {
		if !s.q[i].IsZero() {
			s.q[i] = resource.Quantity{}
		}
	}
}

// addSum adds o to s, columns present in either being present.
func (s *columnSum) addSum(o *columnSum) {
	for c := range s.v {
		s.v[c] += o.v[c]
		s.q[c].Add(o.q[c])
		s.present[c] = s.present[c] || o.present[c]
	}
}

// keep replaces each column by o's where o's is smaller (sign -1) or greater (sign 1), or
// everywhere when first.
func (s *columnSum) keep(o *columnSum, first bool, sign int) {
	for c := range s.v {
		if first || (o.v[c] < s.v[c]) == (sign < 0) && o.v[c] != s.v[c] {
			s.v[c] = o.v[c]
		}
		if cmp := o.q[c].Cmp(s.q[c]); first || cmp == sign {
			s.q[c] = o.q[c].DeepCopy()
		}
	}
}

func (s *columnSum) list(t *resourceTable) v1.ResourceList {
	out := v1.ResourceList{}
	for c, name := range t.names {
		if !s.present[c] {
			continue
		}
		if t.exact[c] {
			out[name] = t.quantity(c, s.v[c])
		} else {
			out[name] = s.q[c].DeepCopy()
		}
	}
	return out
}
