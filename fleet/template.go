package fleet

import (
	"maps"
	"math"
	"slices"
	"strconv"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/daemonsched/daemonsched/daemonset"
	"github.com/daemonsched/daemonsched/internal/decimal"
	"github.com/daemonsched/daemonsched/selector"
	"github.com/daemonsched/daemonsched/taints"
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
	// Taints are the node's taints, validated as a node's (taints.ValidateNodeTaints).
	Taints []v1.Taint `json:"taints,omitempty"`
}

// TemplateDecision is what a WhatIf decides for a node template. Reuse one across calls of
// [WhatIf.DecideTemplate] to reuse its buffers; the zero value is ready to use.
type TemplateDecision struct {
	// Verdicts holds one answer per DaemonSet, in the Set's order.
	Verdicts []Verdict
	// Requests is the range of the total requests of the pods that run, over the nodes the
	// template can become (WHATIF-3).
	Requests Range

	dom   domain       // per key of the WhatIf's index
	place []placeTruth // per placement class
	tol   []tolTruth   // per toleration class
	forms dependsForms // requestRange's working memory
}

// tolTruth is a toleration class's answer on the template's taints (indices as
// [taints.Tolerations.Untolerated] returns them).
type tolTruth struct {
	placement, eviction int
	done                bool
}

