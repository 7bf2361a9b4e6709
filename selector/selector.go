// Package selector decides whether a set of labels satisfies a Kubernetes label selector
// (metav1.LabelSelector) or a single selector requirement (In, NotIn, Exists, DoesNotExist, and
// for node selectors Gt and Lt), exactly as Kubernetes does in every supported release (1.33 to
// 1.37, alike). It never contacts an API server, never validates the labels it is matched against, and never mutates its inputs.
package selector

import (
	"cmp"
	"maps"
	"slices"

	"k8s.io/apimachinery/pkg/api/validate/content"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Selector is a compiled metav1.LabelSelector. It is immutable and safe for concurrent use.
// A nil *Selector matches nothing, like a nil metav1.LabelSelector (SEL-1).
type Selector struct {
	// nothing is set for a nil metav1.LabelSelector (SEL-1).
	nothing bool
	// reqs are ANDed (SEL-3), sorted by key as upstream's labels.Selector is, so that Explain
	// reports the first failing requirement in key order (SEL-12). Ties keep matchLabels first,
	// then matchExpressions in input order.
	reqs []Requirement
}

// Compile validates ls (SEL-6..SEL-9) and compiles it. A nil ls compiles to a selector that
// matches nothing (SEL-1); a non-nil one with no requirements matches everything (SEL-2).
//
// Compile fails exactly when apimachinery's metav1.LabelSelectorAsSelector fails (SEL-7), and
// then returns a nil *Selector and every problem, with the paths and types of API validation
// (VAL-4): a bad matchLabels key or value is Invalid at fldPath.matchLabels; a matchExpressions
// entry reports Invalid .operator (Gt and Lt included, SEL-6), Required or Forbidden .values,
// Invalid .key and Invalid .values[j]. fldPath may be nil.
func Compile(ls *metav1.LabelSelector, fldPath *field.Path) (*Selector, field.ErrorList) {
	if ls == nil {
		return &Selector{nothing: true}, nil
	}
	var errs field.ErrorList
	reqs := make([]Requirement, 0, len(ls.MatchLabels)+len(ls.MatchExpressions))

	errs = append(errs, ValidateLabels(ls.MatchLabels, fldPath.Child("matchLabels"))...) // VAL-4
	for k, v := range ls.MatchLabels {
		reqs = append(reqs, newSetRequirement(k, In, []string{v})) // sorted with the rest below
	}

	exprsPath := fldPath.Child("matchExpressions")
	for i, expr := range ls.MatchExpressions {
		r, rErrs := NewRequirement(expr.Key, expr.Operator, expr.Values, LabelSelectorOperators, exprsPath.Index(i))
		errs = append(errs, rErrs...)
		reqs = append(reqs, r)
	}
	if len(errs) > 0 {
		return nil, errs
	}
	slices.SortStableFunc(reqs, func(a, b Requirement) int { return cmp.Compare(a.key, b.key) })
	return &Selector{reqs: reqs}, nil
}

// ValidateLabels reports what metav1 validation (ValidateLabels) rejects in labels: a key that
// is not a qualified name or a value that is not a label value, each reported as Invalid at
// fldPath with the bad key or value. Unlike upstream it walks the keys in order, so the errors
// come out the same every time.
func ValidateLabels(labels map[string]string, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, k := range slices.Sorted(maps.Keys(labels)) {
		errs = append(errs, metav1validation.ValidateLabelName(k, fldPath)...)
		for _, msg := range content.IsLabelValue(labels[k]) {
			errs = append(errs, field.Invalid(fldPath, labels[k], msg).WithOrigin("format=k8s-label-value"))
		}
	}
	return errs
}

// Matches reports whether labels satisfy every requirement (SEL-3). A nil map is an empty
// label set (SEL-10: labels are never validated). It allocates nothing.
func (s *Selector) Matches(labels map[string]string) bool {
	if s == nil || s.nothing {
		return false
	}
	for i := range s.reqs {
		if !s.reqs[i].Matches(labels) {
			return false
		}
	}
	return true
}
