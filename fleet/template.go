package fleet

import (
	"maps"
	"slices"
	"strconv"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/daemonsched/daemonsched/selector"
)

// NodeTemplate describes a node before it exists, as a Karpenter NodePool or a
// cluster-autoscaler node group does (WHATIF-2): labels it will have, requirements on labels
// whose value is not known yet, and taints. A label key that is neither in Labels nor in
// Requirements is absent, so a template without Requirements and with a Name is one concrete
// node.
type NodeTemplate struct {
	// Name is the node's name; "" means not known (any name).
	Name string `json:"name,omitempty"`
	// Labels are the labels the node will have, with their values.
	Labels map[string]string `json:"labels,omitempty"`
	// Requirements constrain labels whose value is open (In, NotIn, Exists, DoesNotExist, Gt,
	// Lt, as in node affinity); several on one key all hold. A requirement on a key of Labels
	// must hold for its value.
	Requirements []v1.NodeSelectorRequirement `json:"requirements,omitempty"`
	// Taints are the node's taints.
	Taints []v1.Taint `json:"taints,omitempty"`
}

// TemplateDecision is what a WhatIf decides for a node template.
type TemplateDecision struct {
	// Verdicts holds one answer per DaemonSet, in the Set's order.
	Verdicts []Verdict
	// Requests is the range of the total requests of the pods that run, over the nodes the
	// template can become (WHATIF-3).
	Requests Range
}

// Range is a per-resource range of total requests.
type Range struct {
	// Min and Max hold, per resource, the least and the greatest total over the nodes the
	// template can become; a resource any pod that may run names is in both.
	Min, Max v1.ResourceList
	// Exact is false when the template leaves more than [MaxCombinations] combinations of
	// label classes open: Min then counts the pods that run everywhere, and Max those and
	// every Depends one, which bound the true range.
	Exact bool
}

// MaxCombinations bounds the combinations of label classes [WhatIf.DecideTemplate] visits to
// compute an exact range of requests.
const MaxCombinations = 4096

// index returns the compiled placements for templates, building them on first use.
func (w *WhatIf) index() *templateIndex {
	w.tmplOnce.Do(func() { w.tmpl = buildTemplateIndex(w) })
	return w.tmpl
}

// DecideTemplate decides every DaemonSet for the node template t (WHATIF-2): Runs when the pod
// runs on every node t can become, DoesNotRun when on none, Depends otherwise, with the label
// keys that decide; and the range of the total requests (WHATIF-3). When t fixes every label
// (no Requirements) and its Name, each answer is the one [WhatIf.DecideNode] gives for that
// node. A malformed template (an invalid label or requirement, a requirement that contradicts
// a label, requirements no value satisfies) gives field errors rooted at fldPath and no
// decision. t is not modified.
func (w *WhatIf) DecideTemplate(t *NodeTemplate, fldPath *field.Path) (*TemplateDecision, field.ErrorList) {
	x := w.index()
	d, errs := x.domainOf(t, fldPath)
	if len(errs) > 0 {
		return nil, errs
	}
	s := w.set
	n := s.Len()
	out := &TemplateDecision{Verdicts: make([]Verdict, n)}
	place := make([][4]tri, len(x.place))
	done := make([]bool, len(x.place))
	for i := range n {
		c := s.placeOf[i]
		if !done[c] {
			p := &x.place[c]
			place[c] = [4]tri{p.all.eval(d), p.name.eval(d), p.sel.eval(d), p.aff.eval(d)}
			done[c] = true
		}
		out.Verdicts[i] = w.verdict(x, i, d, place[c], t.Taints)
	}
	out.Requests = w.requestRange(x, t, d, out.Verdicts)
	return out, nil
}

// partReasons are the reasons of placementParts' name, sel and aff.
var partReasons = [3]Reason{
	Reason(daemonset.ReasonNodeNameMismatch), Reason(daemonset.ReasonNodeSelectorMismatch), Reason(daemonset.ReasonNodeAffinityMismatch),
}

// placementReason is why the placement fails where it fails: the first part that fails
// everywhere, else the first that fails somewhere.
func placementReason(p [4]tri) Reason {
	for k := 1; k < 4; k++ {
		if p[k] == triFalse {
			return partReasons[k-1]
		}
	}
	for k := 1; k < 4; k++ {
		if p[k] != triTrue {
			return partReasons[k-1]
		}
	}
	return partReasons[2] // the conjunction fails though no part does alone
}

