package affinity

import (
	"strconv"
	"strings"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/daemonsched/daemonsched/internal/errlist"
	"github.com/daemonsched/daemonsched/internal/labeltext"
)

// Explanation says why a node does or does not satisfy a pod's required placement. Outcome
// always equals what [Required.Evaluate] returns for the same node. Upstream reports no reason;
// this is the project's own evidence (AFF-15).
type Explanation struct {
	// Outcome is the verdict. The zero Explanation is a match.
	Outcome Outcome
	// NodeSelector is, when Outcome is [NodeSelectorMismatch], the first failing
	// spec.nodeSelector entry in key order. The affinity terms were not evaluated then
	// (AFF-12), so Terms is empty.
	NodeSelector LabelMismatch
	// Terms explains, when Outcome is [AffinityMismatch], every entry of nodeSelectorTerms in
	// order (AFF-3); it is empty when the required selector has no terms at all (AFF-2).
	Terms []TermExplanation
}

// LabelMismatch is a spec.nodeSelector entry key=Want that the node's labels do not satisfy.
type LabelMismatch struct {
	Key, Want string
	// Value and Present are the node's actual label.
	Value   string
	Present bool
}

// TermExplanation says why one node selector term does not match the node. Exactly one of
// Empty, Errors and Failed describes it.
type TermExplanation struct {
	// Index is the term's position in nodeSelectorTerms.
	Index int
	// Empty is set for a term with neither matchExpressions nor matchFields, which matches no
	// node (AFF-4).
	Empty bool
	// Errors are the term's parse errors; such a term never matches (AFF-8).
	Errors field.ErrorList
	// Failed is the first requirement of the term, matchExpressions before matchFields and each
	// in input order, that the node does not satisfy.
	Failed FailedRequirement
}

// FailedRequirement is one node selector requirement that a node does not satisfy, with the
// node's actual value.
type FailedRequirement struct {
	// Path is the requirement's field path, such as
	// spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[1].
	Path string
	// Field is set for a matchFields requirement (tested against the node's fields), and
	// unset for a matchExpressions one (tested against the node's labels).
	Field    bool
	Key      string
	Operator v1.NodeSelectorOperator
	Values   []string
	// Value and Present are the node's actual label or field. Only metadata.name is a
	// present field (AFF-9).
	Value   string
	Present bool
}

// Explain evaluates node like [Required.Matches] and also says which part failed: the first
// failing node selector entry, or for each required term its first failing requirement with
// the node's actual value, or the term's recorded parse errors (AFF-15). It may allocate.
// Explain panics if node is nil.
func (r *Required) Explain(node *v1.Node) Explanation {
	if node == nil {
		panic("affinity: Explain called with a nil node")
	}
	if r == nil {
		return Explanation{Outcome: Match}
	}
	if i, failed := r.failedNodeSelector(node.Labels); failed {
		e := r.nodeSelector[i]
		v, ok := node.Labels[e.key]
		return Explanation{Outcome: NodeSelectorMismatch, NodeSelector: LabelMismatch{Key: e.key, Want: e.value, Value: v, Present: ok}}
	}
	if !r.hasAffinity {
		return Explanation{Outcome: Match}
	}
	var terms []TermExplanation
	next := 0 // next compiled term
	for i := 0; i < r.termCount; i++ {
		if next >= len(r.terms) || r.terms[next].index != i {
			terms = append(terms, TermExplanation{Index: i, Empty: true})
			continue
		}
		t := &r.terms[next]
		next++
		kind, j, failed := t.firstFailure(node)
		if !failed {
			return Explanation{Outcome: Match}
		}
		te := TermExplanation{Index: i}
		termPath := r.termsPath.Index(i)
		switch kind {
		case failParse:
			te.Errors = append(field.ErrorList(nil), t.errs...)
		case failExpression:
			req := t.exprs[j]
			v, ok := node.Labels[req.Key()]
			te.Failed = FailedRequirement{
				Path:     termPath.Child("matchExpressions").Index(j).String(),
				Key:      req.Key(),
				Operator: v1.NodeSelectorOperator(req.Operator().String()),
				Values:   req.Values(),
				Value:    v,
				Present:  ok,
			}
		case failField:
			f := t.fields[j]
			op := v1.NodeSelectorOpIn
			if f.notIn {
				op = v1.NodeSelectorOpNotIn
			}
			te.Failed = FailedRequirement{
				Path:     termPath.Child("matchFields").Index(j).String(),
				Field:    true,
				Key:      f.key,
				Operator: op,
				Values:   []string{f.value},
				Value:    nodeField(node.Name, f.key),
				Present:  f.key == metav1.ObjectNameField,
			}
		}
		terms = append(terms, te)
	}
	return Explanation{Outcome: AffinityMismatch, Terms: terms}
}

// String renders the explanation in plain words.
func (e Explanation) String() string {
	switch {
	case e.Outcome == Match:
		return "node satisfies the node selector and the required node affinity"
	case e.Outcome == NodeSelectorMismatch:
		m := e.NodeSelector
		return "node label " + labeltext.Label(m.Key, m.Value, m.Present) + ", but spec.nodeSelector requires " +
			m.Key + "=" + strconv.Quote(m.Want)
	case len(e.Terms) == 0:
		return "required node affinity has no node selector terms, so it matches no node"
	}
	var b strings.Builder
	b.WriteString("no required node affinity term matches the node")
	for _, t := range e.Terms {
		b.WriteString("; ")
		b.WriteString(t.String())
	}
	return b.String()
}

// String renders the term's explanation in plain words.
func (t TermExplanation) String() string {
	prefix := "term " + strconv.Itoa(t.Index) + ": "
	switch {
	case t.Empty:
		return prefix + "empty, so it matches no node"
	case len(t.Errors) > 0:
		return prefix + "invalid, so it never matches: " + errlist.Aggregate(t.Errors).Error()
	default:
		return prefix + t.Failed.String()
	}
}

// String renders the failed requirement in plain words.
func (f FailedRequirement) String() string {
	kind := "node label "
	if f.Field {
		kind = "node field "
	}
	var b strings.Builder
	b.WriteString(kind)
	b.WriteString(labeltext.Label(f.Key, f.Value, f.Present))
	b.WriteString(", which does not satisfy ")
	b.WriteString(labeltext.Requirement(f.Key, string(f.Operator), f.Values))
	return b.String()
}
