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
// resource table (int64 counts), or on one built from the resolver's answers. g is the
// caller's scratch, reused from call to call.
func (w *WhatIf) requestRange(x *templateIndex, t *Template, d domain, verdicts []Verdict, g *dependsForms) Range {
	tbl := w.set.res
	if w.resolver != nil {
		lists := make([]v1.ResourceList, len(verdicts))
		for i, v := range verdicts {
			if v.Answer != DoesNotRun {
				lists[i] = w.resolver(w.set.planners[i].DaemonSet(), t.labels, w.pods[i].Requests)
			}
		}
		tbl = newResourceTable(lists)
	}
	g.reset(x, tbl)
	lo, hi := g.sum(), g.sum()
	for i, v := range verdicts {
		switch v.Answer {
		case Runs:
			lo.add(tbl, i)
			hi.add(tbl, i)
		case Depends:
			g.depends = append(g.depends, i)
			lo.mark(tbl, i)
			hi.mark(tbl, i)
		}
	}
	exact := true
	if len(g.depends) > 0 {
		g.group(w, x, d)
		for _, grp := range g.groups {
			glo, ghi, ok := g.extremes(x, d, tbl, grp)
			exact = exact && ok
			lo.addSum(glo)
			hi.addSum(ghi)
		}
	}
	return Range{Min: lo.list(tbl), Max: hi.list(tbl), Exact: exact}
}

// dependsForms are the distinct placements of the Depends pods, with their open keys, and
// their groups; and the working memory of requestRange, kept by a TemplateDecision.
type dependsForms struct {
	depends []int   // the Depends DaemonSets
	forms   []dnf   // their distinct placements
	keys    [][]int // per form: the open keys it reads
	ds      [][]int // per form: the DaemonSets whose pod runs where it holds
	groups  [][]int // forms that share open keys, transitively
	point   []int   // per key: its class at the combination visited

	formOfClass, parent, owner, groupOf []int
	reads                               [][]int
	tbl                                 *resourceTable
	sums                                []*columnSum
	used                                int
}

// reset empties g for a template decided over x's keys, with sums over tbl.
func (g *dependsForms) reset(x *templateIndex, tbl *resourceTable) {
	g.depends, g.forms, g.keys, g.ds, g.groups, g.reads = g.depends[:0], g.forms[:0], g.keys[:0], g.ds[:0], g.groups[:0], g.reads[:0]
	g.point = zeroed(g.point, len(x.univ))
	if g.tbl != tbl {
		g.tbl, g.sums = tbl, nil
	}
	g.used = 0
}

// zeroed returns buf resized to n, all zero.
func zeroed(buf []int, n int) []int {
	if cap(buf) < n {
		return make([]int, n)
	}
	buf = buf[:n]
	clear(buf)
	return buf
}

// appendTo appends v to the k-th inner slice of list, which grows to k+1 entries, reusing the
// inner slices' memory.
func appendTo(list [][]int, k, v int) [][]int {
	if k == len(list) {
		if k < cap(list) {
			list = list[:k+1]
			list[k] = list[k][:0]
		} else {
			list = append(list, nil)
		}
	}
	list[k] = append(list[k], v)
	return list
}

// sum returns a zero total over g.tbl.
func (g *dependsForms) sum() *columnSum {
	if g.used == len(g.sums) {
		g.sums = append(g.sums, newColumnSum(g.tbl))
	}
	s := g.sums[g.used]
	g.used++
	s.reset()
	clear(s.present)
	return s
}

// group gathers the Depends pods by placement (pods of one placement class without a
// RuntimeClass nodeSelector run together) and the placements by shared open keys.
func (g *dependsForms) group(w *WhatIf, x *templateIndex, d domain) {
	g.formOfClass = zeroed(g.formOfClass, len(x.place)) // 1 + the form of a placement class, or 0
	for _, i := range g.depends {
		if x.pending[i] == nil {
			c := w.set.placeOf[i]
			if f := g.formOfClass[c] - 1; f >= 0 {
				g.ds = appendTo(g.ds, f, i)
				continue
			}
			g.formOfClass[c] = len(g.forms) + 1
		}
		g.ds = appendTo(g.ds, len(g.forms), i)
		g.forms = append(g.forms, x.effective(w, i))
		g.reads = append(g.reads, x.reads(w, i))
	}
	// Union-find over forms, joined through their open keys; closed keys fix the point.
	g.parent = zeroed(g.parent, len(g.forms))
	for f := range g.parent {
		g.parent[f] = f
	}
	find := func(f int) int {
		for g.parent[f] != f {
			g.parent[f] = g.parent[g.parent[f]]
			f = g.parent[f]
		}
		return f
	}
	g.owner = zeroed(g.owner, len(x.univ)) // 1 + the first form reading an open key, or 0
	for f := range g.forms {
		if f == len(g.keys) {
			g.keys = appendTo(g.keys, f, 0)
		}
		g.keys[f] = g.keys[f][:0]
		for _, id := range g.reads[f] {
			if d[id].count() < 2 {
				g.point[id] = firstClass(d[id])
				continue
			}
			g.keys[f] = append(g.keys[f], id)
			if o := g.owner[id] - 1; o >= 0 {
				g.parent[find(f)] = find(o)
			} else {
				g.owner[id] = f + 1
			}
		}
	}
	g.groupOf = zeroed(g.groupOf, len(g.forms)) // 1 + the group of a root form, or 0
	for f := range g.forms {
		r := find(f)
		if g.groupOf[r] == 0 {
			g.groupOf[r] = len(g.groups) + 1
		}
		g.groups = appendTo(g.groups, g.groupOf[r]-1, f)
	}
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
			lo, hi = g.sum(), g.sum()
			for _, f := range grp {
				for _, i := range g.ds[f] {
					hi.add(tbl, i)
				}
			}
			return lo, hi, false
		}
	}
	lo, hi, total := g.sum(), g.sum(), g.sum()
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