// placeTruth is a placement class's answer on a template: the conjunction, then each part,
// and whether it was computed.
type placeTruth struct {
	parts     [4]tri
	done      bool
	dependsOn []string // shared by the class's Depends verdicts
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

// Template is a compiled [NodeTemplate]: checked once, decided by any WhatIf. It is immutable
// and safe for concurrent use.
type Template struct {
	name   string
	labels map[string]string
	taints []v1.Taint
	reqs   map[string][]selector.Requirement // on keys not in labels
}

// CompileTemplate checks t and compiles it. A malformed template (an invalid label key or
// value, an invalid requirement, a requirement that contradicts a label of t, requirements on
// one key that no value or absence satisfies, a taint API validation would refuse on a node:
// [taints.ValidateNodeTaints]) gives field errors rooted at fldPath and a nil Template. t is
// not modified nor kept.
func CompileTemplate(t *NodeTemplate, fldPath *field.Path) (*Template, field.ErrorList) {
	errs := selector.ValidateLabels(t.Labels, fldPath.Child("labels"))
	// A taint with a misspelt effect (NoSchedul) would otherwise be silently ignored (TAINT-6),
	// and the template would run pods its nodes refuse.
	errs = append(errs, taints.ValidateNodeTaints(t.Taints, fldPath.Child("taints"))...)
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
	for _, k := range slices.Sorted(maps.Keys(reqs)) {
		if !openValues(reqs[k]) {
			errs = append(errs, field.Invalid(reqPath, k, "no value of label "+strconv.Quote(k)+" satisfies every requirement on it"))
		}
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return &Template{name: t.Name, labels: maps.Clone(t.Labels), taints: slices.Clone(t.Taints), reqs: reqs}, nil
}

// DecideTemplate decides every DaemonSet for the node template t (WHATIF-2): Runs when the pod
// runs on every node t can become, DoesNotRun when on none, Depends otherwise, with the label
// keys that decide; and the range of the total requests (WHATIF-3). When t fixes every label
// (no Requirements) and its Name, each answer is the one [WhatIf.DecideNode] gives for that
// node. The answer is stored in into, replacing what it held; t is not modified nor kept.
func (w *WhatIf) DecideTemplate(t *Template, into *TemplateDecision) {
	x := w.index()
	d := x.domainOf(t, into.dom)
	into.dom = d
	s := w.set
	n := s.Len()
	if cap(into.Verdicts) < n {
		into.Verdicts = make([]Verdict, n)
	}
	into.Verdicts = into.Verdicts[:n]
	if cap(into.place) < len(x.place) {
		into.place = make([]placeTruth, len(x.place))
	}
	into.place = into.place[:len(x.place)]
	clear(into.place)
	if cap(into.tol) < len(s.tolRep) {
		into.tol = make([]tolTruth, len(s.tolRep))
	}
	into.tol = into.tol[:len(s.tolRep)]
	clear(into.tol)
	for i := range n {
		pt := &into.place[s.placeOf[i]]
		if !pt.done {
			p := &x.place[s.placeOf[i]]
			pt.parts[0] = p.all.eval(d)
			if pt.parts[0] != triTrue { // the parts name the reason
				pt.parts[1], pt.parts[2], pt.parts[3] = p.name.eval(d), p.sel.eval(d), p.aff.eval(d)
			}
			pt.done = true
		}
		tt := &into.tol[s.tolOf[i]]
		if pt.parts[0] != triFalse && !tt.done {
			tt.placement, tt.eviction = s.tolRep[s.tolOf[i]].Untolerated(t.taints)
			tt.done = true
		}
		into.Verdicts[i] = w.verdict(x, i, d, pt, *tt, t.taints)
	}
	into.Requests = w.requestRange(x, t, d, into.Verdicts, &into.forms)
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

func (w *WhatIf) verdict(x *templateIndex, i int, d domain, pt *placeTruth, tt tolTruth, taints []v1.Taint) Verdict {
	p := pt.parts
	if p[0] == triFalse {
		return Verdict{Answer: DoesNotRun, Reason: placementReason(p)}
	}
	if tt.placement >= 0 {
		reason, j := daemonset.ReasonTaintNotTolerated, tt.placement
		if tt.eviction >= 0 {
			reason, j = daemonset.ReasonNoExecuteTaintNotTolerated, tt.eviction
		}
		return Verdict{Answer: DoesNotRun, Reason: Reason(reason), Taint: &taints[j]}
	}
	if rej := w.pods[i].Rejection; rej != nil {
		return Verdict{Answer: DoesNotRun, Reason: ReasonAdmissionRejected, Rejection: rej}
	}
	all := p[0]
	if x.pending[i] != nil {
		all = x.effective(w, i).eval(d)
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
	if x.pending[i] == nil && pt.dependsOn != nil {
		v.DependsOn = pt.dependsOn
		return v
	}
	for _, id := range x.reads(w, i) {
		if d[id].count() > 1 {
			v.DependsOn = append(v.DependsOn, x.univ[id].key)
		}
	}
	slices.Sort(v.DependsOn)
	if x.pending[i] == nil {
		pt.dependsOn = v.DependsOn
	}
	return v
}

// domainOf returns the classes of each key t allows.
// The sets of single classes are shared: a domain's sets are never modified.
func (x *templateIndex) domainOf(t *Template, into domain) domain {
	d := append(into[:0], x.absent...)
	for id := range x.univ {
		u := &x.univ[id]
		switch {
		case u.isName:
			if t.name != "" {
				d[id] = x.single[id][u.classOf(t.name)]
			}
		case hasKey(t.labels, u.key):
			d[id] = x.single[id][u.classOf(t.labels[u.key])]
		case t.reqs[u.key] != nil:
			d[id] = u.allowed(t.reqs[u.key])
		}
	}
	return d
}

func hasKey(m map[string]string, k string) bool {
	_, ok := m[k]
	return ok
}

// openValues reports whether some state (absence included) satisfies every requirement of rs.
// It costs time in proportion to the values of rs, however many requirements share the key
// (issue 25: 4,000 NotIn of 50 values each took 34.5 s checked value by requirement).
func openValues(rs []selector.Requirement) bool {
	k := reduce(rs)
	switch {
	case !k.present:
		return true // absence satisfies them all
	case k.none:
		return false
	case k.in != nil:
		for v := range k.in {
			if k.inBounds(v) {
				return true
			}
		}
		return false
	}
	// No In: NotIn excludes finitely many values, and every integer has endless spellings
	// ("7", "07", ...), so only the bounds can leave nothing.
	return !k.numeric || k.lo <= k.hi
}

// keyRequirements is a conjunction of requirements on one key reduced to what decides it.
type keyRequirements struct {
	rs      []selector.Requirement
	present bool                // some requirement needs the label (In, Exists, Gt, Lt)
	none    bool                // some requirement needs it absent, or no integer can pass
	in      map[string]struct{} // nil without an In: the values in every In and in no NotIn
	numeric bool                // a Gt or Lt: the value must be an integer in lo..hi
	lo, hi  int64
}

// reduce returns rs reduced to a keyRequirements, in time proportional to the values of rs.
func reduce(rs []selector.Requirement) keyRequirements {
	k := keyRequirements{rs: rs, lo: math.MinInt64, hi: math.MaxInt64}
	notIn := false
	for i := range rs {
		switch rs[i].Operator() {
		case selector.In:
			k.present = true
			values := rs[i].Values()
			if k.in == nil {
				k.in = make(map[string]struct{}, len(values))
				for _, v := range values {
					k.in[v] = struct{}{}
				}
				continue
			}
			next := make(map[string]struct{}, min(len(values), len(k.in)))
			for _, v := range values {
				if _, ok := k.in[v]; ok {
					next[v] = struct{}{}
				}
			}
			k.in = next
		case selector.NotIn:
			notIn = true
		case selector.Exists:
			k.present = true
		case selector.DoesNotExist:
			k.none = true
		case selector.Gt:
			n, _ := rs[i].Bound()
			k.present, k.numeric = true, true
			if n == math.MaxInt64 {
				k.none = true
			}
			k.lo = max(k.lo, n+1)
		case selector.Lt:
			n, _ := rs[i].Bound()
			k.present, k.numeric = true, true
			if n == math.MinInt64 {
				k.none = true
			}
			k.hi = min(k.hi, n-1)
		}
	}
	if k.in != nil && notIn {
		k.forNotIn(func(v string) { delete(k.in, v) })
	}
	return k
}

// forNotIn calls f with every value of every NotIn.
func (k *keyRequirements) forNotIn(f func(string)) {
	for i := range k.rs {
		if k.rs[i].Operator() == selector.NotIn {
			for _, v := range k.rs[i].Values() {
				f(v)
			}
		}
	}
}

// inBounds reports whether v, present, satisfies the Gt and Lt requirements, parsed as
// [selector.Requirement.Matches] parses it.
func (k *keyRequirements) inBounds(v string) bool {
	if !k.numeric {
		return true
	}
	n, ok := decimal.ParseInt64(v)
	return ok && k.lo <= n && n <= k.hi
}

// allowed returns the classes of u in which some state satisfies every requirement of rs, in
// time proportional to the values of rs and the classes of u.
func (u *universe) allowed(rs []selector.Requirement) classSet {
	s := newClassSet(u.classes())
	k := reduce(rs)
	if !k.present {
		s.add(0)
	}
	if k.none {
		return s
	}
	excluded := newClassSet(u.classes())
	k.forNotIn(func(v string) {
		if i, ok := u.index[v]; ok {
			excluded.add(1 + i)
		}
	})
	for i, v := range u.values {
		if k.in != nil {
			if _, ok := k.in[v]; !ok {
				continue
			}
		}
		if !excluded.has(1+i) && k.inBounds(v) {
			s.add(1 + i)
		}
	}
	// A class of other values holds values no requirement names. With an In, those are its
	// values outside the class's named ones; without, every integer has endless spellings
	// ("7", "07", ...) and NotIn excludes finitely many, so only the bounds and the operators
	// that need a number or no value matter.
	if k.in != nil {
		for v := range k.in {
			if !u.mentioned(v) && k.inBounds(v) {
				s.add(u.classOf(v))
			}
		}
		return s
	}
	if !k.numeric {
		s.add(u.nonInteger())
	}
	for r, reg := range u.regions {
		if max(reg[0], k.lo) <= min(reg[1], k.hi) {
			s.add(u.region(r))
		}
	}
	return s
}