func (w *WhatIf) verdict(x *templateIndex, i int, d domain, p [4]tri, taints []v1.Taint) Verdict {
	if p[0] == triFalse {
		return Verdict{Answer: DoesNotRun, Reason: placementReason(p)}
	}
	if placement, eviction := w.set.tolRep[w.set.tolOf[i]].Untolerated(taints); placement >= 0 {
		reason, j := daemonset.ReasonTaintNotTolerated, placement
		if eviction >= 0 {
			reason, j = daemonset.ReasonNoExecuteTaintNotTolerated, eviction
		}
		t := taints[j]
		return Verdict{Answer: DoesNotRun, Reason: Reason(reason), Taint: &t}
	}
	if rej := w.pods[i].Rejection; rej != nil {
		return Verdict{Answer: DoesNotRun, Reason: ReasonAdmissionRejected, Rejection: rej}
	}
	all := p[0]
	var pending dnf
	if pending = x.pending[i]; pending != nil {
		all = x.place[w.set.placeOf[i]].all.and(pending).eval(d)
	}
	switch all {
	case triTrue:
		return Verdict{Answer: Runs}
	case triFalse:
		return Verdict{Answer: DoesNotRun, Reason: ReasonRuntimeClassNodeSelectorMismatch}
	}
	v := Verdict{Answer: Depends, Reason: ReasonRuntimeClassNodeSelectorMismatch}
	if p[0] == triUnknown {
		v.Reason = placementReason(p)
	}
	keys := map[int]bool{}
	x.place[w.set.placeOf[i]].all.reads(keys)
	pending.reads(keys)
	for id := range keys {
		if d[id].count() > 1 {
			v.DependsOn = append(v.DependsOn, x.univ[id].key)
		}
	}
	slices.Sort(v.DependsOn)
	return v
}

// domainOf checks t and returns the classes of each key it allows.
func (x *templateIndex) domainOf(t *NodeTemplate, fldPath *field.Path) (domain, field.ErrorList) {
	errs := selector.ValidateLabels(t.Labels, fldPath.Child("labels"))
	reqs := map[string][]selector.Requirement{}
	reqPath := fldPath.Child("requirements")
	for i, r := range t.Requirements {
		p := reqPath.Index(i)
		req, rerrs := selector.NewRequirement(r.Key, r.Operator, r.Values, selector.NodeSelectorOperators, p)
		if len(rerrs) > 0 {
			errs = append(errs, rerrs...)
			continue
		}
		if v, known := t.Labels[r.Key]; known {
			if !req.Matches(t.Labels) {
				errs = append(errs, field.Invalid(p, r.Key+"="+v, "contradicts the template's label "+strconv.Quote(r.Key)))
			}
			continue
		}
		reqs[r.Key] = append(reqs[r.Key], req)
	}
	if len(errs) > 0 {
		return nil, errs
	}
	d := slices.Clone(x.absent)
	for _, k := range slices.Sorted(maps.Keys(reqs)) {
		if !openValues(reqs[k]) {
			errs = append(errs, field.Invalid(reqPath, k, "no value of label "+strconv.Quote(k)+" satisfies every requirement on it"))
		}
	}
	if len(errs) > 0 {
		return nil, errs
	}
	for id := range x.univ {
		u := &x.univ[id]
		switch {
		case u.isName:
			if t.Name != "" {
				d[id] = newClassSet(u.classes())
				d[id].add(u.classOf(t.Name))
			}
		case t.Labels != nil && hasKey(t.Labels, u.key):
			d[id] = newClassSet(u.classes())
			d[id].add(u.classOf(t.Labels[u.key]))
		case reqs[u.key] != nil:
			d[id] = u.allowed(reqs[u.key])
		}
	}
	return d, nil
}

func hasKey(m map[string]string, k string) bool {
	_, ok := m[k]
	return ok
}

// openValues reports whether some state (absence included) satisfies every requirement of rs.
func openValues(rs []selector.Requirement) bool {
	u := universe{key: rs[0].Key()}
	var bounds []int64
	for _, r := range rs {
		switch r.Operator() {
		case selector.Gt, selector.Lt:
			n, _ := strconv.ParseInt(r.Values()[0], 10, 64)
			bounds = append(bounds, n)
		default:
			u.values = append(u.values, r.Values()...)
		}
	}
	u.finish(bounds)
	return u.allowed(rs).count() > 0
}

