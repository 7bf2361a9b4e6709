package affinity

import (
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/validate/content"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/daemonsched/daemonsched/selector"
)

// Validate reports what API validation rejects in the node selector and node affinity of spec
// (VAL-18, VAL-19).
//
// It follows pkg/apis/core/validation for a newly created object (the same checks from
// v1.33.13 to v1.37.2), message
// for message: spec.nodeSelector keys and values with label syntax, reported as Invalid at
// fldPath.nodeSelector (VAL-19); the required node selector (at least one term; an empty term
// is valid) and the preferred terms (weight 1..100; label values of preferred terms are not
// checked, as upstream). Validation does not check that Gt and Lt values are integers: such a
// term passes and then never matches (AFF-8, Surprise 13). Pod affinity and anti-affinity are
// not validated. A nil spec is valid. fldPath may be nil.
func Validate(spec *v1.PodSpec, fldPath *field.Path) field.ErrorList {
	if spec == nil {
		return nil
	}
	var errs field.ErrorList
	errs = append(errs, selector.ValidateLabels(spec.NodeSelector, fldPath.Child("nodeSelector"))...)
	if spec.Affinity == nil || spec.Affinity.NodeAffinity == nil {
		return errs
	}
	na := spec.Affinity.NodeAffinity
	naPath := fldPath.Child("affinity", "nodeAffinity")
	if na.RequiredDuringSchedulingIgnoredDuringExecution != nil {
		termsPath := naPath.Child("requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms")
		terms := na.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
		if len(terms) == 0 {
			errs = append(errs, field.Required(termsPath, "must have at least one node selector term"))
		}
		for i := range terms {
			errs = append(errs, validateTerm(&terms[i], checkLabelValues, termsPath.Index(i))...)
		}
	}
	prefPath := naPath.Child("preferredDuringSchedulingIgnoredDuringExecution")
	for i := range na.PreferredDuringSchedulingIgnoredDuringExecution {
		p := &na.PreferredDuringSchedulingIgnoredDuringExecution[i]
		if p.Weight <= 0 || p.Weight > 100 {
			errs = append(errs, field.Invalid(prefPath.Index(i).Child("weight"), p.Weight, "must be in the range 1-100"))
		}
		// Upstream accepts invalid label values in preferred terms: such a term can still be
		// useful on a single-node cluster.
		errs = append(errs, validateTerm(&p.Preference, skipLabelValues, prefPath.Index(i).Child("preference"))...)
	}
	return errs
}

// labelValueCheck says whether matchExpressions values must have label syntax.
type labelValueCheck bool

const (
	checkLabelValues labelValueCheck = true
	skipLabelValues  labelValueCheck = false
)

func validateTerm(t *v1.NodeSelectorTerm, values labelValueCheck, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	for j := range t.MatchExpressions {
		errs = append(errs, validateExpression(&t.MatchExpressions[j], values, fldPath.Child("matchExpressions").Index(j))...)
	}
	for j := range t.MatchFields {
		errs = append(errs, validateField(&t.MatchFields[j], fldPath.Child("matchFields").Index(j))...)
	}
	return errs
}

func validateExpression(e *v1.NodeSelectorRequirement, values labelValueCheck, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	valuesPath := fldPath.Child("values")
	switch e.Operator {
	case v1.NodeSelectorOpIn, v1.NodeSelectorOpNotIn:
		if len(e.Values) == 0 {
			errs = append(errs, field.Required(valuesPath, "must be specified when `operator` is 'In' or 'NotIn'"))
		}
	case v1.NodeSelectorOpExists, v1.NodeSelectorOpDoesNotExist:
		if len(e.Values) > 0 {
			errs = append(errs, field.Forbidden(valuesPath, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"))
		}
	case v1.NodeSelectorOpGt, v1.NodeSelectorOpLt:
		// Only the count is checked, not that the value is an integer (VAL-18).
		if len(e.Values) != 1 {
			errs = append(errs, field.Required(valuesPath, "must be specified single value when `operator` is 'Lt' or 'Gt'"))
		}
	default:
		errs = append(errs, field.Invalid(fldPath.Child("operator"), e.Operator, "not a valid selector operator"))
	}
	errs = append(errs, metav1validation.ValidateLabelName(e.Key, fldPath.Child("key"))...)
	if values == checkLabelValues {
		for j, v := range e.Values {
			for _, msg := range content.IsLabelValue(v) {
				errs = append(errs, field.Invalid(valuesPath.Index(j), v, msg).WithOrigin("format=k8s-label-value"))
			}
		}
	}
	return errs
}

func validateField(f *v1.NodeSelectorRequirement, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	switch f.Operator {
	case v1.NodeSelectorOpIn, v1.NodeSelectorOpNotIn:
		if len(f.Values) != 1 {
			errs = append(errs, field.Required(fldPath.Child("values"), "must be only one value when `operator` is 'In' or 'NotIn' for node field selector"))
		}
	default:
		errs = append(errs, field.Invalid(fldPath.Child("operator"), f.Operator, "not a valid selector operator"))
	}
	if f.Key != metav1.ObjectNameField {
		errs = append(errs, field.Invalid(fldPath.Child("key"), f.Key, "not a valid field selector key"))
		return errs
	}
	for j, v := range f.Values {
		for _, msg := range apivalidation.NameIsDNSSubdomain(v, false) {
			errs = append(errs, field.Invalid(fldPath.Child("values").Index(j), v, msg))
		}
	}
	return errs
}
