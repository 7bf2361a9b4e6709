package taints

import (
	"strconv"
	"strings"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/validate/content"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Validate reports what API validation rejects in tols (VAL-17), every problem at once, under
// fldPath (for a DaemonSet, spec.template.spec.tolerations). A nil or empty tols is valid.
//
// It follows k8s/pkg/apis/core/validation ValidateTolerations (the same checks in v1.36.3 and
// v1.37.2; the Lt and Gt operators are new in 1.35), which is more precise
// than VAL-17 in one place: with opts.ComparisonOperators on, an Lt or Gt value that is not a
// canonical decimal integer, or does not fit an int64, is reported as Invalid at
// tolerations[i].value (not .operator), once for the syntax and once more if ParseInt fails.
func Validate(tols []v1.Toleration, fldPath *field.Path, opts Options) field.ErrorList {
	var errs field.ErrorList
	for i := range tols {
		t := &tols[i]
		idxPath := fldPath.Index(i)
		if t.Key != "" {
			errs = append(errs, metav1validation.ValidateLabelName(t.Key, idxPath.Child("key"))...)
		}
		// Only Exists may omit the key: an empty key with Equal would match any key (TAINT-2).
		if t.Key == "" && t.Operator != v1.TolerationOpExists {
			errs = append(errs, field.Invalid(idxPath.Child("operator"), t.Operator,
				"operator must be Exists when key is empty, which means match all values and all keys"))
		}
		if t.TolerationSeconds != nil && t.Effect != v1.TaintEffectNoExecute {
			errs = append(errs, field.Invalid(idxPath.Child("effect"), t.Effect,
				"effect must be NoExecute when tolerationSeconds is set"))
		}
		switch t.Operator {
		case "", v1.TolerationOpEqual:
			if msgs := content.IsLabelValue(t.Value); len(msgs) > 0 {
				errs = append(errs, field.Invalid(idxPath.Child("operator"), t.Value, strings.Join(msgs, ";")))
			}
		case v1.TolerationOpExists:
			if t.Value != "" {
				errs = append(errs, field.Invalid(idxPath.Child("operator"), t.Value,
					"value must be empty when operator is Exists"))
			}
		case v1.TolerationOpLt, v1.TolerationOpGt:
			if !opts.ComparisonOperators {
				errs = append(errs, field.NotSupported(idxPath.Child("operator"), t.Operator,
					[]v1.TolerationOperator{v1.TolerationOpEqual, v1.TolerationOpExists, v1.TolerationOpLt, v1.TolerationOpGt}))
				break
			}
			for _, msg := range content.IsDecimalInteger(t.Value) {
				errs = append(errs, field.Invalid(idxPath.Child("value"), t.Value, msg))
			}
			if _, err := strconv.ParseInt(t.Value, 10, 64); err != nil {
				errs = append(errs, field.Invalid(idxPath.Child("value"), t.Value, "must be an integer within the int64 range"))
			}
		default:
			errs = append(errs, field.NotSupported(idxPath.Child("operator"), t.Operator,
				[]v1.TolerationOperator{v1.TolerationOpEqual, v1.TolerationOpExists}))
		}
		// An empty effect is valid on a toleration: it matches every effect.
		if t.Effect != "" {
			errs = append(errs, validateEffect(t.Effect, idxPath.Child("effect"))...)
		}
	}
	return errs
}

// ValidateNodeTaints reports what API validation rejects in a node's spec.taints (VAL-21), every
// problem at once, under fldPath: a key that is not a qualified name (Invalid .key), a value
// that is not a label value (Invalid .value), an empty effect (Required .effect) or one other
// than NoSchedule, PreferNoSchedule and NoExecute (Unsupported .effect), and a second taint with
// the same key and effect (Duplicate at the taint's index, whose value is the taint). It follows
// k8s/pkg/apis/core/validation validateNodeTaints, unchanged from v1.33.13 to v1.37.2. A nil or
// empty taints is valid.
//
// The planner does not call it: nodes come from the API server already valid. It is for callers
// that build nodes by hand (simulators, test suites), where a misspelt effect would otherwise be
// silently ignored (TAINT-6).
func ValidateNodeTaints(taints []v1.Taint, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	type keyEffect struct {
		key    string
		effect v1.TaintEffect
	}
	seen := make(map[keyEffect]struct{}, len(taints))
	for i := range taints {
		t := &taints[i]
		idxPath := fldPath.Index(i)
		errs = append(errs, metav1validation.ValidateLabelName(t.Key, idxPath.Child("key"))...)
		if msgs := content.IsLabelValue(t.Value); len(msgs) > 0 {
			errs = append(errs, field.Invalid(idxPath.Child("value"), t.Value, strings.Join(msgs, ";")))
		}
		if t.Effect == "" {
			errs = append(errs, field.Required(idxPath.Child("effect"), ""))
		} else {
			errs = append(errs, validateEffect(t.Effect, idxPath.Child("effect"))...)
		}
		k := keyEffect{t.Key, t.Effect}
		if _, dup := seen[k]; dup {
			e := field.Duplicate(idxPath, *t)
			e.Detail = "taints must be unique by key and effect pair"
			errs = append(errs, e)
			continue
		}
		seen[k] = struct{}{}
	}
	return errs
}

// validateEffect reports an effect other than the three known ones as Unsupported.
func validateEffect(effect v1.TaintEffect, fldPath *field.Path) field.ErrorList {
	if effectOf(effect) != 0 {
		return nil
	}
	return field.ErrorList{field.NotSupported(fldPath, effect,
		[]v1.TaintEffect{v1.TaintEffectNoSchedule, v1.TaintEffectPreferNoSchedule, v1.TaintEffectNoExecute})}
}