// allowed returns the classes of u in which some state satisfies every requirement of rs.
func (u *universe) allowed(rs []selector.Requirement) classSet {
	s := newClassSet(u.classes())
	all := func(v string, present bool) bool {
		labels := map[string]string{}
		if present {
			labels[u.key] = v
		}
		for i := range rs {
			if !rs[i].Matches(labels) {
				return false
			}
		}
		return true
	}
	if all("", false) {
		s.add(0)
	}
	for i, v := range u.values {
		if all(v, true) {
			s.add(1 + i)
		}
	}
	// A class of other values holds values no requirement names. With an In, those are its
	// values outside the class's named ones; without, every integer has endless spellings
	// ("7", "07", ...) and NotIn excludes finitely many, so only the bounds and the operators
	// that need a number or no value matter.
	var in []string
	lo, hi := int64(-1<<63), int64(1<<63-1)
	numeric, none := false, false
	for i := range rs {
		switch rs[i].Operator() {
		case selector.In:
			if in == nil {
				in = rs[i].Values()
			}
		case selector.DoesNotExist:
			none = true
		case selector.Gt:
			n, _ := strconv.ParseInt(rs[i].Values()[0], 10, 64)
			numeric = true
			if n == hi {
				none = true
			}
			lo = max(lo, n+1)
		case selector.Lt:
			n, _ := strconv.ParseInt(rs[i].Values()[0], 10, 64)
			numeric = true
			if n == -1<<63 {
				none = true
			}
			hi = min(hi, n-1)
		}
	}
	if none {
		return s
	}
	if in != nil {
		for _, v := range in {
			if !u.mentioned(v) && all(v, true) {
				s.add(u.classOf(v))
			}
		}
		return s
	}
	if !numeric {
		s.add(u.nonInteger())
	}
	for r, reg := range u.regions {
		if max(reg[0], lo) <= min(reg[1], hi) {
			s.add(u.region(r))
		}
	}
	return s
}

// requestRange computes the range of total requests over the nodes d allows (WHATIF-3).
func (w *WhatIf) requestRange(x *templateIndex, t *NodeTemplate, d domain, verdicts []Verdict) Range {
	reqs := func(i int) v1.ResourceList {
		if w.resolver != nil {
			return w.resolver.Requests(w.set.planners[i].DaemonSet(), t.Labels, w.pods[i].Requests)
		}
		return w.pods[i].Requests
	}
	base := v1.ResourceList{}
	var depends []int
	for i, v := range verdicts {
		switch v.Answer {
		case Runs:
			addList(base, reqs(i))
		case Depends:
			depends = append(depends, i)
		}
	}
	r := Range{Min: base.DeepCopy(), Max: base.DeepCopy(), Exact: true}
	if len(depends) == 0 {
		return r
	}
	// The keys the Depends pods read, and their open classes.
	read := map[int]bool{}
	for _, i := range depends {
		x.place[w.set.placeOf[i]].all.reads(read)
		x.pending[i].reads(read)
	}
	var keys []int
	var classes [][]int
	combos := 1
	for _, id := range slices.Sorted(maps.Keys(read)) {
		if d[id].count() < 2 {
			continue
		}
		var cs []int
		for c := range x.univ[id].classes() {
			if d[id].has(c) {
				cs = append(cs, c)
			}
		}
		keys, classes = append(keys, id), append(classes, cs)
		if combos *= len(cs); combos > MaxCombinations {
			break
		}
	}
	sizes := make([]v1.ResourceList, len(depends))
	names := map[v1.ResourceName]bool{}
	for k, i := range depends {
		sizes[k] = reqs(i)
		for name := range sizes[k] {
			names[name] = true
		}
	}
	if combos > MaxCombinations {
		r.Exact = false
		for k := range depends {
			addList(r.Max, sizes[k])
		}
		for name := range names {
			if _, ok := r.Min[name]; !ok {
				r.Min[name] = resource.Quantity{}
			}
		}
		return r
	}
	effective := make([]dnf, len(depends))
	for k, i := range depends {
		effective[k] = x.place[w.set.placeOf[i]].all
		if x.pending[i] != nil {
			effective[k] = effective[k].and(x.pending[i])
		}
	}
	point := slices.Clone(d)
	pick := make([]int, len(keys))
	first := true
	for {
		for j, id := range keys {
			point[id] = newClassSet(x.univ[id].classes())
			point[id].add(classes[j][pick[j]])
		}
		total := base.DeepCopy()
		for k := range depends {
			if effective[k].eval(point) == triTrue {
				addList(total, sizes[k])
			}
		}
		for name := range names {
			q := total[name]
			if m, ok := r.Min[name]; first || !ok || q.Cmp(m) < 0 {
				r.Min[name] = q.DeepCopy()
			}
			if m, ok := r.Max[name]; !ok || q.Cmp(m) > 0 {
				r.Max[name] = q.DeepCopy()
			}
		}
		first = false
		j := 0
		for ; j < len(keys); j++ {
			if pick[j]++; pick[j] < len(classes[j]) {
				break
			}
			pick[j] = 0
		}
		if j == len(keys) {
			return r
		}
	}
}
