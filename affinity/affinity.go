// Package affinity decides whether a node satisfies a pod's required placement:
// spec.nodeSelector AND required node affinity, exactly as Kubernetes does in every supported
// release (1.33 to 1.37, alike). It does not
// look at preferred terms, pod (anti-)affinity, taints or resources, never contacts an API
// server, and never mutates its inputs.
package affinity

import (
	"cmp"
	"slices"
	"strconv"

	"github.com/daemonsched/daemonsched/selector"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Required is the compiled required placement of a pod spec. It is immutable and safe for
// concurrent use. A nil *Required imposes no constraint.
type Required struct {
	// nodeSelector holds spec.nodeSelector sorted by key; every entry must hold (NSEL-2).
	nodeSelector []labelEquals
	// hasAffinity is set when requiredDuringSchedulingIgnoredDuringExecution is non-nil
	// (AFF-1); terms then decide, and zero terms match no node (AFF-2).
	hasAffinity bool
	// termCount is len(nodeSelectorTerms), empty terms included.
	termCount int
	// terms are the non-empty terms in input order (AFF-4 drops the empty ones).
	terms []term
	// termsPath is the path of nodeSelectorTerms, for explanations.
	termsPath *field.Path
}

// labelEquals is one spec.nodeSelector entry.
type labelEquals struct {
	key, value string
}

// term is one compiled, non-empty node selector term.
type term struct {
	// index is the term's position in nodeSelectorTerms.
	index int
	exprs []selector.Requirement
	// fields are the matchFields requirements, in input order.
	fields []fieldRequirement
	// errs are the term's parse errors. A term with errors never matches (AFF-8).
	errs field.ErrorList
}

// fieldRequirement is one matchFields entry: In or NotIn with exactly one value (AFF-9).
type fieldRequirement struct {
	key, value string
	notIn      bool
}

// Compile compiles spec.nodeSelector and the required node affinity of spec. It never fails:
// a malformed term is recorded (with its path under fldPath) and never matches (AFF-8), as
// upstream. fldPath may be nil. A nil spec imposes no constraint.
//
// As component-helpers' nodeaffinity.GetRequiredNodeAffinity does, terms with neither
// matchExpressions nor matchFields are dropped (AFF-4); a term's matchExpressions follow
// labels.NewRequirement (In, NotIn, Exists, DoesNotExist, Gt, Lt, AFF-6, AFF-7) and its
// matchFields accept only In and NotIn with exactly one value (AFF-9). Gt and Lt integers are
// parsed here, once.
func Compile(spec *v1.PodSpec, fldPath *field.Path) *Required {
	r := &Required{}
	if spec == nil {
		return r
	}
	if len(spec.NodeSelector) > 0 {
		r.nodeSelector = make([]labelEquals, 0, len(spec.NodeSelector))
		for k, v := range spec.NodeSelector {
			r.nodeSelector = append(r.nodeSelector, labelEquals{key: k, value: v})
		}
		slices.SortFunc(r.nodeSelector, func(a, b labelEquals) int { return cmp.Compare(a.key, b.key) })
	}
	ns := requiredSelector(spec.Affinity)
	if ns == nil {
		return r
	}
	r.hasAffinity = true
	r.termCount = len(ns.NodeSelectorTerms)
	r.termsPath = fldPath.Child("affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms")
	for i := range ns.NodeSelectorTerms {
		t := &ns.NodeSelectorTerms[i]
		if isEmptyTerm(t) {
			continue
		}
		r.terms = append(r.terms, compileTerm(t, i, r.termsPath.Index(i)))
	}
	return r
}

// requiredSelector returns affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution
// or nil when any link is nil (AFF-1).
func requiredSelector(a *v1.Affinity) *v1.NodeSelector {
	if a == nil || a.NodeAffinity == nil {
		return nil
	}
	return a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution
}

func isEmptyTerm(t *v1.NodeSelectorTerm) bool {
	return len(t.MatchExpressions) == 0 && len(t.MatchFields) == 0
}

func compileTerm(t *v1.NodeSelectorTerm, index int, fldPath *field.Path) term {
	ct := term{index: index}
	exprsPath := fldPath.Child("matchExpressions")
	for j, e := range t.MatchExpressions {
		req, errs := selector.NewRequirement(e.Key, e.Operator, e.Values, selector.NodeSelectorOperators, exprsPath.Index(j))
		ct.errs = append(ct.errs, errs...)
		ct.exprs = append(ct.exprs, req)
	}
	fieldsPath := fldPath.Child("matchFields")
	for j, f := range t.MatchFields {
		p := fieldsPath.Index(j)
		var notIn bool
		switch f.Operator {
		case v1.NodeSelectorOpIn:
		case v1.NodeSelectorOpNotIn:
			notIn = true
		default:
			ct.errs = append(ct.errs, field.Invalid(p.Child("operator"), f.Operator,
				"not a valid field selector operator, must be In or NotIn"))
			continue
		}
		if len(f.Values) != 1 {
			ct.errs = append(ct.errs, field.Required(p.Child("values"), "must have exactly one value when `operator` is 'In' or 'NotIn' in matchFields"))
			continue
		}
		// Keys and values are not checked here, as upstream's field selectors do not: any key
		// other than metadata.name reads as the empty string (AFF-9).
		ct.fields = append(ct.fields, fieldRequirement{key: f.Key, value: f.Values[0], notIn: notIn})
	}
	if len(ct.errs) > 0 {
		ct.exprs, ct.fields = nil, nil
	}
	return ct
}

// Outcome is the verdict of [Required.Evaluate]: the node matches, or which half of the
// required placement rejected it. The zero Outcome is [Match].
type Outcome uint8

const (
	// Match: the node satisfies spec.nodeSelector and the required node affinity.
	Match Outcome = iota
	// NodeSelectorMismatch: a spec.nodeSelector entry does not hold (NSEL-2); the affinity
	// terms were not evaluated (AFF-12).
	NodeSelectorMismatch
	// AffinityMismatch: the node selector holds but no required node affinity term matches
	// (AFF-2, AFF-3).
	AffinityMismatch
)

// String returns the constant's name, or "Outcome(n)" for any other value.
func (o Outcome) String() string {
	switch o {
	case Match:
		return "Match"
	case NodeSelectorMismatch:
		return "NodeSelectorMismatch"
	case AffinityMismatch:
		return "AffinityMismatch"
	}
	return "Outcome(" + strconv.Itoa(int(o)) + ")"
}

// Matches reports whether node satisfies the node selector and the required node affinity:
// Evaluate(node) == Match. It allocates nothing. Matches panics if node is nil.
func (r *Required) Matches(node *v1.Node) bool {
	if node == nil {
		panic("affinity: Matches called with a nil node")
	}
	return r.Evaluate(node) == Match
}

// Evaluate decides node in one walk and says which half failed, so that a caller that must
// name the reason (the DaemonSet controller's ELIG-6) looks no label up twice. It allocates
// nothing.
//
// The node selector is checked first (AFF-12), each entry an exact label match (NSEL-2); then,
// if the pod has required node affinity, at least one term must match (AFF-3): every
// matchExpressions requirement against the node's labels and every matchFields requirement
// against the node's name (AFF-5). A term with parse errors never matches (AFF-8). A nil
// *Required matches every node. Evaluate panics if node is nil.
func (r *Required) Evaluate(node *v1.Node) Outcome {
	if node == nil {
		panic("affinity: Evaluate called with a nil node")
	}
	if r == nil {
		return Match
	}
	labels := node.Labels
	if _, failed := r.failedNodeSelector(labels); failed {
		return NodeSelectorMismatch
	}
	if !r.hasAffinity {
		return Match
	}
	// firstFailure, unrolled here so that the hot path makes no call per term.
terms:
	for i := range r.terms {
		t := &r.terms[i]
		if t.errs != nil {
			continue
		}
		for j := range t.exprs {
			if !t.exprs[j].Matches(labels) {
				continue terms
			}
		}
		if node.Name != "" {
			for j := range t.fields {
				if !t.fields[j].holds(node.Name) {
					continue terms
				}
			}
		}
		return Match
	}
	return AffinityMismatch
}

// failedNodeSelector returns the index of the first node selector entry, in key order, that
// labels do not satisfy.
func (r *Required) failedNodeSelector(labels map[string]string) (int, bool) {
	for i := range r.nodeSelector {
		e := &r.nodeSelector[i]
		if v, ok := labels[e.key]; !ok || v != e.value {
			return i, true
		}
	}
	return 0, false
}

// Failure kinds returned by term.firstFailure.
const (
	failParse = iota
	failExpression
	failField
)

// firstFailure returns why t does not match node: the kind (failParse, failExpression or
// failField) and the index of the failing requirement, or ok=false when t matches.
func (t *term) firstFailure(node *v1.Node) (kind, index int, failed bool) {
	if t.errs != nil {
		return failParse, 0, true
	}
	for j := range t.exprs {
		if !t.exprs[j].Matches(node.Labels) {
			return failExpression, j, true
		}
	}
	// Upstream builds a field set holding metadata.name only when the node has a name, and
	// skips matchFields against an empty set (AFF-10).
	if node.Name == "" {
		return 0, 0, false
	}
	for j := range t.fields {
		if !t.fields[j].holds(node.Name) {
			return failField, j, true
		}
	}
	return 0, 0, false
}

// holds reports whether f holds for a node named name, which is not empty (AFF-10).
func (f *fieldRequirement) holds(name string) bool {
	return (nodeField(name, f.key) == f.value) != f.notIn
}

// nodeField reads a field of a node named name the way upstream's field set does:
// metadata.name is the name, any other key is absent and reads as "" (AFF-9).
func nodeField(name, key string) string {
	if key == metav1.ObjectNameField {
		return name
	}
	return ""
}

// Errors returns the parse errors of every term, in term order: the lazy errors that upstream
// discards (AFF-8). Nil when every term parsed. It is kept for a caller that must tell, without
// a node at hand, which terms the controller silently ignores (a linter, an admission check);
// [Validate] is stricter and reports what the API server would reject.
func (r *Required) Errors() field.ErrorList {
	if r == nil {
		return nil
	}
	var errs field.ErrorList
	for _, t := range r.terms {
		errs = append(errs, t.errs...)
	}
	return errs
}
